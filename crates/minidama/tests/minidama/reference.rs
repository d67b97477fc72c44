//! A naive move generator written from the rules text alone (a grid of
//! signed numbers, moves as strings), compared with the crate's over random
//! positions, random games and perft.

use dama_minidama::{perft, Game, MiniRules, Position};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `grid[rank][file]`: 0 empty, ±1 a man, ±2 a king; + White, − Black.
type Grid = [[i8; 6]; 6];

fn name(f: i8, r: i8) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

fn at(g: &Grid, f: i8, r: i8) -> Option<i8> {
    ((0..6).contains(&f) && (0..6).contains(&r)).then(|| g[r as usize][f as usize])
}

/// Every capture sequence of the piece on (f, r), as (count, text).
/// Rules 6.2–6.7: men jump an adjacent enemy forward or sideways, kings the
/// first piece on a line at any distance; the jumped piece leaves at once;
/// no reversal; the man stays a man until the move ends (7.2).
fn jumps(g: &Grid, f: i8, r: i8, last: (i8, i8), text: String, out: &mut Vec<(usize, String)>) {
    let me = g[r as usize][f as usize];
    let king = me.abs() == 2;
    let mut found = false;
    for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
        if (!king && dr == -me.signum()) || (df, dr) == (-last.0, -last.1) {
            continue;
        }
        let mut k = 1;
        while king && at(g, f + k * df, r + k * dr) == Some(0) {
            k += 1;
        }
        let enemy = at(g, f + k * df, r + k * dr).is_some_and(|v| v * me < 0);
        let mut land = k + 1;
        while enemy && at(g, f + land * df, r + land * dr) == Some(0) {
            let (nf, nr) = (f + land * df, r + land * dr);
            let mut h = *g;
            h[(r + k * dr) as usize][(f + k * df) as usize] = 0;
            h[r as usize][f as usize] = 0;
            h[nr as usize][nf as usize] = me;
            jumps(
                &h,
                nf,
                nr,
                (df, dr),
                format!("{text}x{}", name(nf, nr)),
                out,
            );
            found = true;
            if !king {
                break;
            }
            land += 1;
        }
    }
    if !found && text.contains('x') {
        out.push((text.matches('x').count(), text));
    }
}

/// The legal moves of `side` (+1 White, −1 Black), sorted.
fn reference_moves(g: &Grid, side: i8) -> Vec<String> {
    let mut caps = Vec::new();
    let mut quiet = Vec::new();
    for r in 0..6 {
        for f in 0..6 {
            let me = g[r as usize][f as usize];
            if me * side <= 0 {
                continue;
            }
            jumps(g, f, r, (0, 0), name(f, r), &mut caps);
            for (df, dr) in [(0, side), (1, 0), (-1, 0), (0, -side)] {
                if me.abs() == 1 && dr == -side {
                    continue;
                }
                let mut k = 1;
                while at(g, f + k * df, r + k * dr) == Some(0) {
                    quiet.push(format!("{}-{}", name(f, r), name(f + k * df, r + k * dr)));
                    k = if me.abs() == 2 { k + 1 } else { 7 };
                }
            }
        }
    }
    let best = caps.iter().map(|c| c.0).max().unwrap_or(0);
    let mut moves: Vec<String> = if best > 0 {
        caps.into_iter()
            .filter(|c| c.0 == best)
            .map(|c| c.1)
            .collect()
    } else {
        quiet
    };
    moves.sort();
    moves
}

/// Plays `m` on the grid: the captured squares lie between consecutive
/// landing squares; a man ending on its last row is crowned.
fn reference_play(g: &mut Grid, m: &str) {
    let sq: Vec<(i8, i8)> = m
        .split(['x', '-'])
        .map(|s| {
            (
                s.as_bytes()[0] as i8 - b'a' as i8,
                s.as_bytes()[1] as i8 - b'1' as i8,
            )
        })
        .collect();
    let me = g[sq[0].1 as usize][sq[0].0 as usize];
    for w in sq.windows(2) {
        let (df, dr) = ((w[1].0 - w[0].0).signum(), (w[1].1 - w[0].1).signum());
        let (mut f, mut r) = w[0];
        while (f, r) != w[1] {
            g[r as usize][f as usize] = 0;
            (f, r) = (f + df, r + dr);
        }
    }
    let (f, r) = sq[sq.len() - 1];
    let crowned = me.abs() == 1 && r == if me > 0 { 5 } else { 0 };
    g[r as usize][f as usize] = if crowned { 2 * me } else { me };
}

fn reference_perft(g: &Grid, side: i8, depth: u32) -> u64 {
    let moves = reference_moves(g, side);
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    moves
        .iter()
        .map(|m| {
            let mut h = *g;
            reference_play(&mut h, m);
            reference_perft(&h, -side, depth - 1)
        })
        .sum()
}

fn start_grid() -> Grid {
    let mut g = [[0; 6]; 6];
    g[1] = [1; 6];
    g[4] = [-1; 6];
    g
}

/// The grid's position text, written here (not by the crate).
fn text(g: &Grid, side: i8) -> String {
    let list = |s: i8| {
        let mut items = Vec::new();
        for r in 0..6 {
            for f in 0..6 {
                let v = g[r as usize][f as usize];
                if v * s > 0 {
                    items.push(format!(
                        "{}{}",
                        if v.abs() == 2 { "K" } else { "" },
                        name(f, r)
                    ));
                }
            }
        }
        items.join(",")
    };
    let turn = if side > 0 { "W" } else { "B" };
    format!("{turn}:W{}:B{}", list(1), list(-1))
}

fn crate_moves(p: &Position) -> Vec<String> {
    let mut moves: Vec<String> = p.legal_moves().iter().map(ToString::to_string).collect();
    moves.sort();
    moves
}

#[test]
fn perft_of_the_start_position_matches_the_reference() {
    let expected = [1, 6, 36, 286, 2_136, 15_622, 106_486];
    for (depth, &n) in expected.iter().enumerate() {
        let depth = depth as u32;
        assert_eq!(
            reference_perft(&start_grid(), 1, depth),
            n,
            "reference, depth {depth}"
        );
        assert_eq!(perft(&Position::start(), depth), n, "crate, depth {depth}");
    }
}

/// A random grid: each square empty, or a man or king of either side, at
/// most six pieces a side, no man on its crowning row.
fn grid_strategy() -> impl Strategy<Value = (Grid, i8)> {
    (prop::collection::vec(0u8..16, 36), any::<bool>()).prop_map(|(codes, white)| {
        let mut g = [[0; 6]; 6];
        let mut count = [0; 2];
        for (i, c) in codes.into_iter().enumerate() {
            let (f, r) = (i % 6, i / 6);
            let mut v = match c {
                0..=3 => 1,
                4 => 2,
                5..=8 => -1,
                9 => -2,
                _ => 0,
            };
            if (v == 1 && r == 5) || (v == -1 && r == 0) {
                v *= 2;
            }
            let side = usize::from(v < 0);
            if v != 0 && count[side] < 6 {
                count[side] += 1;
                g[r][f] = v;
            }
        }
        (g, if white { 1 } else { -1 })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_positions_have_the_reference_moves((g, side) in grid_strategy()) {
        let p: Position = text(&g, side).parse().expect("valid position");
        prop_assert_eq!(p.to_string(), text(&g, side));
        prop_assert_eq!(crate_moves(&p), reference_moves(&g, side));
        for m in p.legal_moves() {
            let mut h = g;
            reference_play(&mut h, &m.to_string());
            prop_assert_eq!(p.after_move(&m).to_string(), text(&h, -side));
        }
    }
}

#[test]
fn random_games_have_the_reference_moves_at_every_ply() {
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let mut positions = 0;
    for _ in 0..400 {
        let mut game = Game::new(MiniRules::default());
        let (mut g, mut side) = (start_grid(), 1);
        while game.outcome().is_none() {
            assert_eq!(game.position().to_string(), text(&g, side));
            assert_eq!(crate_moves(game.position()), reference_moves(&g, side));
            let moves = game.legal_moves();
            let m = &moves[rng.gen_range(0..moves.len())];
            game.play(m).expect("legal");
            reference_play(&mut g, &m.to_string());
            side = -side;
            positions += 1;
        }
    }
    assert!(positions > 10_000, "{positions} positions");
}
