//! What a game supplies for a learned evaluation: its input features.
//!
//! The network knows no game. A game implements [`Features`] in its own
//! crate: which sparse features a position has, seen from either side (a
//! "perspective", 0 or 1), how a move changes them (for the incremental
//! accumulator), how a position is stored in a sample file, and, where its
//! rules allow, the mirrored position training may add. Everything else
//! (the network, its quantized kernels, the evaluator and sample files,
//! training in `dama-nn`) is written once against this trait.

use std::fmt::{Debug, Display};
use std::str::FromStr;

/// The most features active at once in one perspective: the quantized
/// feature transformer's weights are bounded so that this many rows and
/// the bias add up within an `i16`.
pub const MAX_ACTIVE: usize = 48;

/// A game's input features for the learned evaluation.
pub trait Features: Sized + Send + Sync + 'static {
    /// The game's position.
    type Position: Clone + Debug + PartialEq + Send + Sync;
    /// The game's rules: a network is trained for one set of them.
    type Rules: Clone + Debug + PartialEq + Display + FromStr<Err: Display> + Send + Sync;

    /// Names the feature set in evaluator and sample files (e.g.
    /// `draughts-psq`); a file of another feature set is refused.
    const NAME: &'static str;
    /// Features per perspective.
    const COUNT: usize;
    /// Bytes of one position in a sample file.
    const POSITION_BYTES: usize;
    /// Whether files written before feature sets were named (format 1
    /// sample files, evaluator files without `feature_set=`) are this game's.
    const READS_UNNAMED_FILES: bool = false;

    /// The side to move of `pos`, as a perspective (0 or 1).
    fn side_to_move(pos: &Self::Position) -> usize;

    /// Calls `f` with every active feature of `pos` (each below
    /// [`Features::COUNT`], at most [`MAX_ACTIVE`] of them, none twice) seen
    /// by `perspective` (0 or 1).
    fn for_each_feature(pos: &Self::Position, perspective: usize, f: impl FnMut(usize));

    /// Calls `f(perspective, feature, false)` for every feature active in
    /// `before` but not in `after`, and `f(perspective, feature, true)` for
    /// every feature active in `after` but not in `before`, for both
    /// perspectives (0 and 1), in any order.
    ///
    /// The default compares the two lists of each perspective; a game whose
    /// positions are bitboards overrides it with a faster difference (one
    /// pass over the changed pieces for both perspectives). Either way it
    /// must agree with [`Features::for_each_feature`] (the incremental
    /// accumulator must equal a refresh: [`check_features`]).
    fn for_each_change(
        before: &Self::Position,
        after: &Self::Position,
        mut f: impl FnMut(usize, usize, bool),
    ) {
        for p in 0..2 {
            let list = |pos: &Self::Position| {
                let mut v = Vec::with_capacity(MAX_ACTIVE);
                Self::for_each_feature(pos, p, |f| v.push(f));
                v.sort_unstable();
                v
            };
            let (b, a) = (list(before), list(after));
            let (mut i, mut j) = (0, 0);
            loop {
                match (b.get(i), a.get(j)) {
                    (Some(x), Some(y)) if x == y => {
                        i += 1;
                        j += 1;
                    }
                    (Some(x), Some(y)) if x < y => {
                        f(p, *x, false);
                        i += 1;
                    }
                    (Some(x), None) => {
                        f(p, *x, false);
                        i += 1;
                    }
                    (_, Some(y)) => {
                        f(p, *y, true);
                        j += 1;
                    }
                    (None, None) => break,
                }
            }
        }
    }

    /// The position mirrored by a symmetry of the rules (training adds it
    /// at random with `mirror = true`), or `None` if the game has none.
    fn mirrored(_pos: &Self::Position) -> Option<Self::Position> {
        None
    }

    /// Appends exactly [`Features::POSITION_BYTES`] bytes for `pos`.
    fn encode(pos: &Self::Position, out: &mut Vec<u8>);

    /// The position `bytes` (as [`Features::encode`] wrote them) stand
    /// for, under `rules`.
    ///
    /// # Errors
    ///
    /// What makes the bytes no position of the game.
    fn decode(bytes: &[u8], rules: &Self::Rules) -> Result<Self::Position, String>;
}

/// Checks a feature set's contract on `positions`: indices in range and
/// distinct, at most [`MAX_ACTIVE`] of them, and
/// [`Features::for_each_change`] between each pair equal to the difference
/// of the two lists. Returns the first problem found.
///
/// A game's tests run it over its positions (random games, captures,
/// promotions).
pub fn check_features<F: Features>(pairs: &[(F::Position, F::Position)]) -> Result<(), String> {
    for (before, after) in pairs {
        let mut lists = Vec::with_capacity(2);
        for p in 0..2 {
            let list = |pos: &F::Position| -> Result<Vec<usize>, String> {
                let mut v = Vec::new();
                F::for_each_feature(pos, p, |f| v.push(f));
                if let Some(f) = v.iter().find(|&&f| f >= F::COUNT) {
                    return Err(format!("{pos:?}: feature {f} is not below {}", F::COUNT));
                }
                if v.len() > MAX_ACTIVE {
                    return Err(format!(
                        "{pos:?}: {} features, at most {MAX_ACTIVE}",
                        v.len()
                    ));
                }
                v.sort_unstable();
                if v.windows(2).any(|w| w[0] == w[1]) {
                    return Err(format!("{pos:?}: a feature is active twice"));
                }
                Ok(v)
            };
            lists.push((list(before)?, list(after)?));
        }
        let mut got: Vec<Vec<usize>> = lists.iter().map(|(b, _)| b.clone()).collect();
        let mut wrong = None;
        F::for_each_change(before, after, |p, f, added| {
            let Some(got) = got.get_mut(p) else {
                wrong.get_or_insert(format!("names perspective {p}"));
                return;
            };
            match (added, got.iter().position(|&x| x == f)) {
                (false, Some(i)) => {
                    got.swap_remove(i);
                }
                (false, None) => {
                    wrong.get_or_insert(format!("removes feature {f}, which is not active"));
                }
                (true, Some(_)) => {
                    wrong.get_or_insert(format!("adds feature {f}, which is active"));
                }
                (true, None) => got.push(f),
            }
        });
        if let Some(w) = wrong {
            return Err(format!("{before:?} → {after:?}: the change {w}"));
        }
        for (p, (got, (_, a))) in got.iter_mut().zip(&lists).enumerate() {
            got.sort_unstable();
            if got != a {
                return Err(format!(
                    "perspective {p}: {before:?} → {after:?}: the changes give {got:?}, a refresh {a:?}"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A toy game: eight cells, each empty (0), White's (1) or Black's (-1),
    /// and the side to move.
    #[derive(Clone, Debug, PartialEq)]
    pub(crate) struct Row([i8; 8], usize);

    #[derive(Clone, Debug, PartialEq)]
    pub(crate) struct NoRules;

    impl std::fmt::Display for NoRules {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("row")
        }
    }

    impl FromStr for NoRules {
        type Err = String;
        fn from_str(s: &str) -> Result<Self, String> {
            (s == "row").then_some(NoRules).ok_or_else(|| s.to_owned())
        }
    }

    pub(crate) struct RowFeatures;

    impl Features for RowFeatures {
        type Position = Row;
        type Rules = NoRules;
        const NAME: &'static str = "row";
        const COUNT: usize = 16;
        const POSITION_BYTES: usize = 9;
        fn side_to_move(pos: &Row) -> usize {
            pos.1
        }
        fn for_each_feature(pos: &Row, perspective: usize, mut f: impl FnMut(usize)) {
            for (i, &c) in pos.0.iter().enumerate() {
                if c != 0 {
                    let own = (c == 1) == (perspective == 0);
                    f(usize::from(!own) * 8 + i);
                }
            }
        }
        fn encode(pos: &Row, out: &mut Vec<u8>) {
            out.extend(pos.0.iter().map(|&c| c as u8));
            out.push(pos.1 as u8);
        }
        fn decode(b: &[u8], _: &NoRules) -> Result<Row, String> {
            let mut cells = [0i8; 8];
            for (c, &x) in cells.iter_mut().zip(b) {
                *c = x as i8;
            }
            Ok(Row(cells, usize::from(b[8])))
        }
    }

    /// The same features with a difference that forgets removals.
    struct Forgetful;

    impl Features for Forgetful {
        type Position = Row;
        type Rules = NoRules;
        const NAME: &'static str = "forgetful";
        const COUNT: usize = 16;
        const POSITION_BYTES: usize = 9;
        const READS_UNNAMED_FILES: bool = true;
        fn side_to_move(pos: &Row) -> usize {
            pos.1
        }
        fn for_each_feature(pos: &Row, perspective: usize, f: impl FnMut(usize)) {
            RowFeatures::for_each_feature(pos, perspective, f);
        }
        fn for_each_change(before: &Row, after: &Row, mut f: impl FnMut(usize, usize, bool)) {
            RowFeatures::for_each_change(before, after, |p, x, added| {
                if added {
                    f(p, x, true);
                }
            });
        }
        fn encode(pos: &Row, out: &mut Vec<u8>) {
            RowFeatures::encode(pos, out);
        }
        fn decode(b: &[u8], r: &NoRules) -> Result<Row, String> {
            RowFeatures::decode(b, r)
        }
    }

    fn pairs() -> Vec<(Row, Row)> {
        vec![
            (
                Row([1, 0, -1, 0, 0, 0, 0, 0], 0),
                Row([0, 1, -1, 0, 0, 0, 0, 0], 1),
            ),
            (
                Row([0, 1, -1, 0, 0, 0, 0, 0], 1),
                Row([0, -1, 0, 0, 0, 0, 0, 0], 0),
            ),
            (
                Row([1, 1, 1, 0, 0, -1, -1, -1], 0),
                Row([1, 1, 0, 1, 0, -1, -1, -1], 1),
            ),
        ]
    }

    #[test]
    fn the_default_difference_keeps_the_contract() {
        check_features::<RowFeatures>(&pairs()).expect("the default difference");
    }

    #[test]
    fn a_difference_that_disagrees_with_a_refresh_is_caught() {
        let err = check_features::<Forgetful>(&pairs()).unwrap_err();
        assert!(err.contains("the changes give"), "{err}");
    }

    #[test]
    fn the_quantized_network_updates_as_it_refreshes() {
        let float = crate::FloatNet::random::<RowFeatures>(&NoRules, 3);
        let net = crate::Network::<RowFeatures>::from_float(&float).expect("network");
        for (before, after) in pairs() {
            let acc = net.update(&net.refresh(&before), &before, &after);
            assert_eq!(acc, net.refresh(&after));
            let q = net.evaluate(&acc, after.1) as f32;
            let f = float.evaluate::<RowFeatures>(&after);
            assert!((q - f).abs() < 5.0, "quantized {q}, float {f}");
        }
    }

    #[test]
    fn files_of_a_game_round_trip_and_another_game_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("row.nnue");
        let float = crate::FloatNet::random::<RowFeatures>(&NoRules, 1);
        crate::write_network(&path, &float, &[]).expect("write");
        let (back, _) = crate::read_network::<RowFeatures>(&path, Some(&NoRules)).expect("read");
        assert_eq!(back, float);
        let err = crate::read_network::<Forgetful>(&path, None).unwrap_err();
        assert!(err.to_string().contains("feature set `row`"), "{err}");

        // A file written before feature sets were named (no
        // `feature_set=` line): only a game that reads such files takes it.
        let bytes = std::fs::read(&path).expect("bytes");
        let header_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
        let header = std::str::from_utf8(&bytes[16..16 + header_len]).expect("header");
        let unnamed: String = header
            .lines()
            .filter(|l| !l.starts_with("feature_set="))
            .map(|l| format!("{l}\n"))
            .collect();
        let mut old = bytes[..12].to_vec();
        old.extend_from_slice(&(unnamed.len() as u32).to_le_bytes());
        old.extend_from_slice(unnamed.as_bytes());
        old.extend_from_slice(&bytes[16 + header_len..bytes.len() - 8]);
        let sum = dama_run::files::fnv1a64(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        let unnamed_path = dir.path().join("old.nnue");
        std::fs::write(&unnamed_path, &old).expect("write");
        let err = crate::read_network::<RowFeatures>(&unnamed_path, None).unwrap_err();
        assert!(err.to_string().contains("names no feature set"), "{err}");
        let (back, _) = crate::read_network::<Forgetful>(&unnamed_path, None).expect("read");
        assert_eq!(back.feature_set, "forgetful");
        assert_eq!(back.ft_w, float.ft_w);

        let samples: Vec<crate::Sample<RowFeatures>> = pairs()
            .into_iter()
            .map(|(p, _)| crate::Sample::new(&p, 70_000, -3))
            .collect();
        let path = dir.path().join("row.samples");
        crate::write_samples(&path, &NoRules, &samples).expect("write");
        let (_, back) = crate::read_samples::<RowFeatures>(&path, None, 10).expect("read");
        assert_eq!(back, samples);
        assert_eq!((back[0].score, back[0].result), (i16::MAX, -1));
        let err = crate::read_samples::<Forgetful>(&path, None, 10).unwrap_err();
        assert!(err.to_string().contains("feature set `row`"), "{err}");
    }
}
