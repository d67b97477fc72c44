//! Turkish draughts rules: bitboards, legal moves, notation, perft.
