//! Text formats: positions, moves and game records.
//!
//! * Positions: `W:Wa2,b2,Kd4:Ba7,Kh8` — the side to move, then each side's
//!   squares after its letter, `K` before a king; `startpos` for the initial
//!   position. Counters and rules are not part of the text.
//! * Moves: `d3-d4` (quiet), `d4xd6` (one jump), `b3xd3xd5` (every landing
//!   square in order). On input, a trailing `=K` is accepted (and must agree
//!   with the move), `X` and `:` are read as `x`, and the short form
//!   `fromxto` is accepted for a longer capture when exactly one legal move
//!   matches it.
//! * Game records ([`GameRecord`]): optional `[Tag "value"]` lines (a
//!   `[Position "…"]` tag gives a non-standard start), then numbered moves and
//!   a result: `1. d3-d4 d6-d5 2. c3-c4 e6-e5 1-0`.

use std::fmt;
use std::str::FromStr;

use crate::error::{ParseGameError, ParseMoveError, ParsePositionError};
use crate::movegen::{self, JumpState};
use crate::mv::{Path, MAX_CAPTURES};
use crate::Rules;
use crate::{Color, Game, Move, Outcome, Piece, Position, Role, Square};

impl fmt::Display for Position {
    /// Writes `W:Wa2,b2,Kd4:Ba7,Kh8` (squares in index order, a1 first).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.turn().char())?;
        for color in Color::ALL {
            write!(f, ":{}", color.char())?;
            for (i, sq) in self.pieces(color).into_iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                if self.kings().contains(sq) {
                    f.write_str("K")?;
                }
                write!(f, "{sq}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Position {
    type Err = ParsePositionError;

    /// Parses `startpos` or `W:Wa2,b2,Kd4:Ba7,Kh8` (the side to move, then
    /// each side's squares after its letter, `K` before a king; either side
    /// may come first and a side may have no squares); default rules, zeroed
    /// counters. Spaces around fields and squares are ignored. For another
    /// variant use [`Position::from_str_with_rules`].
    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        Position::from_str_with_rules(s, Rules::default())
    }
}

impl Position {
    /// Parses position text as [`Position`]'s `FromStr` does, under `rules`:
    /// `startpos` is the variant's initial position, and the pieces are
    /// checked against the variant (for example at most 24 a side in Croda,
    /// 16 in Turkish draughts).
    ///
    /// # Errors
    ///
    /// [`ParsePositionError`] naming the bad character, square or field, or
    /// [`ParsePositionError::Invalid`] for pieces that cannot form a position
    /// of the variant.
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_engine::{Position, Rules, Variant};
    ///
    /// let croda = Rules::for_variant(Variant::Croda);
    /// let p = Position::from_str_with_rules("startpos", croda)?;
    /// assert_eq!(p.us().count(), 24);
    /// let text = p.to_string();
    /// assert!(text.parse::<Position>().is_err()); // too many pieces for Turkish
    /// assert_eq!(Position::from_str_with_rules(&text, croda)?, p);
    /// # Ok::<(), dama_engine::ParsePositionError>(())
    /// ```
    pub fn from_str_with_rules(s: &str, rules: Rules) -> Result<Position, ParsePositionError> {
        let trimmed = s.trim();
        if trimmed.is_empty() {
            return Err(ParsePositionError::Empty);
        }
        if trimmed.eq_ignore_ascii_case("startpos") {
            return Ok(Position::startpos_with_rules(rules));
        }
        let base = s.len() - s.trim_start().len();
        let fields: Vec<(usize, &str)> = split_with_offsets(trimmed, ':', base);
        if fields.len() != 3 {
            // Point at a stray character if there is one, else at the count.
            if let Some((i, ch)) = trimmed
                .char_indices()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, ':' | ',' | ' ')))
            {
                return Err(ParsePositionError::UnexpectedChar {
                    ch,
                    index: base + i,
                });
            }
            return Err(ParsePositionError::FieldCount(fields.len()));
        }
        let turn = match fields[0].1.trim() {
            "W" | "w" => Color::White,
            "B" | "b" => Color::Black,
            other => return Err(ParsePositionError::BadTurn(other.to_owned())),
        };
        let mut seen = [false; 2];
        let mut pieces: Vec<(Square, Piece)> = Vec::new();
        for &(off, field) in &fields[1..] {
            let lead = field.len() - field.trim_start().len();
            let field_t = field.trim();
            let off = off + lead;
            let mut chars = field_t.char_indices();
            let color = match chars.next() {
                Some((_, 'W' | 'w')) => Color::White,
                Some((_, 'B' | 'b')) => Color::Black,
                Some((i, ch)) => {
                    return Err(ParsePositionError::UnexpectedChar { ch, index: off + i })
                }
                None => return Err(ParsePositionError::FieldCount(fields.len())),
            };
            if seen[color.index()] {
                return Err(ParsePositionError::DuplicateColor(color));
            }
            seen[color.index()] = true;
            let list = &field_t[1..];
            if list.trim().is_empty() {
                continue;
            }
            for (item_off, item) in split_with_offsets(list, ',', off + 1) {
                let lead = item.len() - item.trim_start().len();
                let item_t = item.trim();
                let item_off = item_off + lead;
                let (role, sq_text, sq_off) = match item_t.strip_prefix(['K', 'k']) {
                    Some(rest) => (Role::King, rest, item_off + 1),
                    None => (Role::Man, item_t, item_off),
                };
                if let Some((i, ch)) = sq_text
                    .char_indices()
                    .find(|&(_, c)| !c.is_ascii_alphanumeric())
                {
                    return Err(ParsePositionError::UnexpectedChar {
                        ch,
                        index: sq_off + i,
                    });
                }
                let sq: Square = sq_text.parse().map_err(|_| ParsePositionError::BadSquare {
                    text: sq_text.to_owned(),
                    index: sq_off,
                })?;
                pieces.push((sq, Piece { color, role }));
            }
        }
        Ok(Position::from_pieces_with_rules(pieces, turn, rules)?)
    }
}

fn split_with_offsets(s: &str, sep: char, base: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == sep {
            out.push((base + start, &s[start..i]));
            start = i + c.len_utf8();
        }
    }
    out.push((base + start, &s[start..]));
    out
}

/// Move text as written, before it is resolved against a position: the start
/// square, the landing squares, and whether it was written as a capture.
///
/// # Examples
///
/// ```
/// use dama_engine::{MoveText, Square};
///
/// let t: MoveText = "b3xd3xd5".parse()?;
/// assert!(t.capture);
/// assert_eq!(t.from, Square::B3);
/// assert_eq!(t.path.as_slice(), &[Square::D3, Square::D5]);
/// assert_eq!(t.to_string(), "b3xd3xd5");
/// # Ok::<(), dama_engine::ParseMoveError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveText {
    /// The start square.
    pub from: Square,
    /// The landing squares in order (one for a quiet move).
    pub path: Path,
    /// Written with `x` (a capture) rather than `-`.
    pub capture: bool,
    /// Written with a `=K` suffix.
    pub promotion_mark: bool,
}

impl MoveText {
    /// The destination: the last landing square.
    pub fn to(&self) -> Square {
        self.path.last().copied().unwrap_or(self.from)
    }
}

impl From<&Move> for MoveText {
    fn from(m: &Move) -> MoveText {
        MoveText {
            from: m.from(),
            path: m.path(),
            capture: m.is_capture(),
            promotion_mark: false,
        }
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from)?;
        let sep = if self.capture { 'x' } else { '-' };
        for sq in &self.path {
            write!(f, "{sep}{sq}")?;
        }
        if self.promotion_mark {
            f.write_str("=K")?;
        }
        Ok(())
    }
}

impl FromStr for MoveText {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<MoveText, ParseMoveError> {
        let text = s.trim();
        if text.is_empty() {
            return Err(ParseMoveError::Empty);
        }
        let unexpected = |index: usize, ch: char| ParseMoveError::UnexpectedChar {
            text: text.to_owned(),
            ch,
            index,
        };
        let (body, promotion_mark) = match text.strip_suffix("=K").or(text.strip_suffix("=k")) {
            Some(b) => (b, true),
            None => (text, false),
        };
        let mut squares: Vec<Square> = Vec::new();
        let mut seps: Vec<char> = Vec::new();
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // A square: a letter and a digit.
            let c = body[i..].chars().next().unwrap_or('?');
            if !c.is_ascii_alphabetic() {
                return Err(unexpected(i, c));
            }
            let end = (i + 2).min(bytes.len());
            let sq_text = body.get(i..end).unwrap_or("");
            let sq: Square = sq_text.parse().map_err(|_| {
                if sq_text.len() == 2 && !sq_text.is_char_boundary(1) {
                    unexpected(i, c)
                } else {
                    ParseMoveError::BadSquare {
                        text: text.to_owned(),
                        square: sq_text.to_owned(),
                    }
                }
            })?;
            squares.push(sq);
            i = end;
            if i >= bytes.len() {
                break;
            }
            let c = body[i..].chars().next().unwrap_or('?');
            let sep = match c {
                '-' => '-',
                'x' | 'X' | ':' => 'x',
                _ => return Err(unexpected(i, c)),
            };
            seps.push(sep);
            i += 1;
            if i >= bytes.len() {
                return Err(ParseMoveError::BadSquare {
                    text: text.to_owned(),
                    square: String::new(),
                });
            }
        }
        if squares.len() < 2 {
            return Err(ParseMoveError::Illegal {
                text: text.to_owned(),
                reason: "a move needs at least two squares".to_owned(),
            });
        }
        let capture = seps[0] == 'x';
        if seps.iter().any(|&c| c != seps[0]) {
            return Err(ParseMoveError::Illegal {
                text: text.to_owned(),
                reason: "mixes '-' and 'x'".to_owned(),
            });
        }
        if !capture && squares.len() > 2 {
            return Err(ParseMoveError::Illegal {
                text: text.to_owned(),
                reason: "a quiet move has exactly two squares".to_owned(),
            });
        }
        if squares.len() > MAX_CAPTURES + 1 {
            return Err(ParseMoveError::Illegal {
                text: text.to_owned(),
                reason: format!("more than {MAX_CAPTURES} jumps"),
            });
        }
        let mut path = Path::new();
        path.extend(squares[1..].iter().copied());
        Ok(MoveText {
            from: squares[0],
            path,
            capture,
            promotion_mark,
        })
    }
}

impl Position {
    /// Resolves move text against the legal moves: `d3-d4`, `d4xd6`, a full
    /// capture path such as `b3xd3xd5` (any path of the move, see [`Move`]),
    /// or the short form `b3xd5` when exactly one legal capture matches.
    ///
    /// # Errors
    ///
    /// [`ParseMoveError`] naming the bad character or square, why the move is
    /// illegal, or that the short form is ambiguous.
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_engine::Position;
    ///
    /// let pos: Position = "W:Wb3:Bc3,d4".parse()?;
    /// let m = pos.parse_move("b3xd3xd5")?;
    /// assert_eq!(m.captured().count(), 2);
    /// assert_eq!(pos.parse_move("b3xd5")?, m);
    /// assert!(pos.parse_move("b3-b4").is_err()); // capture is mandatory
    /// # Ok::<(), dama_engine::Error>(())
    /// ```
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let t: MoveText = text.parse()?;
        self.resolve_move(&t, text.trim())
    }

    /// Resolves parsed [`MoveText`] against the legal moves (see
    /// [`Position::parse_move`]).
    ///
    /// # Errors
    ///
    /// As [`Position::parse_move`].
    pub fn resolve_move(&self, t: &MoveText, text: &str) -> Result<Move, ParseMoveError> {
        let illegal = |reason: &str| ParseMoveError::Illegal {
            text: text.to_owned(),
            reason: reason.to_owned(),
        };
        let legal = self.legal_moves();
        match self.piece_at(t.from) {
            None => return Err(illegal(&format!("no piece on {}", t.from))),
            Some(p) if p.color != self.turn() => {
                return Err(illegal(&format!(
                    "the piece on {} is not {}'s",
                    t.from,
                    self.turn()
                )))
            }
            Some(_) => {}
        }
        if legal.is_empty() {
            return Err(illegal("the side to move has no legal move"));
        }
        let found = if !t.capture {
            if legal[0].is_capture() {
                return Err(illegal("a capture is mandatory"));
            }
            legal
                .iter()
                .find(|m| m.from() == t.from && m.to() == t.to())
                .copied()
                .ok_or_else(|| illegal("not a legal move"))?
        } else {
            let Some(first) = legal.first().filter(|m| m.is_capture()) else {
                return Err(illegal("there is no capture"));
            };
            let max = first.capture_count();
            if t.path.len() == max {
                let built = self
                    .walk_path(t)
                    .ok_or_else(|| illegal("the path is not a sequence of jumps"))?;
                legal
                    .iter()
                    .find(|m| **m == built)
                    .copied()
                    .ok_or_else(|| illegal("not a legal capture"))?
            } else if t.path.len() == 1 {
                let matches: Vec<Move> = legal
                    .iter()
                    .filter(|m| m.from() == t.from && m.to() == t.to())
                    .copied()
                    .collect();
                match matches.len() {
                    0 => return Err(illegal("not a legal capture")),
                    1 => matches[0],
                    count => {
                        return Err(ParseMoveError::Ambiguous {
                            text: text.to_owned(),
                            count,
                        })
                    }
                }
            } else {
                return Err(illegal(&format!(
                    "the path has {} jumps but the maximum capture takes {max}",
                    t.path.len()
                )));
            }
        };
        if t.promotion_mark && !found.promotes() {
            return Err(illegal("the move does not crown"));
        }
        Ok(found)
    }

    /// Follows the landing squares of `t` jump by jump; the capture it makes
    /// (not yet checked against the maximum rule).
    fn walk_path(&self, t: &MoveText) -> Option<Move> {
        let piece = self.piece_at(t.from)?;
        let jr = movegen::JumpRules::new(self.rules());
        let mut state = JumpState {
            color: self.turn(),
            at: t.from,
            king: piece.role == Role::King,
            occ: self.occupied().without(t.from).0,
            them: self.them().0,
            last: None,
        };
        let mut captured = crate::Bitboard::EMPTY;
        for &to in &t.path {
            let (step, next) = movegen::jumps_from(&state, jr)
                .into_iter()
                .find(|(s, _)| s.to == to)?;
            captured.add(step.captured?);
            state = next;
        }
        let promotes =
            piece.role == Role::Man && (state.king || state.at.is_promotion_row(state.color));
        Move::new_capture(t.from, &t.path, captured, piece.role, promotes)
    }
}

/// A game with its record metadata: tags and the written result.
///
/// # Examples
///
/// ```
/// use dama_engine::GameRecord;
///
/// let rec: GameRecord = "1. d3-d4 d6-d5 2. d4xd6xd8 *".parse()?;
/// assert_eq!(rec.game.moves().len(), 3);
/// assert_eq!(rec.to_string().parse::<GameRecord>()?.game.moves(), rec.game.moves());
/// # Ok::<(), dama_engine::ParseGameError>(())
/// ```
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// `[Name "value"]` tags other than `Position` and `Result`, in order.
    pub tags: Vec<(String, String)>,
    /// The game, with every move replayed and checked.
    pub game: Game,
    /// The written result (`None` for `*`).
    pub result: Option<Outcome>,
}

impl GameRecord {
    /// A record of `game`, with its outcome (if over) as the result.
    pub fn from_game(game: &Game) -> GameRecord {
        GameRecord {
            tags: Vec::new(),
            game: game.clone(),
            result: game.outcome(),
        }
    }
}

impl fmt::Display for GameRecord {
    /// Writes the tags, a `[Position "…"]` tag if the start is not the
    /// initial position, then one line per move number and the result.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.tags {
            writeln!(f, "[{k} \"{v}\"]")?;
        }
        let rules = self.game.rules();
        if *rules != Rules::default() && !self.tags.iter().any(|(k, _)| k == "Rules") {
            writeln!(f, "[Rules \"{rules}\"]")?;
        }
        let start = self.game.start_position();
        if !start.is_initial() {
            writeln!(f, "[Position \"{start}\"]")?;
        }
        let mut pos = *start;
        let mut line = String::new();
        for m in self.game.moves() {
            let n = pos.fullmove_number();
            match pos.turn() {
                Color::White => {
                    if !line.is_empty() {
                        writeln!(f, "{line}")?;
                        line.clear();
                    }
                    line.push_str(&format!("{n}. {m}"));
                }
                Color::Black => {
                    if line.is_empty() {
                        line.push_str(&format!("{n}... {m}"));
                    } else {
                        line.push_str(&format!(" {m}"));
                    }
                }
            }
            pos.play_unchecked(m);
        }
        let result = self.result.map_or("*", Outcome::as_str);
        if line.is_empty() {
            writeln!(f, "{result}")
        } else {
            writeln!(f, "{line} {result}")
        }
    }
}

impl FromStr for GameRecord {
    type Err = ParseGameError;

    /// Reads a record: tag lines, then move numbers (`1.`, `1...`, checked),
    /// moves (resolved as by [`Position::parse_move`]), `{comments}`, and an
    /// optional final result (`1-0`, `0-1`, `1/2-1/2`, `*`). The result is
    /// taken as written (a game may end by resignation or agreement).
    fn from_str(s: &str) -> Result<GameRecord, ParseGameError> {
        let mut tags = Vec::new();
        let mut start_text: Option<String> = None;
        let mut rules = None;
        let mut body = String::new();
        for (i, line) in s.lines().enumerate() {
            let t = line.trim();
            if t.starts_with('[') {
                let inner = t
                    .strip_prefix('[')
                    .and_then(|x| x.strip_suffix(']'))
                    .and_then(|x| {
                        let (k, v) = x.split_once(' ')?;
                        let v = v.trim().strip_prefix('"')?.strip_suffix('"')?;
                        Some((k.to_owned(), v.to_owned()))
                    })
                    .ok_or_else(|| ParseGameError::BadTag {
                        line: i + 1,
                        text: t.to_owned(),
                    })?;
                match inner.0.as_str() {
                    // Read once the rules are known (the tags may come in
                    // any order).
                    "Position" | "FEN" => start_text = Some(inner.1),
                    "Result" => {}
                    // Kept as a tag (so the record writes back the same),
                    // and the moves are replayed under these rules.
                    "Rules" => {
                        rules = Some(inner.1.parse::<Rules>()?);
                        tags.push(inner);
                    }
                    _ => tags.push(inner),
                }
            } else {
                body.push_str(t);
                body.push('\n');
            }
        }
        // Drop {comments}.
        let mut clean = String::with_capacity(body.len());
        let mut depth = 0usize;
        for c in body.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth > 0 => depth -= 1,
                _ if depth > 0 => {}
                _ => clean.push(c),
            }
        }
        let rules = rules.unwrap_or_default();
        let start = match start_text {
            Some(text) => Position::from_str_with_rules(&text, rules)?,
            None => Position::startpos_with_rules(rules),
        };
        let mut game = Game::from_position(start);
        let mut result: Option<Option<Outcome>> = None;
        for raw in clean.split_whitespace() {
            if let Some(trailing) = result.as_ref().map(|_| raw) {
                return Err(ParseGameError::Trailing(trailing.to_owned()));
            }
            if raw == "*" {
                result = Some(None);
                continue;
            }
            if let Some(o) = Outcome::from_token(raw) {
                result = Some(Some(o));
                continue;
            }
            // Split a move number ("12." or "12...") from a glued move.
            let digits = raw.chars().take_while(char::is_ascii_digit).count();
            let mut token = raw;
            if digits > 0 {
                let dots = raw[digits..].chars().take_while(|&c| c == '.').count();
                let ply = game.moves().len() + 1;
                let number = &raw[..digits];
                let expected = game.position().fullmove_number().to_string();
                let black_dots = dots >= 2;
                if dots == 0
                    || number != expected
                    || (black_dots && game.turn() != Color::Black)
                    || (!black_dots && game.turn() != Color::White)
                {
                    return Err(ParseGameError::MoveNumber {
                        text: raw.to_owned(),
                        ply,
                    });
                }
                token = &raw[digits + dots..];
                if token.is_empty() {
                    continue;
                }
            }
            let ply = game.moves().len() + 1;
            if game.is_game_over() {
                return Err(ParseGameError::AfterEnd {
                    text: token.to_owned(),
                });
            }
            let m = game
                .position()
                .parse_move(token)
                .map_err(|reason| ParseGameError::Move {
                    ply,
                    text: token.to_owned(),
                    reason,
                })?;
            game.play_unchecked(&m);
        }
        Ok(GameRecord {
            tags,
            game,
            result: result.flatten(),
        })
    }
}
