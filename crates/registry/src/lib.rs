//! The registry of games: the one place that names every game.
//!
//! A game is written once, in its own crate, behind the game seam
//! ([`dama_game::GameDef`]); this crate maps its name ([`GameName`]) to
//! that implementation ([`GameName::with`], which runs code written once
//! for every game with the game a name stands for), and names the rules a
//! network was trained under ([`GameRules`]) and its encoding
//! ([`Encoding`]: version, shapes and mirror symmetry).
//!
//! Checkpoints, game records and bundles carry the game's name and its
//! encoding version, so that a file of one game is refused by another by
//! name rather than by a shape mismatch deep in a tensor call.
//!
//! Adding a game: its crate implements [`GameDef`]; here, one variant of
//! [`GameName`] (with its names) and one arm in [`GameName::with`] and in
//! [`GameRules`].

use std::fmt;
use std::str::FromStr;

use dama_draughts::Draughts;
use dama_engine::Rules;
use dama_game::{GameDef, Shape};
use dama_tafl::{Tafl, TaflRules};
use serde::{Deserialize, Serialize};

/// A game the trainer knows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameName {
    /// Turkish draughts and its variants (Armenian, Croda, Dameo): the
    /// variant is a rule option ([`Rules::variant`]).
    #[default]
    Draughts,
    /// Turkish Tafl (`crates/tafl`), on the 8 × 4 board.
    Tafl,
}

impl GameName {
    /// Every game.
    pub const ALL: [GameName; 2] = [GameName::Draughts, GameName::Tafl];

    /// The name in configs and files: `draughts`, `tafl`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameName::Draughts => Draughts::NAME,
            GameName::Tafl => Tafl::NAME,
        }
    }

    /// The name in sentences: `Turkish draughts`, `Turkish Tafl`.
    pub const fn title(self) -> &'static str {
        match self {
            GameName::Draughts => Draughts::TITLE,
            GameName::Tafl => Tafl::TITLE,
        }
    }

    /// Runs `code`, written once for every game, with the game this name
    /// stands for: the registry's one dispatch from a name to a type.
    pub fn with<W: WithGame>(self, code: W) -> W::Output {
        match self {
            GameName::Draughts => code.run::<Draughts>(),
            GameName::Tafl => code.run::<Tafl>(),
        }
    }

    /// The name of game `G`, if the registry has it.
    pub fn of<G: GameDef>() -> Option<GameName> {
        GameName::ALL.into_iter().find(|g| g.as_str() == G::NAME)
    }

    /// The game's encoding.
    pub fn encoding(self) -> Encoding {
        struct Of(GameName);
        impl WithGame for Of {
            type Output = Encoding;
            fn run<G: GameDef>(self) -> Encoding {
                Encoding {
                    game: self.0,
                    version: G::ENCODING_VERSION,
                    shape: G::shape(),
                }
            }
        }
        self.with(Of(self))
    }
}

/// Code written once for every game ([`GameDef`]), run with the game a
/// [`GameName`] stands for by [`GameName::with`].
pub trait WithGame {
    /// What the code returns.
    type Output;

    /// Runs the code for game `G`.
    fn run<G: GameDef>(self) -> Self::Output;
}

impl fmt::Display for GameName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game name that is not one of [`GameName::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game `{0}` (expected draughts or tafl)")]
pub struct UnknownGame(pub String);

impl FromStr for GameName {
    type Err = UnknownGame;

    /// `draughts` (also `dama`, `turkish`), `tafl` (also `turkish-tafl`),
    /// ignoring case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "draughts" | "dama" | "turkish" | "turkish-draughts" => Ok(GameName::Draughts),
            "tafl" | "turkish-tafl" | "turkish_tafl" => Ok(GameName::Tafl),
            _ => Err(UnknownGame(s.to_owned())),
        }
    }
}

/// The encoding of one game: what its networks read and write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoding {
    /// The game.
    pub game: GameName,
    /// Version of the layouts; a file of another version is refused.
    pub version: u32,
    /// Input planes and policy.
    pub shape: Shape,
}

impl Encoding {
    /// Writes the mirror image of encoded planes `src` into `dst` (the
    /// symmetry the replay buffer augments with: left-right for draughts,
    /// rows A ↔ D for Turkish Tafl).
    ///
    /// # Panics
    ///
    /// If a slice is not `shape.planes_len()` long.
    pub fn mirror_planes(&self, src: &[f32], dst: &mut [f32]) {
        struct Mirror<'a>(&'a [f32], &'a mut [f32]);
        impl WithGame for Mirror<'_> {
            type Output = ();
            fn run<G: GameDef>(self) {
                G::mirror_planes(self.0, self.1);
            }
        }
        self.game.with(Mirror(src, dst));
    }

    /// The policy index of the mirrored action (an involution).
    pub fn mirror_policy_index(&self, index: usize) -> usize {
        struct Mirror(usize);
        impl WithGame for Mirror {
            type Output = usize;
            fn run<G: GameDef>(self) -> usize {
                G::mirror_policy_index(self.0)
            }
        }
        self.game.with(Mirror(index))
    }
}

/// The rules a network was trained under, with the game they belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameRules {
    /// Turkish draughts or one of its variants.
    Draughts(Rules),
    /// Turkish Tafl.
    Tafl(TaflRules),
}

impl GameRules {
    /// The rules of `game` as files store them: draughts `rules` for
    /// draughts, `tafl` (the defaults when absent) for Turkish Tafl.
    pub fn of(game: GameName, rules: Rules, tafl: Option<TaflRules>) -> GameRules {
        match game {
            GameName::Draughts => GameRules::Draughts(rules),
            GameName::Tafl => GameRules::Tafl(tafl.unwrap_or_default()),
        }
    }

    /// The game.
    pub const fn name(&self) -> GameName {
        match self {
            GameRules::Draughts(_) => GameName::Draughts,
            GameRules::Tafl(_) => GameName::Tafl,
        }
    }

    /// These rules as `G`'s typed rules, if they are `G`'s (code written
    /// once for every game takes its rules from here).
    pub fn rules_of<G: GameDef>(&self) -> Option<G::Rules> {
        let rules: &dyn std::any::Any = match self {
            GameRules::Draughts(r) => r,
            GameRules::Tafl(r) => r,
        };
        rules.downcast_ref::<G::Rules>().copied()
    }

    /// The draughts rules, if these are draughts rules.
    pub const fn draughts(&self) -> Option<Rules> {
        match self {
            GameRules::Draughts(r) => Some(*r),
            GameRules::Tafl(_) => None,
        }
    }

    /// The Turkish Tafl rules, if these are.
    pub const fn tafl(&self) -> Option<TaflRules> {
        match self {
            GameRules::Tafl(r) => Some(*r),
            GameRules::Draughts(_) => None,
        }
    }
}

impl fmt::Display for GameRules {
    /// `draughts (variant=croda,…)`, `tafl (first=defender,…)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameRules::Draughts(r) => write!(f, "draughts ({r})"),
            GameRules::Tafl(r) => write!(f, "tafl ({r})"),
        }
    }
}

impl From<Rules> for GameRules {
    fn from(r: Rules) -> Self {
        GameRules::Draughts(r)
    }
}

impl From<&Rules> for GameRules {
    fn from(r: &Rules) -> Self {
        GameRules::Draughts(*r)
    }
}

impl From<TaflRules> for GameRules {
    fn from(r: TaflRules) -> Self {
        GameRules::Tafl(r)
    }
}

impl From<&TaflRules> for GameRules {
    fn from(r: &TaflRules) -> Self {
        GameRules::Tafl(*r)
    }
}

impl From<&GameRules> for GameRules {
    fn from(r: &GameRules) -> Self {
        *r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_strangers_are_refused() {
        for g in GameName::ALL {
            assert_eq!(g.as_str().parse::<GameName>().unwrap(), g);
            assert_eq!(g.encoding().game, g);
        }
        assert_eq!(GameName::of::<Tafl>(), Some(GameName::Tafl));
        assert_eq!(GameName::of::<Draughts>(), Some(GameName::Draughts));
        assert_eq!("Turkish-Tafl".parse::<GameName>().unwrap(), GameName::Tafl);
        let err = "chess".parse::<GameName>().unwrap_err();
        assert!(err.to_string().contains("chess"), "{err}");
    }

    #[test]
    fn each_game_mirrors_its_own_planes_and_policy() {
        for g in GameName::ALL {
            let enc = g.encoding();
            let n = enc.shape.planes_len();
            let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let mut once = vec![0.0; n];
            let mut twice = vec![0.0; n];
            enc.mirror_planes(&src, &mut once);
            enc.mirror_planes(&once, &mut twice);
            assert_ne!(once, src, "{g}: the mirror moves values");
            assert_eq!(twice, src, "{g}: the mirror is an involution");
            for i in 0..enc.shape.policy_size() {
                let m = enc.mirror_policy_index(i);
                assert!(m < enc.shape.policy_size());
                assert_eq!(enc.mirror_policy_index(m), i);
            }
        }
    }
}
