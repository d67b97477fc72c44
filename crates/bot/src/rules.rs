//! Rules as short text: `default`, or `key=value` pairs.

use dama_engine::Rules;

use crate::Error;

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
    text.parse::<Rules>()
        .map_err(|e| Error::Input(e.to_string()))
}

/// Writes rules in the form [`parse_rules`] reads, every key present
/// (`Rules`' `Display`).
pub fn rules_to_string(rules: &Rules) -> String {
    rules.to_string()
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
