//! Rules as short text: `default`, or `key=value` pairs.

use dama_engine::{MidCapturePromotion, OnePieceEachRule, Rules};

use crate::Error;

const KEYS: &str = "promotion=end_of_move|continue_as_king, \
                    one_piece_each=draw|king_beats_man, no_capture_limit=N|off";

/// Parses rules: `default` (or an empty string), or `key=value` pairs
/// separated by commas or spaces, each changing the default rules:
///
/// * `promotion=end_of_move|continue_as_king` (also `promotion_mid_capture`),
/// * `one_piece_each=draw|king_beats_man`,
/// * `no_capture_limit=N|off`.
///
/// # Errors
///
/// [`Error::Input`] naming the bad pair and the allowed keys and values.
///
/// # Examples
///
/// ```
/// let r = dama_bot::parse_rules("no_capture_limit=off, one_piece_each=king_beats_man")?;
/// assert_eq!(r.no_capture_limit, None);
/// assert_eq!(dama_bot::rules_to_string(&r), "promotion=end_of_move one_piece_each=king_beats_man no_capture_limit=off");
/// # Ok::<(), dama_bot::Error>(())
/// ```
pub fn parse_rules(text: &str) -> Result<Rules, Error> {
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
            .ok_or_else(|| Error::Input(format!("rules: `{pair}` is not key=value ({KEYS})")))?;
        let bad = || Error::Input(format!("rules: bad value in `{pair}` ({KEYS})"));
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
            _ => return Err(Error::Input(format!("rules: unknown key `{k}` ({KEYS})"))),
        }
    }
    Ok(rules)
}

/// Writes rules in the form [`parse_rules`] reads, every key present.
pub fn rules_to_string(rules: &Rules) -> String {
    format!(
        "promotion={} one_piece_each={} no_capture_limit={}",
        match rules.promotion_mid_capture {
            MidCapturePromotion::EndOfMove => "end_of_move",
            MidCapturePromotion::ContinueAsKing => "continue_as_king",
        },
        match rules.one_piece_each {
            OnePieceEachRule::Draw => "draw",
            OnePieceEachRule::KingBeatsMan => "king_beats_man",
        },
        rules
            .no_capture_limit
            .map_or_else(|| "off".to_owned(), |n| n.to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        for text in [
            "default",
            "",
            "promotion=continue_as_king",
            "no_capture_limit=off one_piece_each=king_beats_man",
            "no_capture_limit=80",
        ] {
            let r = parse_rules(text).unwrap();
            assert_eq!(parse_rules(&rules_to_string(&r)).unwrap(), r);
        }
        for bad in [
            "foo",
            "foo=bar",
            "promotion=sometimes",
            "no_capture_limit=0",
            "no_capture_limit=-3",
        ] {
            let e = parse_rules(bad).unwrap_err().to_string();
            assert!(e.contains("rules"), "{e}");
        }
    }
}
