//! A game: moves decided jump by jump ([`Step`]s), whole moves
//! ([`Move`]s), the end of the game.

use std::fmt;

use arrayvec::ArrayVec;

use crate::board::{Bitboard, Dir, Square};
use crate::lockup;
use crate::position::{Position, Side};
use crate::rules::{Goal, LimitResult, Surround, TaflRules};

/// One decision of the player to move: a slide, one jump of a chain, or
/// stopping a friendly-jump chain.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Step {
    /// A piece moves one square (off the board, for the King's exit slide
    /// from column 8).
    Slide {
        /// Where it stands.
        from: Square,
        /// Where it goes.
        dir: Dir,
    },
    /// A piece jumps the adjacent piece in `dir` (a friend or an enemy, as
    /// the move's kind says) and lands beyond it (off the board, for the
    /// King's exit capture over column 8).
    Jump {
        /// Where it stands.
        from: Square,
        /// Where it jumps.
        dir: Dir,
    },
    /// Ends a friendly-jump chain on the piece's current square.
    Stop {
        /// The square it stops on.
        at: Square,
    },
}

impl Step {
    /// The square the acting piece stands on.
    pub const fn from(self) -> Square {
        match self {
            Step::Slide { from, .. } | Step::Jump { from, .. } => from,
            Step::Stop { at } => at,
        }
    }

    /// The step mirrored across the long axis.
    pub const fn mirror(self) -> Step {
        match self {
            Step::Slide { from, dir } => Step::Slide {
                from: from.mirror(),
                dir: dir.mirror(),
            },
            Step::Jump { from, dir } => Step::Jump {
                from: from.mirror(),
                dir: dir.mirror(),
            },
            Step::Stop { at } => Step::Stop { at: at.mirror() },
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let land = |from: Square, dir: Dir, n: usize| {
            let mut s = Some(from);
            for _ in 0..n {
                s = s.and_then(|q| q.step(dir));
            }
            s.map_or_else(|| "off".to_owned(), |q| q.to_string())
        };
        match *self {
            Step::Slide { from, dir } => write!(f, "{from}-{}", land(from, dir, 1)),
            Step::Jump { from, dir } => write!(f, "{from}^{}", land(from, dir, 2)),
            Step::Stop { at } => write!(f, "{at}."),
        }
    }
}

/// The kind of a move.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MoveKind {
    /// One square.
    Slide,
    /// A chain of jumps over the mover's own pieces (King side only).
    Friendly,
    /// A chain of jumps over enemy pieces, which are removed.
    Capture,
}

/// A whole move.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    /// The kind.
    pub kind: MoveKind,
    /// Where the piece starts.
    pub from: Square,
    /// The landing squares in order (empty for an exit slide; a move that
    /// leaves the board has `exit` set and does not list the square past
    /// column 8).
    pub path: ArrayVec<Square, 32>,
    /// The pieces captured.
    pub captured: Bitboard,
    /// Whether the King leaves the board with this move.
    pub exit: bool,
}

impl Move {
    /// Where the piece ends, `None` if it leaves the board.
    pub fn to(&self) -> Option<Square> {
        if self.exit {
            None
        } else {
            self.path.last().copied()
        }
    }

    /// The identity of a move for counting and comparing: kind, from, end
    /// and captured set (two paths of a friendly chain or of a capture that
    /// takes the same pieces are one move).
    pub fn key(&self) -> (MoveKind, Square, Option<Square>, Bitboard) {
        (self.kind, self.from, self.to(), self.captured)
    }
}

impl fmt::Display for Move {
    /// `b1-b2` (slide), `b1-b3-d3` (friendly chain), `c4xc2xa2` (capture),
    /// `c8-off`, `a7xoff` (the King's exit).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.kind == MoveKind::Capture {
            "x"
        } else {
            "-"
        };
        write!(f, "{}", self.from)?;
        for sq in &self.path {
            write!(f, "{sep}{sq}")?;
        }
        if self.exit {
            write!(f, "{sep}off")?;
        }
        Ok(())
    }
}

/// Why a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Termination {
    /// The King left the board (or reached column 8 under
    /// [`Goal::Column8`]).
    KingEscaped,
    /// The King is surrounded at the start of the King side's turn.
    KingSurrounded,
    /// The King can never reach the exit ([`crate::lockup`]).
    Locked,
    /// The side to move has no legal move.
    NoMoves,
    /// A position occurred for the third time.
    Repetition,
    /// The ply limit.
    PlyLimit,
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Termination::KingEscaped => "the King escaped",
            Termination::KingSurrounded => "the King is surrounded",
            Termination::Locked => "the board is locked",
            Termination::NoMoves => "no legal move",
            Termination::Repetition => "threefold repetition",
            Termination::PlyLimit => "ply limit",
        })
    }
}

/// The end of a game: the winner (`None` for a draw) and why.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// Who won, `None` for a draw.
    pub winner: Option<Side>,
    /// Why.
    pub termination: Termination,
}

/// A move or step that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// Not a legal step here.
    #[error("illegal step {0}")]
    IllegalStep(String),
    /// Not a legal move here.
    #[error("illegal move `{0}`")]
    IllegalMove(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

/// A legal whole move with the steps that play it ([`Game::playable_moves`]),
/// for searches that play a move and take it back ([`Game::make`],
/// [`Game::unmake`]) instead of copying the game and its history.
#[derive(Clone, Debug)]
pub struct PlayableMove {
    /// The move.
    pub mv: Move,
    /// Its steps, from the position it was generated in.
    steps: ArrayVec<Step, 33>,
}

/// What [`Game::make`] changed, for [`Game::unmake`].
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    pos: Position,
    outcome: Option<Outcome>,
    moves: usize,
    hashes: usize,
}

/// A chain of jumps in progress.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
struct Pending {
    origin: Square,
    at: Square,
    kind: MoveKind,
    /// Squares landed on so far, the origin included (friendly chains may
    /// not land on a square twice).
    visited: Bitboard,
    captured: Bitboard,
    /// Captures still to make under the majority rule.
    remaining: u32,
}

/// What a piece is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Piece {
    Man(Side),
    King(Side),
}

/// A game of Turkish Tafl: the position, the move in progress, the history
/// and the end.
#[derive(Clone, Debug)]
pub struct Game {
    rules: TaflRules,
    start: Position,
    pos: Position,
    pending: Option<Pending>,
    /// The current move's path so far.
    path: ArrayVec<Square, 32>,
    moves: Vec<Move>,
    hashes: Vec<u64>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game from the initial position under `rules`.
    pub fn new(rules: TaflRules) -> Game {
        Game::from_position(Position::startpos(rules.first), rules)
    }

    /// A new game from `pos` under `rules`.
    pub fn from_position(pos: Position, rules: TaflRules) -> Game {
        let mut g = Game {
            rules,
            start: pos,
            pos,
            pending: None,
            path: ArrayVec::new(),
            moves: Vec::new(),
            hashes: vec![pos.hash()],
            outcome: None,
        };
        g.outcome = g.judge();
        g
    }

    /// The rules.
    pub fn rules(&self) -> &TaflRules {
        &self.rules
    }

    /// The position (mid-chain: with the moving piece on its current square
    /// and the pieces captured so far removed).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.start
    }

    /// The side to act.
    pub fn turn(&self) -> Side {
        self.pos.turn
    }

    /// The whole moves played.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plies played (whole moves).
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The end of the game, if it is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The square of the piece continuing a chain, if one is in progress.
    pub fn chain_at(&self) -> Option<Square> {
        self.pending.map(|p| p.at)
    }

    /// The pieces captured so far by the move in progress.
    pub fn captured_so_far(&self) -> Bitboard {
        self.pending.map_or(Bitboard::EMPTY, |p| p.captured)
    }

    /// The squares a friendly chain in progress has landed on (its start
    /// included): it may not land on them again. Empty otherwise.
    pub fn chain_visited(&self) -> Bitboard {
        self.pending
            .filter(|p| p.kind == MoveKind::Friendly)
            .map_or(Bitboard::EMPTY, |p| p.visited)
    }

    /// Whether a friendly chain is in progress.
    pub fn in_friendly_chain(&self) -> bool {
        self.pending.is_some_and(|p| p.kind == MoveKind::Friendly)
    }

    /// How often the current position occurred (1 the first time).
    pub fn repetitions(&self) -> usize {
        let h = self.pos.hash();
        self.hashes.iter().filter(|&&x| x == h).count()
    }

    /// A hash of the state: the position, and a chain in progress.
    pub fn hash(&self) -> u64 {
        let mut h = self.pos.hash();
        if let Some(p) = self.pending {
            h ^= (u64::from(p.at.index()) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
                ^ u64::from(p.visited.0).rotate_left(17)
                ^ u64::from(p.origin.index()).rotate_left(47)
                ^ if p.kind == MoveKind::Friendly {
                    0x5555
                } else {
                    0xaaaa
                };
        }
        h
    }

    fn piece_at(&self, sq: Square) -> Option<Piece> {
        let p = &self.pos;
        if p.king == sq {
            Some(Piece::King(Side::KingSide))
        } else if p.black_men.contains(sq) {
            Some(Piece::Man(Side::KingSide))
        } else if p.white_men.contains(sq) {
            Some(Piece::Man(Side::Defender))
        } else if p.white_kings.contains(sq) {
            Some(Piece::King(Side::Defender))
        } else {
            None
        }
    }

    /// The directions a piece moves and jumps in.
    fn dirs(piece: Piece) -> &'static [Dir] {
        match piece {
            Piece::King(_) => &Dir::ALL,
            Piece::Man(Side::KingSide) => &[Dir::Up, Dir::Right, Dir::Left],
            Piece::Man(Side::Defender) => &[Dir::Down, Dir::Right, Dir::Left],
        }
    }

    /// The capture jumps of the piece on `sq` (which belongs to the side to
    /// move) in the current position: `(dir, landing)`, landing `None` for
    /// the King's exit over column 8.
    fn capture_jumps(&self, sq: Square, out: &mut ArrayVec<(Dir, Option<Square>), 4>) {
        let Some(piece) = self.piece_at(sq) else {
            return;
        };
        let side = self.pos.turn;
        let occ = self.pos.occupied();
        for &d in Game::dirs(piece) {
            let Some(mid) = sq.step(d) else { continue };
            let capturable = match side {
                Side::KingSide => self.pos.pieces(Side::Defender).contains(mid),
                // The King side's King can never be jumped.
                Side::Defender => self.pos.black_men.contains(mid),
            };
            if !capturable {
                continue;
            }
            match mid.step(d) {
                Some(land) if !occ.contains(land) => {
                    let _ = out.try_push((d, Some(land)));
                }
                None if piece == Piece::King(Side::KingSide)
                    && d == Dir::Up
                    && self.rules.goal == Goal::Exit =>
                {
                    let _ = out.try_push((d, None));
                }
                _ => {}
            }
        }
    }

    /// Whether the side to move has a capture anywhere (captures are
    /// compulsory: its legal moves are then captures only).
    pub fn has_capture(&self) -> bool {
        // Every piece at once, a direction at a time: the movers that go
        // that way, the enemies next to them, the empty squares beyond.
        let p = &self.pos;
        let empty = Bitboard(!p.occupied().0);
        let king = Bitboard::from_square(p.king);
        let (men, kings, enemies, men_back) = match p.turn {
            // The King side's King can never be jumped.
            Side::KingSide => (p.black_men, king, p.pieces(Side::Defender), Dir::Down),
            Side::Defender => (p.white_men, p.white_kings, p.black_men, Dir::Up),
        };
        let jumps = Dir::ALL.iter().any(|&d| {
            let movers = if d == men_back { kings } else { men | kings };
            let mids = Bitboard(movers.shift(d).0 & enemies.0);
            mids.shift(d).0 & empty.0 != 0
        });
        // The King's capture over column 8 onto the exit.
        jumps
            || (p.turn == Side::KingSide
                && self.rules.goal == Goal::Exit
                && p.king
                    .step(Dir::Up)
                    .is_some_and(|mid| mid.column() == 7 && enemies.contains(mid)))
    }

    /// [`Game::has_capture`] square by square (its reference in tests).
    #[cfg(test)]
    fn has_capture_by_square(&self) -> bool {
        let mut buf = ArrayVec::new();
        self.pos.pieces(self.pos.turn).into_iter().any(|sq| {
            buf.clear();
            self.capture_jumps(sq, &mut buf);
            !buf.is_empty()
        })
    }

    /// Whether a capture chain by `piece` goes on after a jump.
    fn chains(&self, piece: Piece) -> bool {
        match piece {
            Piece::Man(Side::Defender) => self.rules.defender_man_chain,
            _ => true,
        }
    }

    /// A copy of the board, the rules and a move in progress, without the
    /// history (what exploring moves needs; the copy's end is not judged).
    fn board_only(&self) -> Game {
        Game {
            rules: self.rules,
            start: self.start,
            pos: self.pos,
            pending: self.pending,
            path: self.path.clone(),
            moves: Vec::new(),
            hashes: Vec::new(),
            outcome: None,
        }
    }

    /// Makes this copy [`Game::board_only`] of `other` again (the same
    /// rules and start), keeping its lists' buffers.
    fn set_board_to(&mut self, other: &Game) {
        debug_assert!(self.rules == other.rules && self.start == other.start);
        self.pos = other.pos;
        self.pending = other.pending;
        self.path.clone_from(&other.path);
        self.moves.clear();
        self.hashes.clear();
        self.outcome = None;
    }

    /// The most pieces a capture chain starting with the jump from `sq` in
    /// `dir` takes (this jump included).
    fn max_chain(&self, sq: Square, dir: Dir) -> u32 {
        let mut g = self.board_only();
        g.pending = None;
        let piece = g.piece_at(sq);
        let land = g.apply_capture_jump(sq, dir);
        let Some(land) = land else { return 1 };
        if !piece.is_some_and(|p| g.chains(p)) {
            return 1;
        }
        let mut buf = ArrayVec::new();
        g.capture_jumps(land, &mut buf);
        1 + buf
            .iter()
            .map(|&(d, _)| g.max_chain(land, d))
            .max()
            .unwrap_or(0)
    }

    /// Moves the piece on `sq` over the enemy in `dir`, removing it; the
    /// landing square, `None` if the King left the board.
    fn apply_capture_jump(&mut self, sq: Square, dir: Dir) -> Option<Square> {
        let mid = sq
            .step(dir)
            .expect("invariant: a jump crosses an on-board square");
        let p = &mut self.pos;
        p.white_men = p.white_men.without(mid);
        p.white_kings = p.white_kings.without(mid);
        p.black_men = p.black_men.without(mid);
        let land = mid.step(dir);
        if let Some(l) = land {
            self.relocate(sq, l);
        }
        land
    }

    fn relocate(&mut self, from: Square, to: Square) {
        let p = &mut self.pos;
        if p.king == from {
            p.king = to;
        } else if p.black_men.contains(from) {
            p.black_men = p.black_men.without(from).with(to);
        } else if p.white_men.contains(from) {
            p.white_men = p.white_men.without(from).with(to);
        } else if p.white_kings.contains(from) {
            p.white_kings = p.white_kings.without(from).with(to);
        }
    }

    /// The legal steps: empty once the game is over. While a chain is in
    /// progress, its continuations (and [`Step::Stop`] for a friendly
    /// chain); otherwise the first steps of every legal move.
    pub fn legal_steps(&self) -> Vec<Step> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        self.steps()
    }

    /// [`Game::legal_steps`] whether or not the game is over (what deciding
    /// the end of the game needs).
    fn steps(&self) -> Vec<Step> {
        // Room for a position's steps, grown only past it.
        let mut out = Vec::with_capacity(64);
        let mut buf = ArrayVec::new();
        if let Some(p) = self.pending {
            match p.kind {
                MoveKind::Capture => {
                    self.capture_jumps(p.at, &mut buf);
                    for &(d, _) in &buf {
                        if !self.rules.majority || self.max_chain(p.at, d) >= p.remaining {
                            out.push(Step::Jump { from: p.at, dir: d });
                        }
                    }
                }
                MoveKind::Friendly => {
                    self.friendly_jumps(p.at, p.visited, &mut |d| {
                        out.push(Step::Jump { from: p.at, dir: d });
                    });
                    out.push(Step::Stop { at: p.at });
                }
                MoveKind::Slide => unreachable!("invariant: a slide is never pending"),
            }
            return out;
        }
        let side = self.pos.turn;
        if self.has_capture() {
            let mut jumps = Vec::new();
            for sq in self.pos.pieces(side) {
                buf.clear();
                self.capture_jumps(sq, &mut buf);
                for &(d, _) in &buf {
                    jumps.push((sq, d));
                }
            }
            if self.rules.majority {
                let counts: Vec<u32> = jumps.iter().map(|&(s, d)| self.max_chain(s, d)).collect();
                let best = counts.iter().copied().max().unwrap_or(0);
                for (&(from, dir), &c) in jumps.iter().zip(&counts) {
                    if c == best {
                        out.push(Step::Jump { from, dir });
                    }
                }
            } else {
                out.extend(
                    jumps
                        .into_iter()
                        .map(|(from, dir)| Step::Jump { from, dir }),
                );
            }
            return out;
        }
        self.quiet_steps(&mut |s| {
            out.push(s);
            false
        });
        out
    }

    /// Calls `f` with each slide and friendly jump of the side to move, in
    /// [`Game::steps`]' order, until it returns true; whether it did.
    fn quiet_steps(&self, f: &mut dyn FnMut(Step) -> bool) -> bool {
        let side = self.pos.turn;
        let occ = self.pos.occupied();
        for sq in self.pos.pieces(side) {
            let piece = self
                .piece_at(sq)
                .expect("invariant: a piece of the side to move");
            for &d in Game::dirs(piece) {
                let slides = match sq.step(d) {
                    Some(to) => !occ.contains(to),
                    None => {
                        piece == Piece::King(Side::KingSide)
                            && d == Dir::Up
                            && self.rules.goal == Goal::Exit
                    }
                };
                if slides && f(Step::Slide { from: sq, dir: d }) {
                    return true;
                }
            }
            if side == Side::KingSide {
                let mut stopped = false;
                self.friendly_jumps(sq, Bitboard::from_square(sq), &mut |d| {
                    stopped = stopped || f(Step::Jump { from: sq, dir: d });
                });
                if stopped {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the side to move has a step ([`Game::steps`] is not
    /// empty), found without listing them.
    fn has_step(&self) -> bool {
        if self.pending.is_some() {
            return !self.steps().is_empty();
        }
        self.has_capture() || self.quiet_steps(&mut |_| true)
    }

    /// Calls `f` with each direction of a friendly jump of the King-side
    /// piece on `sq` onto an empty square not in `visited`.
    fn friendly_jumps(&self, sq: Square, visited: Bitboard, f: &mut dyn FnMut(Dir)) {
        let Some(piece) = self.piece_at(sq) else {
            return;
        };
        let own = self.pos.pieces(Side::KingSide);
        let occ = self.pos.occupied();
        for &d in Game::dirs(piece) {
            let Some(mid) = sq.step(d) else { continue };
            if !own.contains(mid) {
                continue;
            }
            if let Some(land) = mid.step(d) {
                if !occ.contains(land) && !visited.contains(land) {
                    f(d);
                }
            }
        }
    }

    /// Plays one step.
    ///
    /// # Errors
    ///
    /// [`PlayError::GameOver`] after the end, [`PlayError::IllegalStep`] for
    /// a step not in [`Game::legal_steps`] (the game is then unchanged).
    pub fn play_step(&mut self, step: Step) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        if !self.legal_steps().contains(&step) {
            return Err(PlayError::IllegalStep(step.to_string()));
        }
        self.play_step_unchecked(step);
        Ok(())
    }

    /// Plays a step from [`Game::legal_steps`] without checking it.
    pub fn play_step_unchecked(&mut self, step: Step) {
        self.step(step, true);
    }

    /// [`Game::play_step_unchecked`]; without `judge`, a move it ends is
    /// not judged (the game's end is left as it was: for exploring moves
    /// on a copy).
    fn step(&mut self, step: Step, judge: bool) {
        match step {
            Step::Slide { from, dir } => {
                self.path.clear();
                match from.step(dir) {
                    Some(to) => {
                        self.relocate(from, to);
                        self.path.push(to);
                        self.finish(from, MoveKind::Slide, Bitboard::EMPTY, false, judge);
                    }
                    None => self.finish(from, MoveKind::Slide, Bitboard::EMPTY, true, judge),
                }
            }
            Step::Stop { .. } => {
                let p = self.pending.take().expect("invariant: stop ends a chain");
                self.finish(p.origin, MoveKind::Friendly, Bitboard::EMPTY, false, judge);
            }
            Step::Jump { from, dir } => {
                let mid = from
                    .step(dir)
                    .expect("invariant: a jump crosses an on-board square");
                let friendly = self.pos.pieces(self.pos.turn).contains(mid);
                let mut p = self.pending.take().unwrap_or_else(|| {
                    self.path.clear();
                    let remaining = if self.rules.majority && !friendly {
                        self.max_chain(from, dir)
                    } else {
                        0
                    };
                    Pending {
                        origin: from,
                        at: from,
                        kind: if friendly {
                            MoveKind::Friendly
                        } else {
                            MoveKind::Capture
                        },
                        visited: Bitboard::from_square(from),
                        captured: Bitboard::EMPTY,
                        remaining,
                    }
                });
                if friendly {
                    let land = mid
                        .step(dir)
                        .expect("invariant: a friendly jump lands on the board");
                    self.relocate(from, land);
                    self.path.push(land);
                    p.at = land;
                    p.visited = p.visited.with(land);
                    let mut more = false;
                    self.friendly_jumps(land, p.visited, &mut |_| more = true);
                    if more {
                        self.pending = Some(p);
                    } else {
                        self.finish(p.origin, MoveKind::Friendly, Bitboard::EMPTY, false, judge);
                    }
                    return;
                }
                let piece = self.piece_at(from).expect("invariant: a piece jumps");
                p.captured = p.captured.with(mid);
                p.remaining = p.remaining.saturating_sub(1);
                match self.apply_capture_jump(from, dir) {
                    None => self.finish(p.origin, MoveKind::Capture, p.captured, true, judge),
                    Some(land) => {
                        self.path.push(land);
                        p.at = land;
                        let mut buf = ArrayVec::new();
                        if self.chains(piece) {
                            self.capture_jumps(land, &mut buf);
                        }
                        if buf.is_empty() {
                            self.finish(p.origin, MoveKind::Capture, p.captured, false, judge);
                        } else {
                            self.pending = Some(p);
                        }
                    }
                }
            }
        }
    }

    /// Ends the move in progress: promotion, the move list, the next side,
    /// the end of the game.
    fn finish(
        &mut self,
        from: Square,
        kind: MoveKind,
        captured: Bitboard,
        exit: bool,
        judge: bool,
    ) {
        self.pending = None;
        let m = Move {
            kind,
            from,
            path: std::mem::take(&mut self.path),
            captured,
            exit,
        };
        let mover = self.pos.turn;
        // A Defender man ending its move on column 1 is crowned.
        let crowned = self.pos.white_men & Bitboard::column(0);
        self.pos.white_men = self.pos.white_men - crowned;
        self.pos.white_kings = self.pos.white_kings | crowned;
        self.moves.push(m);
        if exit {
            // The game is over; the other side would be to move.
            self.pos.turn = mover.other();
            if !judge {
                return;
            }
            self.outcome = Some(Outcome {
                winner: Some(Side::KingSide),
                termination: Termination::KingEscaped,
            });
            return;
        }
        self.pos.turn = mover.other();
        self.hashes.push(self.pos.hash());
        if judge {
            self.outcome = self.judge();
        }
    }

    /// The end of the game at a move boundary, if it is over.
    fn judge(&self) -> Option<Outcome> {
        let won = |winner: Side, termination| {
            Some(Outcome {
                winner: Some(winner),
                termination,
            })
        };
        if self.rules.goal == Goal::Column8 && self.pos.king.column() == 7 {
            return won(Side::KingSide, Termination::KingEscaped);
        }
        if self.pos.turn == Side::KingSide {
            if self.surrounded() {
                return won(Side::Defender, Termination::KingSurrounded);
            }
            if self.rules.lockup == crate::rules::Lockup::Frozen && lockup::locked(&self.pos) {
                return won(Side::Defender, Termination::Locked);
            }
        }
        if !self.has_step() {
            return won(self.pos.turn.other(), Termination::NoMoves);
        }
        let limit = |termination| {
            Some(Outcome {
                winner: match self.rules.limit_result {
                    LimitResult::DefenderWins => Some(Side::Defender),
                    LimitResult::Draw => None,
                },
                termination,
            })
        };
        if self.repetitions() >= 3 {
            return limit(Termination::Repetition);
        }
        if self
            .rules
            .ply_limit
            .is_some_and(|n| self.moves.len() >= usize::from(n))
        {
            return limit(Termination::PlyLimit);
        }
        None
    }

    /// Whether the King is surrounded by Defender pieces (see
    /// [`Surround`]).
    pub fn surrounded(&self) -> bool {
        let defenders = self.pos.pieces(Side::Defender);
        let k = self.pos.king;
        Dir::ALL.iter().all(|&d| match k.step(d) {
            Some(n) => defenders.contains(n),
            None => self.rules.surround == Surround::EdgeCounts && d != Dir::Up,
        })
    }

    /// Every legal whole move, one per [`Move::key`], in a deterministic
    /// order (empty once the game is over or mid-chain).
    pub fn legal_moves(&self) -> Vec<Move> {
        self.playable_moves().into_iter().map(|p| p.mv).collect()
    }

    /// [`Game::legal_moves`] (in the same order) with the steps that play
    /// each, for [`Game::make`].
    pub fn playable_moves(&self) -> Vec<PlayableMove> {
        let mut out = Vec::with_capacity(64);
        if self.pending.is_some() || self.outcome.is_some() {
            return out;
        }
        self.board_only()
            .collect_moves(&mut ArrayVec::new(), &mut out);
        out
    }

    /// Explores every step sequence from here on a history-free copy
    /// ([`Game::board_only`]), keeping the first of each [`Move::key`]
    /// (a position has a few dozen moves: a scan beats hashing).
    fn collect_moves(&self, steps: &mut ArrayVec<Step, 33>, out: &mut Vec<PlayableMove>) {
        // One scratch copy for every step, set back to this board before
        // each: its move and hash lists keep their buffers, where a new copy
        // a step allocated both.
        let mut g = self.board_only();
        for s in self.steps() {
            g.set_board_to(self);
            g.step(s, false);
            steps.push(s);
            if let Some(m) = g.moves.pop() {
                let key = m.key();
                if out.iter().all(|p| p.mv.key() != key) {
                    out.push(PlayableMove {
                        mv: m,
                        steps: steps.clone(),
                    });
                }
            } else {
                g.collect_moves(steps, out);
            }
            steps.pop();
        }
    }

    /// Plays `m`, one of this position's [`Game::playable_moves`], as
    /// [`Game::play`] would, without checking it; [`Game::unmake`] with the
    /// result takes it back.
    pub fn make(&mut self, m: &PlayableMove) -> Undo {
        debug_assert!(self.pending.is_none() && self.path.is_empty() && self.outcome.is_none());
        let undo = Undo {
            pos: self.pos,
            outcome: self.outcome,
            moves: self.moves.len(),
            hashes: self.hashes.len(),
        };
        for &s in &m.steps {
            self.step(s, true);
        }
        debug_assert!(self.pending.is_none() && self.moves.len() == undo.moves + 1);
        undo
    }

    /// Takes back the move [`Game::make`] played.
    pub fn unmake(&mut self, undo: Undo) {
        self.pos = undo.pos;
        self.outcome = undo.outcome;
        self.moves.truncate(undo.moves);
        self.hashes.truncate(undo.hashes);
        self.pending = None;
        self.path.clear();
    }

    /// Plays a whole move from [`Game::legal_moves`].
    ///
    /// # Errors
    ///
    /// [`PlayError::IllegalMove`] if it is not legal (the game is then
    /// unchanged), [`PlayError::GameOver`] after the end.
    pub fn play(&mut self, m: &Move) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        if self.pending.is_some() {
            return Err(PlayError::IllegalMove(format!(
                "{m} (a chain is in progress)"
            )));
        }
        let target = m.key();
        // Follow the move's own path step by step.
        let mut g = self.clone();
        let mut at = m.from;
        let mut path = m.path.iter().copied();
        loop {
            let n = g.moves.len();
            let steps = g.legal_steps();
            let next = path.next();
            let step = steps.into_iter().find(|s| match (*s, next) {
                (Step::Stop { .. }, None) => true,
                (Step::Slide { from, dir }, to) | (Step::Jump { from, dir }, to) => {
                    from == at && {
                        let one = from.step(dir);
                        let land = if matches!(s, Step::Jump { .. }) {
                            one.and_then(|q| q.step(dir))
                        } else {
                            one
                        };
                        land == to
                    }
                }
                _ => false,
            });
            let Some(step) = step else {
                return Err(PlayError::IllegalMove(m.to_string()));
            };
            g.play_step_unchecked(step);
            if g.moves.len() > n {
                if g.moves.last().map(Move::key) != Some(target) || path.next().is_some() {
                    return Err(PlayError::IllegalMove(m.to_string()));
                }
                *self = g;
                return Ok(());
            }
            if let Some(to) = next {
                at = to;
            }
        }
    }

    /// Parses a move in [`Move`]'s notation against the legal moves: the
    /// path as written, or for a chain just its start and end when only one
    /// legal move of that kind has them.
    ///
    /// # Errors
    ///
    /// [`PlayError::IllegalMove`] naming the text.
    pub fn parse_move(&self, text: &str) -> Result<Move, PlayError> {
        let t = text.trim();
        let legal = self.legal_moves();
        if let Some(m) = legal.iter().find(|m| m.to_string() == t) {
            return Ok(m.clone());
        }
        let capture = t.contains('x');
        let parts: Vec<&str> = t.split(['-', 'x']).collect();
        let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
            return Err(PlayError::IllegalMove(t.chars().take(80).collect()));
        };
        let from = first.parse::<Square>().ok();
        let to = if *last == "off" {
            None
        } else {
            Some(last.parse::<Square>().ok())
        };
        let mut found = legal.iter().filter(|m| {
            Some(m.from) == from
                && (m.kind == MoveKind::Capture) == capture
                && match to {
                    None => m.exit,
                    Some(sq) => sq.is_some() && m.to() == sq,
                }
        });
        match (found.next(), found.next()) {
            (Some(m), None) => Ok(m.clone()),
            _ => Err(PlayError::IllegalMove(t.chars().take(80).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    /// Calls `f` with a copy of the board of each position of `games`
    /// random games under each of `rules`, once with each side to move.
    fn each_random_board(rules: &[&str], games: usize, seed: u64, mut f: impl FnMut(Game)) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for rules in rules {
            let rules: TaflRules = rules.parse().expect("rules");
            for _ in 0..games {
                let mut g = Game::new(rules);
                while g.outcome().is_none() {
                    for turn in [Side::Defender, Side::KingSide] {
                        let mut h = g.board_only();
                        h.pos.turn = turn;
                        f(h);
                    }
                    let moves = g.legal_moves();
                    g.play(moves.choose(&mut rng).expect("a move"))
                        .expect("legal");
                }
            }
        }
    }

    /// The bitboard capture test agrees with the square-by-square one on
    /// the positions of random games, under both goals, for both sides to
    /// move.
    #[test]
    fn has_capture_agrees_with_each_squares_jumps() {
        let mut captures = 0;
        each_random_board(&["", "goal=column8"], 60, 3, |h| {
            assert_eq!(h.has_capture(), h.has_capture_by_square(), "{}", h.pos);
            captures += usize::from(h.has_capture());
        });
        assert!(captures > 100, "{captures} positions with a capture");
    }

    /// Whether the side to move has a step, as the end of the game asks,
    /// agrees with the steps listed, on the positions of random games for
    /// both sides to move and with the Defenders cut down to one man, who
    /// is often boxed in.
    #[test]
    fn has_step_agrees_with_the_steps_listed() {
        let mut boxed_in = 0;
        each_random_board(&["", "goal=column8", "majority=on"], 40, 5, |h| {
            assert_eq!(h.has_step(), !h.steps().is_empty(), "{}", h.pos);
            for man in h.pos.white_men {
                let mut lone = h.board_only();
                lone.pos.white_men = Bitboard::from_square(man);
                lone.pos.white_kings = Bitboard::EMPTY;
                lone.pos.turn = Side::Defender;
                let listed = !lone.steps().is_empty();
                assert_eq!(lone.has_step(), listed, "{}", lone.pos);
                boxed_in += usize::from(!listed);
            }
        });
        assert!(boxed_in > 10, "{boxed_in} boxed-in men");
    }
}
