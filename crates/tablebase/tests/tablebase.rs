//! Tables of up to three pieces, generated here, checked against their own
//! children, against a brute-force search straight from the engine's rules,
//! and on hand-built positions (issue 13).

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use dama_engine::{
    Bitboard, Color, MidCapturePromotion, OnePieceEachRule, Outcome, Position, Rules,
};
use dama_tablebase::{Error, Generator, Material, Tablebase, Wdl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A short no-capture limit, so that the brute-force search ends.
const LIMIT: u16 = 5;

/// Memo tables keyed by a Zobrist hash (already uniform: no rehashing).
type Memo<K, V> = HashMap<(u64, K), V, std::hash::BuildHasherDefault<ZobristHasher>>;

#[derive(Default)]
struct ZobristHasher(u64);

impl std::hash::Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = self
            .0
            .wrapping_add(u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u32(n.into());
    }
}

/// The rule sets the tests generate tables for.
fn rule_sets() -> Vec<Rules> {
    let d = Rules::default();
    vec![
        d,
        Rules {
            no_capture_limit: None,
            ..d
        },
        Rules {
            no_capture_limit: Some(LIMIT),
            ..d
        },
        Rules {
            one_piece_each: OnePieceEachRule::KingBeatsMan,
            no_capture_limit: Some(LIMIT),
            ..d
        },
        Rules {
            promotion_mid_capture: MidCapturePromotion::ContinueAsKing,
            ..d
        },
    ]
}

/// The ≤3-piece tablebase of `rules`, generated once per test binary.
fn tb(rules: Rules) -> &'static Tablebase {
    static CACHE: OnceLock<Mutex<HashMap<String, &'static Tablebase>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap();
    let key = format!("{rules:?}");
    if let Some(t) = cache.get(&key) {
        return t;
    }
    let dir = tempfile::tempdir().unwrap();
    Generator::new(dir.path(), rules)
        .generate(3, &|_| {})
        .unwrap();
    let t: &'static Tablebase = Box::leak(Box::new(Tablebase::open(dir.path()).unwrap()));
    cache.insert(key, t);
    t
}

fn pos(text: &str, rules: Rules) -> Position {
    text.parse::<Position>().unwrap().with_rules(rules)
}

/// A random position of 2 or 3 pieces (both sides present, men on ranks
/// 2–7), or `None` if the draw is not a legal position.
fn random_position(rng: &mut ChaCha8Rng, rules: Rules) -> Option<Position> {
    let n = rng.gen_range(2..=3);
    let mut white = 0u64;
    let mut black = 0u64;
    let mut kings = 0u64;
    for i in 0..n {
        let is_white = match i {
            0 => true,
            1 => false,
            _ => rng.gen(),
        };
        let king = rng.gen_bool(0.5);
        let sq = if king {
            rng.gen_range(0..64)
        } else {
            rng.gen_range(8..56)
        };
        if (white | black) & (1 << sq) != 0 {
            return None;
        }
        if is_white {
            white |= 1 << sq;
        } else {
            black |= 1 << sq;
        }
        if king {
            kings |= 1 << sq;
        }
    }
    let turn = if rng.gen() {
        Color::White
    } else {
        Color::Black
    };
    Position::from_bitboards(Bitboard(white), Bitboard(black), Bitboard(kings), turn)
        .ok()
        .map(|p| p.with_rules(rules))
}

#[test]
fn every_table_up_to_three_pieces_is_consistent_with_its_children() {
    for rules in rule_sets() {
        let tb = tb(rules);
        assert_eq!(tb.max_pieces(), 3, "{rules:?}");
        assert!(tb.missing().is_empty());
        let mut checked = 0;
        for t in tb.tables() {
            checked += tb.verify(t.material()).unwrap();
            let s = t.stats();
            assert_eq!(s.positions() + s.counts[0][5] + s.counts[1][5], t.entries());
        }
        assert!(checked > 600_000, "{checked}");
    }
}

/// The value for the side to move and the plies to zeroing, by plain
/// minimax over whole moves from the engine's own rules (termination with
/// the counter, the maximum-capture move list, promotion, one piece each).
///
/// With a limit below 8 plies no position can occur three times (a third
/// occurrence needs 8 plies without a capture), so the value depends
/// only on the position and its counter and is memoised on both.
fn brute(pos: &Position, memo: &mut Memo<u16, (i8, u16)>) -> (i8, u16) {
    assert!(pos.rules().no_capture_limit.is_some_and(|l| l < 8));
    let key = (pos.hash(), pos.plies_since_capture());
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let v = match pos.termination() {
        Some((Outcome::Draw, _)) => (0, 0),
        Some((o, _)) => (o.score_for(pos.turn()), 0),
        None => {
            let mut best: Option<(i8, u16)> = None;
            for m in pos.legal_moves() {
                let mut child = *pos;
                child.play_unchecked(&m);
                let (s, d) = brute(&child, memo);
                let d = if m.is_capture() { 1 } else { d + 1 };
                let cand = (-s, if s == 0 { 0 } else { d });
                best = Some(match best {
                    None => cand,
                    Some(b) => {
                        // Higher score first; a win as fast, a loss as slow as possible.
                        let better = cand.0 > b.0
                            || (cand.0 == b.0 && cand.0 == 1 && cand.1 < b.1)
                            || (cand.0 == b.0 && cand.0 == -1 && cand.1 > b.1);
                        if better {
                            cand
                        } else {
                            b
                        }
                    }
                });
            }
            best.expect("a position that is not over has a move")
        }
    };
    memo.insert(key, v);
    v
}

#[test]
fn random_positions_match_brute_force_with_the_counter() {
    for rules in rule_sets()
        .into_iter()
        .filter(|r| r.no_capture_limit == Some(LIMIT))
    {
        let tb = tb(rules);
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut memo = Memo::default();
        let mut tested = 0;
        let mut decisive = 0;
        while tested < 2000 {
            let Some(p) = random_position(&mut rng, rules) else {
                continue;
            };
            let p = p.with_counters(rng.gen_range(0..=LIMIT), 0);
            let probe = tb.probe(&p).unwrap();
            let (score, dtz) = brute(&p, &mut memo);
            assert_eq!(
                probe.wdl.score(),
                score,
                "{p} counter {}: {probe:?}",
                p.plies_since_capture()
            );
            if score != 0 {
                decisive += 1;
                assert_eq!(
                    probe.dtz,
                    Some(dtz),
                    "{p} counter {}",
                    p.plies_since_capture()
                );
            }
            tested += 1;
        }
        assert!(decisive > 80, "{decisive}");
    }
}

/// Whether the side to move can force the end of the game within `depth`
/// plies (1: it wins, -1: it loses, 0: not decided within the depth), by
/// plain minimax from the engine's rules with no counter rule. A threefold
/// repetition needs 8 plies, more than the depth, so results depend only on
/// the position and the depth and are memoised on both.
fn bounded(pos: &Position, depth: u32, memo: &mut Memo<u32, i8>) -> i8 {
    assert!(depth < 8);
    if let Some((o, _)) = pos.termination() {
        return o.score_for(pos.turn());
    }
    if depth == 0 {
        return 0;
    }
    if let Some(&v) = memo.get(&(pos.hash(), depth)) {
        return v;
    }
    let mut best = -1;
    for m in pos.legal_moves() {
        let mut child = *pos;
        child.play_unchecked(&m);
        best = best.max(-bounded(&child, depth - 1, memo));
        if best == 1 {
            break;
        }
    }
    memo.insert((pos.hash(), depth), best);
    best
}

#[test]
fn random_positions_match_a_bounded_search_without_the_rule() {
    let rules = Rules {
        no_capture_limit: None,
        ..Rules::default()
    };
    let tb = tb(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut memo = Memo::default();
    let mut found = 0;
    const DEPTH: u32 = 5;
    for _ in 0..3000 {
        let Some(p) = random_position(&mut rng, rules) else {
            continue;
        };
        let probe = tb.probe(&p).unwrap();
        assert!(!probe.wdl.is_drawn_by_rule());
        let v = bounded(&p, DEPTH, &mut memo);
        if v != 0 {
            found += 1;
            assert_eq!(probe.wdl.score(), v, "{p}: {probe:?}");
        }
        // With three pieces every capture ends the game (two pieces left,
        // or one side bare): plies to zeroing are plies to the end.
        if probe.wdl != Wdl::Draw && u32::from(probe.dtz.unwrap()) < DEPTH {
            assert_eq!(
                v,
                probe.wdl.score(),
                "{p}: {probe:?} not found at depth {DEPTH}"
            );
        }
    }
    assert!(found > 150, "{found}");
}

#[test]
fn known_positions() {
    let rules = Rules::default();
    let tb = tb(rules);
    let probe = |s: &str| tb.probe(&pos(s, rules)).unwrap();
    // Two kings against one: a king takes the lone king, a win in one ply.
    let p = probe("W:WKd4,Ka8:BKd6");
    assert_eq!((p.wdl, p.dtz), (Wdl::Win, Some(1)));
    // The other side to move must take first, leaving one piece each: a draw.
    assert_eq!(probe("B:WKd4,Ka8:BKd6").wdl, Wdl::Draw);
    // A king and a man against a king: the king on c1 takes c5 (c6 beyond).
    let p = probe("W:WKc1,h7:BKc5");
    assert_eq!((p.wdl, p.dtz), (Wdl::Win, Some(1)));
    // A king against a king and a man: the king must take the man on b7,
    // which leaves one piece each.
    let p = probe("W:WKb1:BKh8,b7");
    assert_eq!((p.wdl, p.dtz), (Wdl::Draw, None));
    // One piece each is a draw, whatever the pieces; a bare side has lost.
    assert_eq!(probe("W:WKd4:Bd6").wdl, Wdl::Draw);
    assert_eq!(probe("B:WKd4,e4:B").wdl, Wdl::Loss);
    // The counter: a capture that wins must be played before the 50th
    // quiet ply, at which the game is drawn.
    let at = |c: u16| {
        tb.probe(&pos("W:WKd4,Ka8:BKd6", rules).with_counters(c, 0))
            .unwrap()
    };
    assert_eq!(at(49).wdl, Wdl::Win);
    assert_eq!(at(50).wdl, Wdl::CursedWin);
    assert_eq!(at(50).wdl.score(), 0);
}

/// A side whose men cannot move loses (four pieces: run with
/// `DAMA_TB_DIR` pointing at generated 4-piece tables of the default rules).
#[test]
#[ignore = "needs the 4-piece tables in DAMA_TB_DIR"]
fn blocked_men_lose() {
    let dir = std::env::var("DAMA_TB_DIR").expect("DAMA_TB_DIR");
    let tb = Tablebase::open(dir).unwrap();
    let rules = tb.rules();
    // The white man on a7 cannot step to a8 (taken, nothing beyond) nor to
    // b7 (taken, c7 behind it taken too): White to move has lost.
    let p = tb.probe(&pos("W:Wa7:BKa8,b7,c7", rules)).unwrap();
    assert_eq!((p.wdl, p.dtz), (Wdl::Loss, Some(0)));
    // Black to move takes the man with the king (a8xa6).
    let p = tb.probe(&pos("B:Wa7:BKa8,b7,c7", rules)).unwrap();
    assert_eq!((p.wdl, p.dtz), (Wdl::Win, Some(1)));
}

#[test]
fn king_beats_man_rule_changes_one_piece_each() {
    let rules = Rules {
        one_piece_each: OnePieceEachRule::KingBeatsMan,
        no_capture_limit: Some(LIMIT),
        ..Rules::default()
    };
    let tb = tb(rules);
    let probe = |s: &str| tb.probe(&pos(s, rules)).unwrap();
    // A lone king against a lone man wins for the king.
    assert_eq!(probe("W:WKa1:Bh6").wdl, Wdl::Win);
    assert_eq!(probe("B:WKa1:Bh6").wdl, Wdl::Loss);
    // Unless the man's side takes the king first.
    assert_eq!(probe("B:WKb2:Ba2").wdl, Wdl::Win);
    // King against king stays a draw.
    assert_eq!(probe("W:WKa1:BKh6").wdl, Wdl::Draw);
}

#[test]
fn best_moves_keep_the_value_and_shorten_the_distance() {
    let rules = Rules::default();
    let tb = tb(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut wins = 0;
    for _ in 0..2000 {
        let Some(p) = random_position(&mut rng, rules) else {
            continue;
        };
        let probe = tb.probe(&p).unwrap();
        let Some(moves) = tb.best_moves(&p) else {
            assert!(p.is_game_over(), "{p}");
            continue;
        };
        let (_, best) = moves[0];
        assert_eq!(best.wdl, probe.wdl, "{p}");
        if probe.wdl == Wdl::Win {
            wins += 1;
            assert_eq!(best.dtz, probe.dtz, "{p}");
        }
    }
    assert!(wins > 100, "{wins}");
}

#[test]
fn mirrored_and_colour_flipped_positions_agree() {
    let rules = Rules::default();
    let tb = tb(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..3000 {
        let Some(p) = random_position(&mut rng, rules) else {
            continue;
        };
        let v = tb.probe(&p).unwrap();
        assert_eq!(tb.probe(&p.flip_horizontal()).unwrap(), v, "{p}");
        assert_eq!(tb.probe(&p.flip_colors()).unwrap(), v, "{p}");
    }
}

#[test]
fn positions_under_other_rules_or_unreachable_are_not_probed() {
    let tb = tb(Rules::default());
    let other = Rules {
        no_capture_limit: Some(LIMIT),
        ..Rules::default()
    };
    assert!(tb.probe(&pos("W:WKd4,Ke5:BKh8", other)).is_none());
    // A white man on its own first row cannot occur.
    assert!(tb.probe(&pos("W:Wa1,Kd4:BKh8", Rules::default())).is_none());
    // Four pieces: no table loaded.
    assert!(tb
        .probe(&pos("W:WKd4,Ke5:BKh8,Ka8", Rules::default()))
        .is_none());
}

#[test]
fn generation_resumes_and_bad_files_give_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let first = Generator::new(dir.path(), rules)
        .generate(3, &|_| {})
        .unwrap();
    assert!(first.iter().all(|r| !r.existed));
    let victim = Material {
        white_men: 1,
        white_kings: 1,
        black_men: 0,
        black_kings: 1,
    };
    let path = dir.path().join(victim.file_name());
    let good = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    // A killed run leaves only temporary files behind; they are ignored.
    std::fs::write(dir.path().join("KMvK.dtb.tmp"), b"partial").unwrap();
    let again = Generator::new(dir.path(), rules)
        .generate(3, &|_| {})
        .unwrap();
    for r in &again {
        assert_eq!(r.existed, r.material != victim, "{}", r.material);
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        good,
        "generation is deterministic"
    );

    let check = |bytes: &[u8], want: fn(&Error) -> bool| {
        std::fs::write(&path, bytes).unwrap();
        let err = Tablebase::open(dir.path()).unwrap_err();
        assert!(want(&err), "{err}");
        assert!(err.to_string().contains("KMvK.dtb"), "{err}");
    };
    check(&good[..good.len() - 10], |e| {
        matches!(e, Error::Truncated { .. })
    });
    check(&good[..100], |e| matches!(e, Error::Truncated { .. }));
    check(b"not a table at all, long enough to have a header ..................................................................................................................", |e| matches!(e, Error::BadMagic { .. }));
    let mut v = good.clone();
    v[8] = 99;
    check(&v, |e| matches!(e, Error::WrongVersion { found: 99, .. }));
    let mut v = good.clone();
    let last = v.len() - 1;
    v[last] ^= 1;
    check(&v, |e| matches!(e, Error::Checksum { .. }));
    let mut v = good.clone();
    v[14] = 7; // no_capture_limit 50 → 7: other rules than the other files
    v[15] = 0;
    check(&v, |e| {
        matches!(e, Error::WrongRules { .. } | Error::Checksum { .. })
    });
    // The generator refuses to mix rules in one directory.
    std::fs::write(&path, &good).unwrap();
    let other = Rules {
        no_capture_limit: None,
        ..rules
    };
    let err = Generator::new(dir.path(), other)
        .generate(3, &|_| {})
        .unwrap_err();
    assert!(matches!(err, Error::WrongRules { .. }), "{err}");
    assert!(Tablebase::open(dir.path()).is_ok());
}
