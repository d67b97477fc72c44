//! Moves, move lists and single capture steps.

use std::fmt;
use std::hash::{Hash, Hasher};

use arrayvec::ArrayVec;

use crate::{Bitboard, Role, Square};

/// The most pieces one move can capture: all of the opponent's pieces in the
/// variant with the most (Croda's 24).
pub const MAX_CAPTURES: usize = 24;

/// The capacity of a [`MoveList`]. No reachable position comes close: the
/// maximum in practice is well under 100 moves. Generation never panics: in a
/// contrived position with more legal moves than this, the extra moves are
/// dropped.
pub const MAX_MOVES: usize = 256;

/// The legal moves of a position, stack allocated.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// The landing squares of a move, in order (the last one is [`Move::to`]).
pub type Path = ArrayVec<Square, MAX_CAPTURES>;

/// A complete move (one ply): a quiet step or slide, or a whole capture
/// sequence.
///
/// # Identity of capture sequences
///
/// Two capture sequences of the same piece that start on the same square, end
/// on the same square and capture the same set of pieces leave the same
/// position behind. **They are one move**: [`Position::legal_moves`] lists each
/// `(from, to, captured, promotes)` class once, perft counts it once, and a
/// policy over `legal_moves()` has one entry for it. The move carries one
/// representative landing path (the first one found by the generator), used
/// for notation; [`Position::parse_move`] accepts the text of *any* path of
/// the class and returns the listed move. Equality and hashing ignore the
/// path. (Under [`MidCapturePromotion::ContinueAsKing`] a man that touched the
/// promotion row ends as a king, so `promotes` is part of the key.)
///
/// A king may even finish a capture on the square it started from (a closed
/// loop of L-turns); then `from == to` and the move is still a capture.
///
/// [`Position::legal_moves`]: crate::Position::legal_moves
/// [`Position::parse_move`]: crate::Position::parse_move
/// [`MidCapturePromotion::ContinueAsKing`]: crate::MidCapturePromotion::ContinueAsKing
#[derive(Copy, Clone)]
pub struct Move {
    captured: Bitboard,
    from: Square,
    to: Square,
    role: Role,
    promotes: bool,
    /// Number of jumps (0 for a quiet move).
    jumps: u8,
    /// Landing squares before `to`; the first `jumps - 1` are used.
    via: [Square; MAX_CAPTURES - 1],
}

impl Move {
    /// A quiet (non-capturing) move of a piece of `role` from `from` to `to`.
    ///
    /// This builds a value; it does not check legality (see
    /// [`Position::is_legal`](crate::Position::is_legal)).
    #[inline]
    pub const fn new_quiet(from: Square, to: Square, role: Role, promotes: bool) -> Move {
        Move {
            captured: Bitboard::EMPTY,
            from,
            to,
            role,
            promotes,
            jumps: 0,
            via: [Square::A1; MAX_CAPTURES - 1],
        }
    }

    /// A capture by a piece of `role` from `from` along `path` (its landing
    /// squares in order, ending on the destination), taking `captured`.
    ///
    /// Returns `None` if `path` is empty or longer than [`MAX_CAPTURES`]. This
    /// does not check legality.
    pub fn new_capture(
        from: Square,
        path: &[Square],
        captured: Bitboard,
        role: Role,
        promotes: bool,
    ) -> Option<Move> {
        let (&to, via) = path.split_last()?;
        if path.len() > MAX_CAPTURES {
            return None;
        }
        let mut m = Move::new_quiet(from, to, role, promotes);
        m.captured = captured;
        m.jumps = path.len() as u8;
        m.via[..via.len()].copy_from_slice(via);
        Some(m)
    }

    /// The square the piece starts on.
    #[inline]
    pub const fn from(&self) -> Square {
        self.from
    }

    /// The square the piece ends on.
    #[inline]
    pub const fn to(&self) -> Square {
        self.to
    }

    /// The role of the moving piece before the move.
    #[inline]
    pub const fn role(&self) -> Role {
        self.role
    }

    /// Whether the moving man is crowned by this move.
    #[inline]
    pub const fn promotes(&self) -> bool {
        self.promotes
    }

    /// The squares of the captured pieces (empty for a quiet move).
    #[inline]
    pub const fn captured(&self) -> Bitboard {
        self.captured
    }

    /// Whether the move captures.
    #[inline]
    pub const fn is_capture(&self) -> bool {
        self.jumps != 0
    }

    /// The number of pieces captured.
    #[inline]
    pub const fn capture_count(&self) -> usize {
        self.jumps as usize
    }

    /// The landing squares in order, ending with [`Move::to`]. A quiet move
    /// has the single square `to`.
    pub fn path(&self) -> Path {
        let mut p = Path::new();
        let n = (self.jumps as usize).saturating_sub(1);
        p.extend(self.via[..n].iter().copied());
        p.push(self.to);
        p
    }

    /// The move as single steps: one per jump for a capture (with the square
    /// of the piece jumped), or one step for a quiet move.
    pub fn steps(&self) -> ArrayVec<Step, MAX_CAPTURES> {
        let mut out = ArrayVec::new();
        if !self.is_capture() {
            out.push(Step {
                from: self.from,
                to: self.to,
                captured: None,
            });
            return out;
        }
        let mut remaining = self.captured;
        let mut at = self.from;
        for to in self.path() {
            let seg = crate::geometry::between(at, to) & remaining;
            let captured = seg.first();
            if let Some(c) = captured {
                remaining.remove(c);
            }
            out.push(Step {
                from: at,
                to,
                captured,
            });
            at = to;
        }
        out
    }

    /// The move mirrored left to right (a ↔ h), for board symmetries.
    #[must_use]
    pub fn flip_horizontal(&self) -> Move {
        let mut m = *self;
        m.from = m.from.flip_horizontal();
        m.to = m.to.flip_horizontal();
        m.captured = m.captured.flip_horizontal();
        for sq in &mut m.via {
            *sq = sq.flip_horizontal();
        }
        m
    }

    /// The move rotated by 180 degrees (a1 ↔ h8), matching
    /// [`Position::flip_colors`](crate::Position::flip_colors).
    #[must_use]
    pub fn rotate_180(&self) -> Move {
        let mut m = *self;
        m.from = m.from.rotate_180();
        m.to = m.to.rotate_180();
        m.captured = m.captured.rotate_180();
        for sq in &mut m.via {
            *sq = sq.rotate_180();
        }
        m
    }

    #[inline]
    fn key(&self) -> (Square, Square, u64, Role, bool) {
        (
            self.from,
            self.to,
            self.captured.0,
            self.role,
            self.promotes,
        )
    }
}

impl PartialEq for Move {
    #[inline]
    fn eq(&self, other: &Move) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Move {}

impl Hash for Move {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl fmt::Display for Move {
    /// Writes `d3-d4` for a quiet move and `b3xd3xd5` (every landing square)
    /// for a capture. Crowning is not marked; [`Position::parse_move`]
    /// accepts a `=K` suffix on input.
    ///
    /// [`Position::parse_move`]: crate::Position::parse_move
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from)?;
        if self.is_capture() {
            for sq in self.path() {
                write!(f, "x{sq}")?;
            }
            Ok(())
        } else {
            write!(f, "-{}", self.to)
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self}")?;
        if self.role == Role::King {
            f.write_str(", king")?;
        }
        if self.promotes {
            f.write_str(", promotes")?;
        }
        f.write_str(")")
    }
}

/// One step of a move: a quiet move, or a single jump of a capture sequence.
///
/// Captures can be played jump by jump through
/// [`Game::legal_steps`](crate::Game::legal_steps) and
/// [`Game::play_step`](crate::Game::play_step).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Step {
    /// Where the piece stands before the step.
    pub from: Square,
    /// Where the piece lands.
    pub to: Square,
    /// The square of the piece jumped, for a jump; `None` for a quiet move.
    pub captured: Option<Square>,
}

impl Step {
    /// Whether this step is a jump.
    #[inline]
    pub const fn is_capture(&self) -> bool {
        self.captured.is_some()
    }
}

impl fmt::Display for Step {
    /// `d3-d4` for a quiet step, `d4xd6` for a jump.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}{}{}", self.from, sep, self.to)
    }
}
