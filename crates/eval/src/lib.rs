//! Baseline players, alpha-beta engine, arena and Elo.
