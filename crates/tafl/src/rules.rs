//! The rule options of Turkish Tafl: where the rules text allows two
//! readings (or is silent), each reading is an option; the defaults are the
//! readings the crate docs argue for.

use std::fmt;
use std::str::FromStr;

use crate::position::Side;

/// How the King side wins.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// The King leaves the board past column 8, by a slide from column 8 or
    /// by a capture jump over a Defender on column 8 ("King side wins if it
    /// gets King piece off the board past column 8", said twice).
    #[default]
    Exit,
    /// The King stands on column 8 after any move ("King side wins if it
    /// gets King piece to column 8", said once).
    Column8,
}

/// When the King counts as surrounded.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Surround {
    /// All four orthogonal neighbours are Defender pieces: a King on an edge
    /// cannot be surrounded ("surrounded … on all sides orthogonally with
    /// their own pieces"; in Tafl the board edge is not hostile).
    #[default]
    FourPieces,
    /// Every neighbour on the board is a Defender piece: rows A and D and
    /// column 1 count as walls (past column 8 never does: it is the exit).
    EdgeCounts,
}

/// Whether "the board has locked up so there is no possible path for the
/// King to get to column 8" is decided by the engine.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Lockup {
    /// The Defenders win when the King cannot reach the exit through the
    /// squares not held by pieces that can never move or be captured again
    /// (see [`crate::lockup`]): it never declares a lock that play could
    /// break.
    #[default]
    Frozen,
    /// No lock test: the ply limit and repetition end such games.
    Off,
}

/// What ends a game that has not ended by the rules text: the ply limit or
/// a threefold repetition.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum LimitResult {
    /// The Defenders win: the King "has no chance of ever exiting" (as in
    /// Tafl, where repetition loses for the king's side).
    #[default]
    DefenderWins,
    /// A draw.
    Draw,
}

/// The rules of one game of Turkish Tafl.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaflRules {
    /// Who moves first (default the Defenders, as White does in Turkish
    /// draughts and the side opposing the king does in Tafl).
    pub first: Side,
    /// Whether a Defender man's capture goes on after its first jump (the
    /// worked example C4xC2xA2) or takes one piece only (default: "jumps
    /// over only one enemy piece", and the handicap "Give mult-piece jump
    /// capture to Defender side").
    pub defender_man_chain: bool,
    /// Whether the capture that takes the most pieces must be played (as in
    /// Turkish draughts); default off: every worked example offers chains of
    /// different lengths as free choices.
    pub majority: bool,
    /// How the King side wins.
    pub goal: Goal,
    /// When the King is surrounded.
    pub surround: Surround,
    /// The locked-board test.
    pub lockup: Lockup,
    /// Plies after which the game ends ([`TaflRules::limit_result`]);
    /// `None`: no limit (`0` in TOML). Default 200.
    #[serde(with = "dama_game::limit_serde")]
    pub ply_limit: Option<u16>,
    /// The result at the ply limit and at a threefold repetition.
    pub limit_result: LimitResult,
}

impl Default for TaflRules {
    fn default() -> Self {
        TaflRules {
            first: Side::Defender,
            defender_man_chain: false,
            majority: false,
            goal: Goal::Exit,
            surround: Surround::FourPieces,
            lockup: Lockup::Frozen,
            ply_limit: Some(200),
            limit_result: LimitResult::DefenderWins,
        }
    }
}

/// Rules text that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseRulesError(pub String);

/// The largest `ply_limit`.
pub const MAX_PLY_LIMIT: u16 = 10_000;

impl TaflRules {
    /// Every option with its values, the default first, as written in rules
    /// text.
    pub const OPTIONS: [(&'static str, &'static [&'static str]); 8] = [
        ("first", &["defender", "king_side"]),
        ("defender_man_chain", &["off", "on"]),
        ("majority", &["off", "on"]),
        ("goal", &["exit", "column8"]),
        ("surround", &["four_pieces", "edge_counts"]),
        ("lockup", &["frozen", "off"]),
        ("ply_limit", &["200", "N (1..=10000)", "off"]),
        ("limit_result", &["defender_wins", "draw"]),
    ];
}

fn on_off(key: &str, v: &str) -> Result<bool, ParseRulesError> {
    match v {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(ParseRulesError(format!("{key}: `{v}` is not on or off"))),
    }
}

impl FromStr for TaflRules {
    type Err = ParseRulesError;

    /// Parses `default` or comma/space-separated `key=value` pairs (see
    /// [`TaflRules::OPTIONS`]); options not named keep their defaults.
    fn from_str(s: &str) -> Result<TaflRules, ParseRulesError> {
        let mut r = TaflRules::default();
        let s = s.trim();
        if s.is_empty() || s == "default" {
            return Ok(r);
        }
        let keys = || {
            TaflRules::OPTIONS
                .iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join(", ")
        };
        for pair in s.split([',', ' ']).filter(|p| !p.is_empty()) {
            let Some((k, v)) = pair.split_once('=') else {
                return Err(ParseRulesError(format!(
                    "`{}` is not key=value ({})",
                    pair.escape_default(),
                    keys()
                )));
            };
            let bad = || {
                ParseRulesError(format!(
                    "{k}: `{}` is not one of its values",
                    v.escape_default()
                ))
            };
            match k {
                "first" => {
                    r.first = match v {
                        "defender" => Side::Defender,
                        "king_side" => Side::KingSide,
                        _ => return Err(bad()),
                    }
                }
                "defender_man_chain" => r.defender_man_chain = on_off(k, v)?,
                "majority" => r.majority = on_off(k, v)?,
                "goal" => {
                    r.goal = match v {
                        "exit" => Goal::Exit,
                        "column8" => Goal::Column8,
                        _ => return Err(bad()),
                    }
                }
                "surround" => {
                    r.surround = match v {
                        "four_pieces" => Surround::FourPieces,
                        "edge_counts" => Surround::EdgeCounts,
                        _ => return Err(bad()),
                    }
                }
                "lockup" => {
                    r.lockup = match v {
                        "frozen" => Lockup::Frozen,
                        "off" => Lockup::Off,
                        _ => return Err(bad()),
                    }
                }
                "ply_limit" => {
                    r.ply_limit = match v {
                        "off" => None,
                        n => match n.parse::<u16>() {
                            Ok(n) if (1..=MAX_PLY_LIMIT).contains(&n) => Some(n),
                            _ => {
                                return Err(ParseRulesError(format!(
                                    "ply_limit: `{}` is not off or a number of plies in 1..=10000",
                                    v.escape_default()
                                )))
                            }
                        },
                    }
                }
                "limit_result" => {
                    r.limit_result = match v {
                        "defender_wins" => LimitResult::DefenderWins,
                        "draw" => LimitResult::Draw,
                        _ => return Err(bad()),
                    }
                }
                _ => {
                    return Err(ParseRulesError(format!(
                        "unknown rule `{}` ({})",
                        k.escape_default(),
                        keys()
                    )))
                }
            }
        }
        Ok(r)
    }
}

impl fmt::Display for TaflRules {
    /// Every option as `key=value`, comma-separated; parses back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let oo = |b: bool| if b { "on" } else { "off" };
        write!(
            f,
            "first={},defender_man_chain={},majority={},goal={},surround={},lockup={},ply_limit=",
            match self.first {
                Side::Defender => "defender",
                Side::KingSide => "king_side",
            },
            oo(self.defender_man_chain),
            oo(self.majority),
            match self.goal {
                Goal::Exit => "exit",
                Goal::Column8 => "column8",
            },
            match self.surround {
                Surround::FourPieces => "four_pieces",
                Surround::EdgeCounts => "edge_counts",
            },
            match self.lockup {
                Lockup::Frozen => "frozen",
                Lockup::Off => "off",
            },
        )?;
        match self.ply_limit {
            Some(n) => write!(f, "{n}")?,
            None => f.write_str("off")?,
        }
        write!(
            f,
            ",limit_result={}",
            match self.limit_result {
                LimitResult::DefenderWins => "defender_wins",
                LimitResult::Draw => "draw",
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_every_option_value_parses() {
        let d = TaflRules::default();
        assert_eq!(d.to_string().parse::<TaflRules>().unwrap(), d);
        assert_eq!("default".parse::<TaflRules>().unwrap(), d);
        for (key, values) in TaflRules::OPTIONS {
            for v in values.iter().filter(|v| !v.contains(' ')) {
                let r: TaflRules = format!("{key}={v}").parse().unwrap();
                assert_eq!(r.to_string().parse::<TaflRules>().unwrap(), r);
            }
            // The default is the first value.
            let r: TaflRules = format!("{key}={}", values[0]).parse().unwrap();
            assert_eq!(r, d, "{key}");
        }
        let r: TaflRules = "majority=on ply_limit=off".parse().unwrap();
        assert!(r.majority && r.ply_limit.is_none());
        for bad in [
            "x",
            "goal=home",
            "ply_limit=0",
            "ply_limit=99999",
            "first=white",
        ] {
            assert!(bad.parse::<TaflRules>().is_err(), "{bad}");
        }
    }
}
