//! [`MiniRules`]: the game's typed rule options and their text.

use std::fmt;
use std::str::FromStr;

use crate::MiniError;

/// The rule options of mini Turkish draughts; the defaults are the Turkish
/// draw rules with a shorter no-capture limit for the smaller board.
///
/// Text: `no_capture_limit=40 one_piece_each=draw` (what [`Display`](fmt::Display)
/// writes), read back by [`FromStr`]: `default` or an empty string for the
/// defaults, else `key=value` pairs separated by commas or spaces, each
/// changing the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MiniRules {
    /// Plies without a capture after which the game is drawn (`None`: no
    /// such rule; threefold repetition still ends every game; `0` in
    /// TOML). Default 40.
    #[serde(with = "dama_game::limit_serde")]
    pub no_capture_limit: Option<u16>,
    /// Whether one piece each (men or kings) is a draw. Default `true`.
    pub one_piece_each: bool,
}

impl Default for MiniRules {
    fn default() -> Self {
        MiniRules {
            no_capture_limit: Some(40),
            one_piece_each: true,
        }
    }
}

impl fmt::Display for MiniRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.no_capture_limit {
            Some(n) => write!(f, "no_capture_limit={n}")?,
            None => f.write_str("no_capture_limit=off")?,
        }
        let each = if self.one_piece_each {
            "draw"
        } else {
            "play_on"
        };
        write!(f, " one_piece_each={each}")
    }
}

impl FromStr for MiniRules {
    type Err = MiniError;

    fn from_str(text: &str) -> Result<MiniRules, MiniError> {
        let mut rules = MiniRules::default();
        for pair in text.split([',', ' ', '\t', '\n']).filter(|p| !p.is_empty()) {
            let bad = || MiniError::Rules(pair.to_owned());
            match pair.split_once('=') {
                None if pair == "default" => rules = MiniRules::default(),
                Some(("no_capture_limit", "off")) => rules.no_capture_limit = None,
                Some(("no_capture_limit", n)) => {
                    let n: u16 = n.parse().map_err(|_| bad())?;
                    if !(1..=1000).contains(&n) {
                        return Err(bad());
                    }
                    rules.no_capture_limit = Some(n);
                }
                Some(("one_piece_each", "draw")) => rules.one_piece_each = true,
                Some(("one_piece_each", "play_on")) => rules.one_piece_each = false,
                _ => return Err(bad()),
            }
        }
        Ok(rules)
    }
}
