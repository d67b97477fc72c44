//! Zobrist keys, fixed at compile time.

use crate::{Color, Role, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// `PIECE[color][role][square]`, then the side-to-move key, then keys used to
/// tell partial captures apart in [`Game::hash`](crate::Game::hash).
struct Keys {
    piece: [[[u64; 64]; 2]; 2],
    black_to_move: u64,
    pending_at: [u64; 64],
    pending_captured: [u64; 64],
    pending_dir: [u64; 4],
    pending_king: u64,
}

static KEYS: Keys = {
    let mut state = 0x6461_6d61_2d7a_6f62; // "dama-zob"
    let mut piece = [[[0u64; 64]; 2]; 2];
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 2 {
            let mut s = 0;
            while s < 64 {
                let (st, k) = splitmix(state);
                state = st;
                piece[c][r][s] = k;
                s += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let (st, black_to_move) = splitmix(state);
    state = st;
    let mut pending_at = [0u64; 64];
    let mut pending_captured = [0u64; 64];
    let mut s = 0;
    while s < 64 {
        let (st, k) = splitmix(state);
        state = st;
        pending_at[s] = k;
        let (st, k) = splitmix(state);
        state = st;
        pending_captured[s] = k;
        s += 1;
    }
    let mut pending_dir = [0u64; 4];
    let mut d = 0;
    while d < 4 {
        let (st, k) = splitmix(state);
        state = st;
        pending_dir[d] = k;
        d += 1;
    }
    let (_, pending_king) = splitmix(state);
    Keys {
        piece,
        black_to_move,
        pending_at,
        pending_captured,
        pending_dir,
        pending_king,
    }
};

#[inline(always)]
pub(crate) fn piece(color: Color, role: Role, sq: Square) -> u64 {
    KEYS.piece[color.index()][role.index()][sq.index() as usize]
}

#[inline(always)]
pub(crate) fn black_to_move() -> u64 {
    KEYS.black_to_move
}

pub(crate) fn pending_at(sq: Square) -> u64 {
    KEYS.pending_at[sq.index() as usize]
}

pub(crate) fn pending_captured(sq: Square) -> u64 {
    KEYS.pending_captured[sq.index() as usize]
}

pub(crate) fn pending_dir(d: crate::Direction) -> u64 {
    KEYS.pending_dir[d as usize]
}

pub(crate) fn pending_king() -> u64 {
    KEYS.pending_king
}
