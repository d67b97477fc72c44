//! The variant and the rule options where the sources disagree.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseRulesError;

/// The game played: Turkish draughts or one of its orthogonal relatives.
///
/// Every variant is played on all 64 squares of the 8×8 board, White first,
/// with men promoted on the far row and captures along ranks and files only.
/// The crate docs list every rule of every variant with its source.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Variant {
    /// Turkish draughts (Dama): men step forward or sideways.
    #[default]
    Turkish,
    /// The Armenian / Middle-East form of Turkish draughts: men may also step
    /// diagonally forward; everything else as in Turkish draughts.
    Armenian,
    /// Croda (Ljuban Dedić, 1995): 24 men a side, men step forward straight or
    /// diagonally, captures orthogonal, international-draughts capture rules.
    Croda,
    /// Dameo (Christian Freeling, 2000): 18 men a side in a trapezoid, linear
    /// movement of lines of men, kings move like chess queens but capture
    /// orthogonally only.
    Dameo,
}

impl Variant {
    /// All variants.
    pub const ALL: [Variant; 4] = [
        Variant::Turkish,
        Variant::Armenian,
        Variant::Croda,
        Variant::Dameo,
    ];

    /// The name used in rules text and configs: `turkish`, `armenian`,
    /// `croda`, `dameo`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Variant::Turkish => "turkish",
            Variant::Armenian => "armenian",
            Variant::Croda => "croda",
            Variant::Dameo => "dameo",
        }
    }

    /// The most pieces a side can have: 16 (Turkish, Armenian), 24 (Croda),
    /// 18 (Dameo), the number each side starts with.
    pub const fn max_pieces(self) -> u32 {
        match self {
            Variant::Turkish | Variant::Armenian => 16,
            Variant::Croda => 24,
            Variant::Dameo => 18,
        }
    }

    /// Whether this is Croda or Dameo (the variants with their own move
    /// generator, international-draughts capture rules and diagonal man steps).
    pub(crate) const fn orthogonal_family(self) -> bool {
        matches!(self, Variant::Croda | Variant::Dameo)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Variant {
    type Err = ParseRulesError;

    /// Parses `turkish`, `armenian`, `croda` or `dameo` (ASCII case ignored).
    fn from_str(s: &str) -> Result<Variant, ParseRulesError> {
        Variant::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                ParseRulesError(format!(
                    "unknown variant `{s}` (turkish, armenian, croda, dameo)"
                ))
            })
    }
}

/// What happens to a man that reaches its promotion row in the middle of a
/// capture sequence (Turkish and Armenian only: in Croda and Dameo a man is
/// crowned only if its move ends on the last row, whatever this says).
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
    /// One piece each is a draw, whatever the pieces are (the Turkish
    /// default).
    #[default]
    Draw,
    /// A lone king against a lone man wins for the king's side (unless the side
    /// to move can capture, which ends the game at once); king against king and
    /// man against man stay draws.
    KingBeatsMan,
    /// No special rule: the game goes on (the default of the variants whose
    /// sources give no such rule: Armenian, Croda, Dameo).
    PlayOn,
}

/// When the pieces a capture takes leave the board (Croda only; Turkish and
/// Armenian always remove at once, Dameo always at the end).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CaptureRemoval {
    /// At the end of the move, as in international draughts: a captured piece
    /// stays on the board as an obstacle until then and cannot be jumped twice
    /// (Dedić's rules as given by jpneto's "World of Abstract Games" and
    /// Freeling's account that Croda sits in the framework of international
    /// draughts).
    #[default]
    EndOfMove,
    /// At once, as in Turkish draughts: the square can be crossed again and a
    /// king may not reverse between two jumps.
    Immediate,
}

/// The directions in which a Croda man captures (Dameo men always capture
/// forward, sideways and backward; Turkish and Armenian men never backward).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ManCaptureDirections {
    /// Forward, sideways and backward (jpneto after Dedić; setupgroup.com;
    /// international-draughts framework).
    #[default]
    AllOrthogonal,
    /// Forward and sideways only (the "Orthogonal draughts" article, 004).
    ForwardAndSideways,
}

/// The rules of a game: the [`Variant`] and the rule options. [`Rules::default`]
/// is standard Turkish draughts; [`Rules::for_variant`] gives each variant's
/// defaults.
///
/// Options that do not concern the variant in force are ignored (and kept, so
/// that a value round-trips): [`Rules::promotion_mid_capture`] concerns Turkish
/// and Armenian, [`Rules::croda_removal`] and [`Rules::croda_man_captures`]
/// concern Croda.
///
/// # Examples
///
/// ```
/// use dama_engine::{MidCapturePromotion, OnePieceEachRule, Rules, Variant};
///
/// let rules = Rules::default();
/// assert_eq!(rules.variant, Variant::Turkish);
/// assert_eq!(rules.promotion_mid_capture, MidCapturePromotion::EndOfMove);
/// assert_eq!(rules.no_capture_limit, Some(50));
///
/// let dameo: Rules = "variant=dameo".parse()?;
/// assert_eq!(dameo, Rules::for_variant(Variant::Dameo));
/// assert_eq!(dameo.one_piece_each, OnePieceEachRule::PlayOn);
/// assert_eq!(dameo.no_capture_limit, None);
/// # Ok::<(), dama_engine::ParseRulesError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "serde_raw::RawRules"))]
pub struct Rules {
    /// The game played (default Turkish). In configs `variant = "dameo"`, in
    /// rules text `variant=dameo`; a config or text that names a variant gets
    /// that variant's defaults for every key it does not give.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_turkish"))]
    pub variant: Variant,
    /// Promotion reached during a capture (default: crowned at the end of the
    /// move). Turkish and Armenian only.
    pub promotion_mid_capture: MidCapturePromotion,
    /// One piece each (Turkish default: draw; the other variants: play on).
    pub one_piece_each: OnePieceEachRule,
    /// Draw after this many consecutive plies without a capture (Turkish
    /// default `Some(50)`, the tournament rule; the other variants `None`;
    /// `None` or `Some(0)` switches the rule off). With serde it is written as
    /// a number, `0` for off (TOML has no null), and read from a number or
    /// null.
    #[cfg_attr(feature = "serde", serde(serialize_with = "limit_serde::serialize"))]
    pub no_capture_limit: Option<u16>,
    /// When Croda's captured pieces leave the board (default: at the end of
    /// the move).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_default"))]
    pub croda_removal: CaptureRemoval,
    /// The directions a Croda man captures in (default: forward, sideways and
    /// backward).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_default"))]
    pub croda_man_captures: ManCaptureDirections,
}

#[cfg(feature = "serde")]
fn is_turkish(v: &Variant) -> bool {
    *v == Variant::Turkish
}

#[cfg(feature = "serde")]
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Serde for [`Rules::no_capture_limit`]: `0` means off.
#[cfg(feature = "serde")]
mod limit_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<u16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(v.unwrap_or(0))
    }

    /// A present key: a number (`0` for off) or null (off).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<u16>>, D::Error> {
        Ok(Some(Option::<u16>::deserialize(d)?.filter(|&n| n != 0)))
    }
}

/// Reading [`Rules`] in two steps: every key optional, then the variant's
/// defaults for the missing ones.
#[cfg(feature = "serde")]
mod serde_raw {
    use super::*;

    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RawRules {
        #[serde(default)]
        variant: Option<Variant>,
        #[serde(default)]
        promotion_mid_capture: Option<MidCapturePromotion>,
        #[serde(default)]
        one_piece_each: Option<OnePieceEachRule>,
        #[serde(default, deserialize_with = "super::limit_serde::deserialize")]
        no_capture_limit: Option<Option<u16>>,
        #[serde(default)]
        croda_removal: Option<CaptureRemoval>,
        #[serde(default)]
        croda_man_captures: Option<ManCaptureDirections>,
    }

    impl From<RawRules> for Rules {
        fn from(raw: RawRules) -> Rules {
            let d = Rules::for_variant(raw.variant.unwrap_or_default());
            Rules {
                variant: d.variant,
                promotion_mid_capture: raw.promotion_mid_capture.unwrap_or(d.promotion_mid_capture),
                one_piece_each: raw.one_piece_each.unwrap_or(d.one_piece_each),
                no_capture_limit: raw.no_capture_limit.unwrap_or(d.no_capture_limit),
                croda_removal: raw.croda_removal.unwrap_or(d.croda_removal),
                croda_man_captures: raw.croda_man_captures.unwrap_or(d.croda_man_captures),
            }
        }
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::for_variant(Variant::Turkish)
    }
}

impl Rules {
    /// The default rules of `variant`: the Turkish draw rules (one piece each
    /// is a draw, 50 plies without a capture) only for Turkish draughts, whose
    /// sources give them; the other variants' sources give threefold
    /// repetition only, so there the two rules are off (they stay available as
    /// options).
    pub const fn for_variant(variant: Variant) -> Rules {
        let turkish = matches!(variant, Variant::Turkish);
        Rules {
            variant,
            promotion_mid_capture: MidCapturePromotion::EndOfMove,
            one_piece_each: if turkish {
                OnePieceEachRule::Draw
            } else {
                OnePieceEachRule::PlayOn
            },
            no_capture_limit: if turkish { Some(50) } else { None },
            croda_removal: CaptureRemoval::EndOfMove,
            croda_man_captures: ManCaptureDirections::AllOrthogonal,
        }
    }

    /// Whether a man crowned mid-capture goes on as a king (Turkish and
    /// Armenian with [`MidCapturePromotion::ContinueAsKing`]).
    pub(crate) fn continue_as_king(&self) -> bool {
        !self.variant.orthogonal_family()
            && self.promotion_mid_capture == MidCapturePromotion::ContinueAsKing
    }

    /// Whether captured pieces stay on the board until the move ends.
    pub(crate) fn removes_at_end(&self) -> bool {
        match self.variant {
            Variant::Turkish | Variant::Armenian => false,
            Variant::Croda => self.croda_removal == CaptureRemoval::EndOfMove,
            Variant::Dameo => true,
        }
    }

    /// Whether men capture backward.
    pub(crate) fn men_capture_backward(&self) -> bool {
        match self.variant {
            Variant::Turkish | Variant::Armenian => false,
            Variant::Croda => self.croda_man_captures == ManCaptureDirections::AllOrthogonal,
            Variant::Dameo => true,
        }
    }
}

/// The values a rule option takes in the text form of [`Rules`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum RuleValues {
    /// One of these words, the default first.
    Choice(&'static [&'static str]),
    /// A count in `min..=max`, or `off` (the default is [`RuleOption::default`]).
    Count {
        /// The smallest count.
        min: u16,
        /// The largest count.
        max: u16,
    },
}

/// One rule option of [`Rules`]: its key in the text form, its values and
/// its default, for front ends that offer every option
/// ([`Rules::OPTIONS`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct RuleOption {
    /// The key in the text form (`promotion=…`).
    pub key: &'static str,
    /// What the option decides, in words.
    pub about: &'static str,
    /// The values it takes.
    pub values: RuleValues,
    /// The default value, as text.
    pub default: &'static str,
}

impl Rules {
    /// Every rule option, in the order of the text form, with the default
    /// of Turkish draughts (each variant has its own defaults:
    /// [`Rules::for_variant`]); a test checks that
    /// it names every key that [`Rules`]' `Display` writes, so a new option
    /// cannot be left out of the front ends that list these.
    pub const OPTIONS: &'static [RuleOption] = &[
        RuleOption {
            key: "variant",
            about: "the game: Turkish draughts, its Armenian form, Croda or Dameo",
            values: RuleValues::Choice(&["turkish", "armenian", "croda", "dameo"]),
            default: "turkish",
        },
        RuleOption {
            key: "promotion",
            about: "a man reaching the far row during a capture",
            values: RuleValues::Choice(&["end_of_move", "continue_as_king"]),
            default: "end_of_move",
        },
        RuleOption {
            key: "one_piece_each",
            about: "one piece against one piece",
            values: RuleValues::Choice(&["draw", "king_beats_man", "play_on"]),
            default: "draw",
        },
        RuleOption {
            key: "no_capture_limit",
            about: "plies without a capture before a draw (off: never)",
            values: RuleValues::Count {
                min: 1,
                max: u16::MAX,
            },
            default: "50",
        },
        RuleOption {
            key: "croda_removal",
            about: "Croda: when captured pieces leave the board",
            values: RuleValues::Choice(&["end_of_move", "immediate"]),
            default: "end_of_move",
        },
        RuleOption {
            key: "croda_man_captures",
            about: "Croda: the directions a man captures in",
            values: RuleValues::Choice(&["all", "forward_sideways"]),
            default: "all",
        },
    ];
}

const KEYS: &str = "variant=turkish|armenian|croda|dameo, \
                    promotion=end_of_move|continue_as_king, \
                    one_piece_each=draw|king_beats_man|play_on, no_capture_limit=N|off, \
                    croda_removal=end_of_move|immediate, \
                    croda_man_captures=all|forward_sideways";

impl FromStr for Rules {
    type Err = ParseRulesError;

    /// Parses rules as short text: `default` (or an empty string), or
    /// `key=value` pairs separated by commas or spaces, each changing the
    /// defaults of the variant: `variant=turkish|armenian|croda|dameo` (read
    /// first, wherever it stands: it picks the defaults the other keys change),
    /// `promotion=end_of_move|continue_as_king` (also `promotion_mid_capture`),
    /// `one_piece_each=draw|king_beats_man|play_on`, `no_capture_limit=N|off`,
    /// `croda_removal=end_of_move|immediate`,
    /// `croda_man_captures=all|forward_sideways`. Game records carry them in a
    /// `[Rules]` tag.
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_engine::{CaptureRemoval, Rules, Variant};
    ///
    /// let r: Rules = "no_capture_limit=off, one_piece_each=king_beats_man".parse()?;
    /// assert_eq!(r.no_capture_limit, None);
    /// assert_eq!(r.to_string().parse::<Rules>()?, r);
    ///
    /// let c: Rules = "croda_removal=immediate variant=croda".parse()?;
    /// assert_eq!((c.variant, c.croda_removal), (Variant::Croda, CaptureRemoval::Immediate));
    /// # Ok::<(), dama_engine::ParseRulesError>(())
    /// ```
    fn from_str(text: &str) -> Result<Rules, ParseRulesError> {
        let pairs: Vec<&str> = text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .collect();
        let mut variant = Variant::Turkish;
        for pair in &pairs {
            if let Some(v) = pair.strip_prefix("variant=") {
                variant = v.parse()?;
            }
        }
        let mut rules = Rules::for_variant(variant);
        for pair in pairs {
            if pair == "default" {
                rules = Rules::for_variant(variant);
                continue;
            }
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| ParseRulesError(format!("`{pair}` is not key=value ({KEYS})")))?;
            let bad = || ParseRulesError(format!("bad value in `{pair}` ({KEYS})"));
            match k {
                "variant" => {}
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
                        "play_on" => OnePieceEachRule::PlayOn,
                        _ => return Err(bad()),
                    }
                }
                "no_capture_limit" => {
                    rules.no_capture_limit = match v {
                        "off" | "none" => None,
                        n => Some(n.parse::<u16>().ok().filter(|&n| n > 0).ok_or_else(bad)?),
                    }
                }
                "croda_removal" => {
                    rules.croda_removal = match v {
                        "end_of_move" => CaptureRemoval::EndOfMove,
                        "immediate" => CaptureRemoval::Immediate,
                        _ => return Err(bad()),
                    }
                }
                "croda_man_captures" => {
                    rules.croda_man_captures = match v {
                        "all" | "all_orthogonal" => ManCaptureDirections::AllOrthogonal,
                        "forward_sideways" | "forward_and_sideways" => {
                            ManCaptureDirections::ForwardAndSideways
                        }
                        _ => return Err(bad()),
                    }
                }
                _ => return Err(ParseRulesError(format!("unknown key `{k}` ({KEYS})"))),
            }
        }
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    /// Writes rules in the form [`Rules::from_str`] reads: `variant=…` first
    /// unless the variant is Turkish, then every key (the Croda keys only for
    /// Croda or when they differ from their defaults), so that Turkish rules
    /// read exactly as before variants existed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.variant != Variant::Turkish {
            write!(f, "variant={} ", self.variant)?;
        }
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
                OnePieceEachRule::PlayOn => "play_on",
            },
        )?;
        match self.no_capture_limit {
            Some(n) => write!(f, "{n}")?,
            None => write!(f, "off")?,
        }
        let croda = self.variant == Variant::Croda;
        if croda || self.croda_removal != CaptureRemoval::default() {
            write!(
                f,
                " croda_removal={}",
                match self.croda_removal {
                    CaptureRemoval::EndOfMove => "end_of_move",
                    CaptureRemoval::Immediate => "immediate",
                }
            )?;
        }
        if croda || self.croda_man_captures != ManCaptureDirections::default() {
            write!(
                f,
                " croda_man_captures={}",
                match self.croda_man_captures {
                    ManCaptureDirections::AllOrthogonal => "all",
                    ManCaptureDirections::ForwardAndSideways => "forward_sideways",
                }
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_every_key_and_their_values_parse() {
        // Croda's text form writes every key.
        let text = Rules::for_variant(Variant::Croda).to_string();
        let keys: Vec<&str> = text
            .split_whitespace()
            .filter_map(|p| p.split_once('=').map(|(k, _)| k))
            .collect();
        let listed: Vec<&str> = Rules::OPTIONS.iter().map(|o| o.key).collect();
        assert_eq!(keys, listed);
        for o in Rules::OPTIONS {
            let default: Rules = format!("{}={}", o.key, o.default).parse().unwrap();
            assert_eq!(default, Rules::default(), "{}", o.key);
            let values: Vec<String> = match o.values {
                RuleValues::Choice(v) => v.iter().map(|s| s.to_string()).collect(),
                RuleValues::Count { min, max } => {
                    vec![min.to_string(), max.to_string(), "off".into()]
                }
            };
            for v in values {
                let r: Rules = format!("{}={v}", o.key).parse().unwrap();
                assert_eq!(r.to_string().parse::<Rules>().unwrap(), r, "{r}");
                // Turkish rules leave out `variant=turkish` and default Croda keys.
                assert!(
                    r.to_string().contains(&format!("{}={v}", o.key)) || r == Rules::default(),
                    "{r}"
                );
            }
        }
    }

    #[test]
    fn text_round_trips_and_bad_text_is_named() {
        for text in [
            "default",
            "",
            "promotion=continue_as_king",
            "no_capture_limit=off one_piece_each=king_beats_man",
            "no_capture_limit=80",
            "variant=armenian",
            "variant=croda croda_removal=immediate croda_man_captures=forward_sideways",
            "variant=dameo no_capture_limit=40 one_piece_each=draw",
            "croda_removal=immediate",
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
        // A variant's defaults apply wherever the variant key stands.
        let a: Rules = "no_capture_limit=30 variant=armenian".parse().unwrap();
        assert_eq!(a.variant, Variant::Armenian);
        assert_eq!(a.no_capture_limit, Some(30));
        assert_eq!(a.one_piece_each, OnePieceEachRule::PlayOn);
        assert_eq!(
            "variant=croda".parse::<Rules>().unwrap().to_string(),
            "variant=croda promotion=end_of_move one_piece_each=play_on no_capture_limit=off \
             croda_removal=end_of_move croda_man_captures=all"
        );
        for bad in [
            "foo",
            "foo=bar",
            "promotion=sometimes",
            "no_capture_limit=0",
            "no_capture_limit=-3",
            "variant=checkers",
            "croda_removal=later",
        ] {
            let e = bad.parse::<Rules>().unwrap_err().to_string();
            assert!(e.contains("rules"), "{bad}: {e}");
        }
    }
}
