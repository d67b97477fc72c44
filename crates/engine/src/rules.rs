//! Rule options where the sources disagree.

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
