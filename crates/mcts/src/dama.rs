//! Turkish draughts adapter (pending the engine API).
