//! [`Step`] (one decision), [`Move`] (a whole turn), the move generator
//! and [`perft`].

use std::fmt;

use crate::board::{Color, Position, Square};
use crate::MiniError;

/// The four directions as `(file, rank)` steps: North (up), East, South,
/// West.
pub(crate) const DIRECTIONS: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// One decision of the side to move: a quiet move, or one jump of a
/// capture (`captured` is the square of the piece jumped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// Where the piece stands.
    pub from: Square,
    /// Where it lands.
    pub to: Square,
    /// The piece jumped, for a jump.
    pub captured: Option<Square>,
}

impl Step {
    /// The direction of the step, `(file, rank)` each −1, 0 or 1.
    #[must_use]
    pub fn direction(&self) -> (i8, i8) {
        (
            (self.to.file() - self.from.file()).signum(),
            (self.to.rank() - self.from.rank()).signum(),
        )
    }

    /// How many squares the piece travels (1..=5).
    #[must_use]
    pub fn distance(&self) -> u8 {
        let (df, dr) = (
            self.to.file() - self.from.file(),
            self.to.rank() - self.from.rank(),
        );
        (df.abs() + dr.abs()) as u8
    }

    /// The step mirrored left to right.
    #[must_use]
    pub fn mirrored(&self) -> Step {
        Step {
            from: self.from.mirrored(),
            to: self.to.mirrored(),
            captured: self.captured.map(Square::mirrored),
        }
    }
}

impl fmt::Display for Step {
    /// `b2-b3`, or `b2xb4` for a jump.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.captured.is_some() { 'x' } else { '-' };
        write!(f, "{}{sep}{}", self.from, self.to)
    }
}

/// A whole turn: one quiet step, or every jump of a capture in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    steps: Vec<Step>,
}

impl Move {
    /// The steps, in order (never empty).
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Where the moving piece starts.
    #[must_use]
    pub fn from(&self) -> Square {
        self.steps[0].from
    }

    /// Where it ends.
    #[must_use]
    pub fn to(&self) -> Square {
        self.steps[self.steps.len() - 1].to
    }

    /// Whether it captures.
    #[must_use]
    pub fn is_capture(&self) -> bool {
        self.steps[0].captured.is_some()
    }
}

impl fmt::Display for Move {
    /// `b2-b3` for a quiet move, `b2xb4xd4` for a capture (every landing
    /// square).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from())?;
        let sep = if self.is_capture() { 'x' } else { '-' };
        self.steps
            .iter()
            .try_for_each(|s| write!(f, "{sep}{}", s.to))
    }
}

impl Position {
    /// The position after `step` by the side to move: the piece moves, a
    /// jumped piece leaves the board at once; no crowning, same side to
    /// move (a capture goes on).
    #[must_use]
    pub fn after_step(&self, step: Step) -> Position {
        let mut p = *self;
        p.set(step.to, self.get(step.from));
        p.set(step.from, None);
        if let Some(c) = step.captured {
            p.set(c, None);
        }
        p
    }

    /// The position after the whole move `m` (not checked for legality):
    /// its steps, then a man on its last row is crowned and the other side
    /// is to move.
    #[must_use]
    pub fn after_move(&self, m: &Move) -> Position {
        let mut p = m.steps.iter().fold(*self, |p, &s| p.after_step(s));
        if let Some(mut piece) = p.get(m.to()) {
            piece.king |= m.to().rank() == piece.color.last_rank();
            p.set(m.to(), Some(piece));
        }
        p.set_turn(self.turn().other());
        p
    }

    /// The jumps of the piece on `from` (the side to move's), not turning
    /// back against `last`, the direction of the jump before.
    #[must_use]
    pub fn jumps(&self, from: Square, last: Option<(i8, i8)>) -> Vec<Step> {
        let mut out = Vec::new();
        let Some(piece) = self.get(from) else {
            return out;
        };
        let enemy = |sq: Square| self.get(sq).is_some_and(|p| p.color != piece.color);
        for d in piece_directions(piece.king, piece.color) {
            if last == Some((-d.0, -d.1)) {
                continue;
            }
            let mut over = from.offset(d);
            while piece.king && over.is_some_and(|s| self.get(s).is_none()) {
                over = over.and_then(|s| s.offset(d));
            }
            let Some(over) = over.filter(|&s| enemy(s)) else {
                continue;
            };
            let mut land = over.offset(d);
            while let Some(to) = land.filter(|&s| self.get(s).is_none()) {
                out.push(Step {
                    from,
                    to,
                    captured: Some(over),
                });
                land = if piece.king { to.offset(d) } else { None };
            }
        }
        out
    }

    /// The legal whole moves of the side to move (captures if any, only
    /// those capturing the most; else quiet moves), in a fixed order. Draw
    /// rules are the [`Game`](crate::Game)'s.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut captures = Vec::new();
        for from in self.squares(self.turn()) {
            self.capture_sequences(from, None, &mut Vec::new(), &mut captures);
        }
        if let Some(most) = captures.iter().map(Vec::len).max() {
            let steps = captures.into_iter().filter(|c| c.len() == most);
            return steps.map(|steps| Move { steps }).collect();
        }
        let mut quiet = Vec::new();
        for from in self.squares(self.turn()) {
            let Some(piece) = self.get(from) else {
                continue;
            };
            for d in piece_directions(piece.king, piece.color) {
                let mut to = from.offset(d);
                while let Some(sq) = to.filter(|&s| self.get(s).is_none()) {
                    let captured = None;
                    quiet.push(Move {
                        steps: vec![Step {
                            from,
                            to: sq,
                            captured,
                        }],
                    });
                    to = if piece.king { sq.offset(d) } else { None };
                }
            }
        }
        quiet
    }

    fn capture_sequences(
        &self,
        from: Square,
        last: Option<(i8, i8)>,
        path: &mut Vec<Step>,
        out: &mut Vec<Vec<Step>>,
    ) {
        let jumps = self.jumps(from, last);
        if jumps.is_empty() && !path.is_empty() {
            out.push(path.clone());
        }
        for j in jumps {
            path.push(j);
            self.after_step(j)
                .capture_sequences(j.to, Some(j.direction()), path, out);
            path.pop();
        }
    }

    /// The legal move written `text` (`b2-b3`, `b2xb4xd4`: every landing
    /// square of a capture).
    ///
    /// # Errors
    ///
    /// [`MiniError::MoveText`] for malformed text, [`MiniError::Square`]
    /// for a bad square, [`MiniError::Illegal`] if no legal move is written
    /// so.
    pub fn parse_move(&self, text: &str) -> Result<Move, MiniError> {
        let text = text.trim();
        let bad = |why| MiniError::MoveText {
            text: text.to_owned(),
            why,
        };
        if text.contains('x') && text.contains('-') {
            return Err(bad("mixes `-` and `x`"));
        }
        let squares = text.split(['x', '-']).map(str::parse::<Square>);
        if squares.collect::<Result<Vec<_>, _>>()?.len() < 2 {
            return Err(bad("expected at least two squares"));
        }
        self.legal_moves()
            .into_iter()
            .find(|m| m.to_string() == text)
            .ok_or_else(|| MiniError::Illegal(text.to_owned()))
    }
}

/// The directions a piece moves and captures in: a king all four, a man
/// forward and sideways.
fn piece_directions(king: bool, color: Color) -> Vec<(i8, i8)> {
    if king {
        DIRECTIONS.to_vec()
    } else {
        vec![(0, color.forward()), (1, 0), (-1, 0)]
    }
}

/// The number of move sequences of `depth` whole moves from `position`
/// (draw rules ignored; a side without a move ends a line).
#[must_use]
pub fn perft(position: &Position, depth: u32) -> u64 {
    let moves = position.legal_moves();
    match depth {
        0 => 1,
        1 => moves.len() as u64,
        _ => moves
            .iter()
            .map(|m| perft(&position.after_move(m), depth - 1))
            .sum(),
    }
}
