//! Rule options where the sources disagree.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseRulesError;

/// What happens to a man that reaches its promotion row in the middle of a
/// capture sequence.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MidCapturePromotion {
    /// The man finishes the capture as a man (forward and sideways jumps over
    /// adjacent pieces) and is crowned only if the move ends on the promotion
    /// row. This is the rule of the federation text and of Zeybek (examples 5
    /// and 7).
    #[default]
    EndOfMove,
    /// The man is crowned the moment it lands on the promotion row and goes on
    /// capturing as a flying king (the variant noted in the Croda/Dameo text).
    /// A man crowned this way stays a king even if the move ends elsewhere.
    ContinueAsKing,
}

/// What one piece against one piece means.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum OnePieceEachRule {
    /// One piece each is a draw, whatever the pieces are.
    #[default]
    Draw,
    /// A lone king against a lone man wins for the king's side (unless the side
    /// to move can capture, which ends the game at once); king against king and
    /// man against man stay draws.
    KingBeatsMan,
}

/// The rule options of the engine. [`Rules::default`] is the standard game.
///
/// # Examples
///
/// ```
/// use dama_engine::{Rules, MidCapturePromotion};
///
/// let rules = Rules::default();
/// assert_eq!(rules.promotion_mid_capture, MidCapturePromotion::EndOfMove);
/// assert_eq!(rules.no_capture_limit, Some(50));
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Rules {
    /// Promotion reached during a capture (default: crowned at the end of the move).
    pub promotion_mid_capture: MidCapturePromotion,
    /// One piece each (default: draw).
    pub one_piece_each: OnePieceEachRule,
    /// Draw after this many consecutive plies without a capture (default
    /// `Some(50)`, the tournament rule; `None` or `Some(0)` switches the rule
    /// off). With serde it is written as a number, `0` for off (TOML has no
    /// null), and read from a number or null.
    #[cfg_attr(feature = "serde", serde(with = "limit_serde"))]
    pub no_capture_limit: Option<u16>,
}

/// Serde for [`Rules::no_capture_limit`]: `0` means off.
#[cfg(feature = "serde")]
mod limit_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<u16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(v.unwrap_or(0))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
        Ok(Option::<u16>::deserialize(d)?.filter(|&n| n != 0))
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            promotion_mid_capture: MidCapturePromotion::EndOfMove,
            one_piece_each: OnePieceEachRule::Draw,
            no_capture_limit: Some(50),
        }
    }
}

const KEYS: &str = "promotion=end_of_move|continue_as_king, \
                    one_piece_each=draw|king_beats_man, no_capture_limit=N|off";

impl FromStr for Rules {
    type Err = ParseRulesError;

    /// Parses rules as short text: `default` (or an empty string), or
    /// `key=value` pairs separated by commas or spaces, each changing the
    /// default rules: `promotion=end_of_move|continue_as_king` (also
    /// `promotion_mid_capture`), `one_piece_each=draw|king_beats_man`,
    /// `no_capture_limit=N|off`. Game records carry them in a `[Rules]` tag.
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_engine::Rules;
    ///
    /// let r: Rules = "no_capture_limit=off, one_piece_each=king_beats_man".parse()?;
    /// assert_eq!(r.no_capture_limit, None);
    /// assert_eq!(r.to_string().parse::<Rules>()?, r);
    /// # Ok::<(), dama_engine::ParseRulesError>(())
    /// ```
    fn from_str(text: &str) -> Result<Rules, ParseRulesError> {
        let mut rules = Rules::default();
        for pair in text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
        {
            if pair == "default" {
                rules = Rules::default();
                continue;
            }
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| ParseRulesError(format!("`{pair}` is not key=value ({KEYS})")))?;
            let bad = || ParseRulesError(format!("bad value in `{pair}` ({KEYS})"));
            match k {
                "promotion" | "promotion_mid_capture" => {
                    rules.promotion_mid_capture = match v {
                        "end_of_move" => MidCapturePromotion::EndOfMove,
                        "continue_as_king" => MidCapturePromotion::ContinueAsKing,
                        _ => return Err(bad()),
                    }
                }
                "one_piece_each" => {
                    rules.one_piece_each = match v {
                        "draw" => OnePieceEachRule::Draw,
                        "king_beats_man" => OnePieceEachRule::KingBeatsMan,
                        _ => return Err(bad()),
                    }
                }
                "no_capture_limit" => {
                    rules.no_capture_limit = match v {
                        "off" | "none" => None,
                        n => Some(n.parse::<u16>().ok().filter(|&n| n > 0).ok_or_else(bad)?),
                    }
                }
                _ => return Err(ParseRulesError(format!("unknown key `{k}` ({KEYS})"))),
            }
        }
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    /// Writes rules in the form [`Rules::from_str`] reads, every key present.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "promotion={} one_piece_each={} no_capture_limit=",
            match self.promotion_mid_capture {
                MidCapturePromotion::EndOfMove => "end_of_move",
                MidCapturePromotion::ContinueAsKing => "continue_as_king",
            },
            match self.one_piece_each {
                OnePieceEachRule::Draw => "draw",
                OnePieceEachRule::KingBeatsMan => "king_beats_man",
            },
        )?;
        match self.no_capture_limit {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "off"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_bad_text_is_named() {
        for text in [
            "default",
            "",
            "promotion=continue_as_king",
            "no_capture_limit=off one_piece_each=king_beats_man",
            "no_capture_limit=80",
        ] {
            let r: Rules = text.parse().unwrap();
            assert_eq!(r.to_string().parse::<Rules>().unwrap(), r, "{text}");
        }
        assert_eq!(
            "no_capture_limit=off, one_piece_each=king_beats_man"
                .parse::<Rules>()
                .unwrap()
                .to_string(),
            "promotion=end_of_move one_piece_each=king_beats_man no_capture_limit=off"
        );
        for bad in [
            "foo",
            "foo=bar",
            "promotion=sometimes",
            "no_capture_limit=0",
            "no_capture_limit=-3",
        ] {
            let e = bad.parse::<Rules>().unwrap_err().to_string();
            assert!(e.contains("rules"), "{bad}: {e}");
        }
    }
}
