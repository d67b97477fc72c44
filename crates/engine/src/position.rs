//! The position: pieces, side to move, rule options and draw counters.

use crate::error::{PlayError, PositionError};
use crate::movegen;
use crate::outcome::{Outcome, Termination};
use crate::rules::{OnePieceEachRule, Variant};
use crate::zobrist;
use crate::{ortho, Bitboard, ByColor, Color, Move, MoveList, Piece, Role, Rules, Square};

/// A position: where the pieces stand, whose turn it is, the [`Rules`] in
/// force, and the counters the draw rules need.
///
/// Positions are small `Copy` values. The Zobrist hash is kept up to date
/// incrementally by every move.
///
/// # Examples
///
/// ```
/// use dama_engine::Position;
///
/// let mut pos = Position::startpos();
/// assert_eq!(pos.legal_moves().len(), 8);
/// let m = pos.parse_move("d3-d4")?;
/// pos.try_play(&m)?;
/// assert_eq!(pos.to_string(), "B:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,e3,f3,g3,h3,d4:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7");
/// # Ok::<(), dama_engine::Error>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    by_color: ByColor<Bitboard>,
    kings: Bitboard,
    turn: Color,
    rules: Rules,
    plies_since_capture: u16,
    ply: u32,
    hash: u64,
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl Position {
    /// The initial position under the default [`Rules`]: White men on ranks 2
    /// and 3, Black men on ranks 6 and 7, White to move.
    pub fn startpos() -> Position {
        Position::startpos_with_rules(Rules::default())
    }

    /// The initial position of `rules.variant`, White to move:
    ///
    /// * Turkish and Armenian: men on ranks 2–3 and 6–7 (16 a side);
    /// * Croda: men on ranks 1–3 and 6–8 (24 a side);
    /// * Dameo: the trapezoid a1–h1, b2–g2, c3–f3 and its mirror a8–h8,
    ///   b7–g7, c6–f6 (18 a side).
    ///
    /// ```text
    ///   Dameo      a b c d e f g h
    ///            8 b b b b b b b b
    ///            7 . b b b b b b .
    ///            6 . . b b b b . .
    ///            5 . . . . . . . .
    ///            4 . . . . . . . .
    ///            3 . . w w w w . .
    ///            2 . w w w w w w .
    ///            1 w w w w w w w w
    /// ```
    pub fn startpos_with_rules(rules: Rules) -> Position {
        let (white, black) = Position::initial_sets(rules.variant);
        let mut pos = Position {
            by_color: ByColor {
                white: Bitboard(white),
                black: Bitboard(black),
            },
            kings: Bitboard::EMPTY,
            turn: Color::White,
            rules,
            plies_since_capture: 0,
            ply: 0,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        pos
    }

    /// The White and Black men of `variant`'s initial position.
    const fn initial_sets(variant: Variant) -> (u64, u64) {
        match variant {
            Variant::Turkish | Variant::Armenian => (0xffff << 8, 0xffff << 40),
            Variant::Croda => (0xff_ffff, 0xff_ffff << 40),
            // a1-h1, b2-g2, c3-f3 and the mirror image.
            Variant::Dameo => (
                0xff | (0x7e << 8) | (0x3c << 16),
                (0xff << 56) | (0x7e << 48) | (0x3c << 40),
            ),
        }
    }

    /// Whether this position holds exactly the pieces and side to move of the
    /// initial position of its variant.
    pub fn is_initial(&self) -> bool {
        let (white, black) = Position::initial_sets(self.rules.variant);
        self.by_color.white.0 == white
            && self.by_color.black.0 == black
            && self.kings.is_empty()
            && self.turn == Color::White
    }

    /// A position from the sets of White pieces, Black pieces and kings, with
    /// the default (Turkish) rules and zeroed counters.
    ///
    /// # Errors
    ///
    /// As [`Position::from_bitboards_with_rules`] under the default rules.
    pub fn from_bitboards(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        turn: Color,
    ) -> Result<Position, PositionError> {
        Position::from_bitboards_with_rules(white, black, kings, turn, Rules::default())
    }

    /// A position from the sets of White pieces, Black pieces and kings under
    /// `rules`, with zeroed counters.
    ///
    /// # Errors
    ///
    /// [`PositionError`] if two pieces share a square (`kings` outside the
    /// pieces counts as such a conflict), a man stands on its promotion row,
    /// or a side has more pieces than the variant starts with
    /// ([`Variant::max_pieces`]).
    pub fn from_bitboards_with_rules(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        turn: Color,
        rules: Rules,
    ) -> Result<Position, PositionError> {
        if let Some(sq) = (white & black).first() {
            return Err(PositionError::Overlap(sq));
        }
        if let Some(sq) = (kings - (white | black)).first() {
            // A king with no colour: report it as a conflict on that square.
            return Err(PositionError::Overlap(sq));
        }
        Position::check_counts(white, black, rules.variant)?;
        if let Some(sq) = ((white - kings) & Bitboard::RANK_8).first() {
            return Err(PositionError::ManOnPromotionRow {
                color: Color::White,
                square: sq,
            });
        }
        if let Some(sq) = ((black - kings) & Bitboard::RANK_1).first() {
            return Err(PositionError::ManOnPromotionRow {
                color: Color::Black,
                square: sq,
            });
        }
        let mut pos = Position {
            by_color: ByColor { white, black },
            kings,
            turn,
            rules,
            plies_since_capture: 0,
            ply: turn.index() as u32,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    fn check_counts(
        white: Bitboard,
        black: Bitboard,
        variant: Variant,
    ) -> Result<(), PositionError> {
        for (color, bb) in [(Color::White, white), (Color::Black, black)] {
            if bb.count() > variant.max_pieces() {
                return Err(PositionError::TooManyPieces {
                    color,
                    count: bb.count(),
                    max: variant.max_pieces(),
                    variant,
                });
            }
        }
        Ok(())
    }

    /// A position from a list of pieces, under the default rules.
    ///
    /// # Errors
    ///
    /// As [`Position::from_bitboards`]; a square listed twice is an overlap.
    pub fn from_pieces(
        pieces: impl IntoIterator<Item = (Square, Piece)>,
        turn: Color,
    ) -> Result<Position, PositionError> {
        Position::from_pieces_with_rules(pieces, turn, Rules::default())
    }

    /// A position from a list of pieces, under `rules`.
    ///
    /// # Errors
    ///
    /// As [`Position::from_bitboards_with_rules`]; a square listed twice is an
    /// overlap.
    pub fn from_pieces_with_rules(
        pieces: impl IntoIterator<Item = (Square, Piece)>,
        turn: Color,
        rules: Rules,
    ) -> Result<Position, PositionError> {
        let mut by_color = ByColor::<Bitboard>::default();
        let mut kings = Bitboard::EMPTY;
        for (sq, piece) in pieces {
            if by_color.white.contains(sq) || by_color.black.contains(sq) {
                return Err(PositionError::Overlap(sq));
            }
            by_color[piece.color].add(sq);
            if piece.role == Role::King {
                kings.add(sq);
            }
        }
        Position::from_bitboards_with_rules(by_color.white, by_color.black, kings, turn, rules)
    }

    /// The same position under other rules, unchecked: use
    /// [`Position::try_with_rules`] for a position or rules from outside.
    /// Under a variant where the position cannot occur (more pieces than that
    /// variant has), nothing panics, but a capture longer than
    /// [`MAX_CAPTURES`](crate::MAX_CAPTURES) would be cut short.
    #[must_use]
    pub fn with_rules(mut self, rules: Rules) -> Position {
        self.rules = rules;
        self
    }

    /// The same position under other rules, if it can be a position of
    /// `rules.variant`.
    ///
    /// # Errors
    ///
    /// [`PositionError::TooManyPieces`] if a side has more pieces than the
    /// variant starts with (the only check that depends on the variant).
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_engine::{Position, Rules, Variant};
    ///
    /// let croda = Position::startpos_with_rules(Rules::for_variant(Variant::Croda));
    /// assert!(croda.try_with_rules(Rules::default()).is_err()); // 24 men a side
    /// assert!(Position::startpos().try_with_rules(Rules::for_variant(Variant::Croda)).is_ok());
    /// ```
    pub fn try_with_rules(self, rules: Rules) -> Result<Position, PositionError> {
        Position::check_counts(self.by_color.white, self.by_color.black, rules.variant)?;
        Ok(self.with_rules(rules))
    }

    /// The same position with the counters set: plies since the last capture
    /// and the ply number (see [`Position::ply`]; it is rounded up to the
    /// parity of the side to move).
    #[must_use]
    pub fn with_counters(mut self, plies_since_capture: u16, ply: u32) -> Position {
        self.plies_since_capture = plies_since_capture;
        self.ply = ply + ((ply ^ self.turn.index() as u32) & 1);
        self
    }

    /// The rules in force.
    #[inline]
    pub const fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The side to move.
    #[inline]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The pieces of `color`.
    #[inline]
    pub const fn pieces(&self, color: Color) -> Bitboard {
        *self.by_color.get(color)
    }

    /// The pieces of the side to move.
    #[inline]
    pub const fn us(&self) -> Bitboard {
        self.pieces(self.turn)
    }

    /// The pieces of the side not to move.
    #[inline]
    pub const fn them(&self) -> Bitboard {
        self.pieces(self.turn.other())
    }

    /// All kings, of both colours.
    #[inline]
    pub const fn kings(&self) -> Bitboard {
        self.kings
    }

    /// All men, of both colours.
    #[inline]
    pub fn men(&self) -> Bitboard {
        self.occupied() - self.kings
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }

    /// The pieces of `color` with role `role`.
    #[inline]
    pub fn pieces_of(&self, color: Color, role: Role) -> Bitboard {
        match role {
            Role::King => self.pieces(color) & self.kings,
            Role::Man => self.pieces(color) - self.kings,
        }
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.by_color.white.contains(sq) {
            Color::White
        } else if self.by_color.black.contains(sq) {
            Color::Black
        } else {
            return None;
        };
        let role = if self.kings.contains(sq) {
            Role::King
        } else {
            Role::Man
        };
        Some(Piece { color, role })
    }

    /// Consecutive plies played without a capture (for the no-capture draw).
    #[inline]
    pub const fn plies_since_capture(&self) -> u16 {
        self.plies_since_capture
    }

    /// The ply number: 0 before White's first move, 1 before Black's first
    /// move, and so on; even exactly when White is to move. A position built
    /// with Black to move starts at 1.
    #[inline]
    pub const fn ply(&self) -> u32 {
        self.ply
    }

    /// The move number of a game record (1 for the first pair of plies).
    #[inline]
    pub const fn fullmove_number(&self) -> u32 {
        self.ply / 2 + 1
    }

    /// The Zobrist hash of the pieces and the side to move (not the counters
    /// or rules).
    #[inline]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The Zobrist hash computed from scratch (equal to [`Position::hash`]).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for color in Color::ALL {
            for sq in self.pieces(color) {
                let role = if self.kings.contains(sq) {
                    Role::King
                } else {
                    Role::Man
                };
                h ^= zobrist::piece(color, role, sq);
            }
        }
        if self.turn == Color::Black {
            h ^= zobrist::black_to_move();
        }
        h
    }

    /// The legal moves, following the mandatory and maximum capture rules.
    /// Capture sequences that share `from`, `to` and the captured set are
    /// listed once (see [`Move`]).
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Writes the legal moves into `list` (cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        generate_for(
            &self.rules,
            self.turn,
            self.us().0,
            self.them().0,
            self.kings.0,
            list,
        );
    }

    /// Whether the side to move must capture.
    pub fn has_capture(&self) -> bool {
        self.can_capture(self.turn)
    }

    /// Whether the side that just moved could capture if it were to move
    /// again: a threat the side to move must answer.
    pub fn has_threat(&self) -> bool {
        self.can_capture(!self.turn)
    }

    /// Whether `side` has a capture on this board (whoever is to move).
    #[inline]
    fn can_capture(&self, side: Color) -> bool {
        let (us, them, kings) = (self.pieces(side).0, self.pieces(!side).0, self.kings.0);
        if self.rules.variant.orthogonal_family() {
            let man_back = self.rules.men_capture_backward();
            return match side {
                Color::White => ortho::has_capture::<movegen::White>(us, them, kings, man_back),
                Color::Black => ortho::has_capture::<movegen::Black>(us, them, kings, man_back),
            };
        }
        match side {
            Color::White => movegen::has_capture::<movegen::White>(us, them, kings),
            Color::Black => movegen::has_capture::<movegen::Black>(us, them, kings),
        }
    }

    /// Whether `m` is one of the legal moves.
    pub fn is_legal(&self, m: &Move) -> bool {
        self.legal_moves().contains(m)
    }

    /// Plays a move from [`Position::legal_moves`], with no checks.
    ///
    /// # Panics
    ///
    /// Does not panic, but a move that is not legal here leaves a corrupt
    /// position behind (debug builds assert that the moving piece exists).
    /// Use [`Position::try_play`] for moves from outside.
    #[inline]
    pub fn play_unchecked(&mut self, m: &Move) {
        let us = self.turn;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        debug_assert!(self.pieces(us).contains(from));
        // Captured pieces first: the mover may end on a square it emptied.
        let captured = m.captured();
        if captured.any() {
            for sq in captured {
                let role = if self.kings.contains(sq) {
                    Role::King
                } else {
                    Role::Man
                };
                self.hash ^= zobrist::piece(them, role, sq);
            }
            *self.by_color.get_mut(them) = self.pieces(them) - captured;
            self.kings = self.kings - captured;
            self.plies_since_capture = 0;
        } else {
            self.plies_since_capture = self.plies_since_capture.saturating_add(1);
        }
        let mv = Bitboard::from_square(from) ^ Bitboard::from_square(to);
        *self.by_color.get_mut(us) ^= mv;
        self.hash ^= zobrist::piece(us, m.role(), from);
        let final_role = if m.promotes() { Role::King } else { m.role() };
        self.hash ^= zobrist::piece(us, final_role, to);
        if m.role() == Role::King {
            self.kings ^= mv;
        }
        if m.promotes() {
            self.kings.add(to);
        }
        self.turn = them;
        self.hash ^= zobrist::black_to_move();
        self.ply = self.ply.saturating_add(1);
    }

    /// Plays `m` if it is legal.
    ///
    /// # Errors
    ///
    /// [`PlayError::IllegalMove`] if `m` is not legal; the position is then
    /// unchanged.
    pub fn try_play(&mut self, m: &Move) -> Result<(), PlayError> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(PlayError::IllegalMove(m.to_string()))
        }
    }

    /// The position after `m`, if `m` is legal.
    ///
    /// # Errors
    ///
    /// [`PlayError::IllegalMove`] if `m` is not legal.
    pub fn play(&self, m: &Move) -> Result<Position, PlayError> {
        let mut p = *self;
        p.try_play(m)?;
        Ok(p)
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        self.side_can_move(self.turn, self.us().0, self.them().0)
    }

    fn side_can_move(&self, turn: Color, us: u64, them: u64) -> bool {
        let mut list = MoveList::new();
        generate_for(&self.rules, turn, us, them, self.kings.0, &mut list);
        !list.is_empty()
    }

    /// How the game stands in this position, from the rules that need no
    /// history: no pieces or blocked (a loss), mutual block, one piece each,
    /// and the no-capture limit. Threefold repetition needs a [`Game`](crate::Game).
    pub fn termination(&self) -> Option<(Outcome, Termination)> {
        let us = self.turn;
        let them = us.other();
        if self.us().is_empty() {
            return Some((Outcome::Decisive { winner: them }, Termination::NoPieces));
        }
        if self.them().is_empty() {
            // Only reachable in hand-made positions.
            return Some((Outcome::Decisive { winner: us }, Termination::NoPieces));
        }
        if self.us().count() == 1 && self.them().count() == 1 {
            match self.rules.one_piece_each {
                OnePieceEachRule::PlayOn => {}
                OnePieceEachRule::Draw => return Some((Outcome::Draw, Termination::OnePieceEach)),
                OnePieceEachRule::KingBeatsMan => {
                    let our_king = (self.us() & self.kings).any();
                    let their_king = (self.them() & self.kings).any();
                    if our_king == their_king {
                        return Some((Outcome::Draw, Termination::OnePieceEach));
                    }
                    if !self.has_capture() {
                        let winner = if our_king { us } else { them };
                        return Some((Outcome::Decisive { winner }, Termination::KingBeatsMan));
                    }
                }
            }
        }
        if !self.has_legal_move() {
            let they_can_move = self.side_can_move(them, self.them().0, self.us().0);
            return if they_can_move {
                Some((Outcome::Decisive { winner: them }, Termination::Blocked))
            } else {
                Some((Outcome::Draw, Termination::MutualBlock))
            };
        }
        if let Some(limit) = self.rules.no_capture_limit.filter(|&l| l > 0) {
            if self.plies_since_capture >= limit {
                return Some((Outcome::Draw, Termination::NoCaptureLimit));
            }
        }
        None
    }

    /// The outcome, if the game is over in this position (see
    /// [`Position::termination`]).
    pub fn outcome(&self) -> Option<Outcome> {
        self.termination().map(|(o, _)| o)
    }

    /// Whether the game is over in this position.
    pub fn is_game_over(&self) -> bool {
        self.termination().is_some()
    }

    /// The position mirrored left to right (a ↔ h). The rules of the game are
    /// symmetric under this mirror, so legal moves map onto legal moves.
    #[must_use]
    pub fn flip_horizontal(&self) -> Position {
        let mut p = *self;
        p.by_color.white = p.by_color.white.flip_horizontal();
        p.by_color.black = p.by_color.black.flip_horizontal();
        p.kings = p.kings.flip_horizontal();
        p.hash = p.compute_hash();
        p
    }

    /// The position with colours swapped and the board turned by 180 degrees,
    /// so the side to move changes colour but sees the same game.
    #[must_use]
    pub fn flip_colors(&self) -> Position {
        let mut p = *self;
        p.by_color = ByColor {
            white: self.by_color.black.rotate_180(),
            black: self.by_color.white.rotate_180(),
        };
        p.kings = self.kings.rotate_180();
        p.turn = self.turn.other();
        p.hash = p.compute_hash();
        p.with_counters(self.plies_since_capture, self.ply)
    }
}

/// Legal moves for `turn` under `rules`, into `out` (cleared first).
pub(crate) fn generate_for(
    rules: &Rules,
    turn: Color,
    us: u64,
    them: u64,
    kings: u64,
    out: &mut MoveList,
) {
    use movegen::{Black, White};
    match rules.variant {
        Variant::Turkish | Variant::Armenian => {
            let cak = rules.continue_as_king();
            let arm = rules.variant == Variant::Armenian;
            match (turn, arm) {
                (Color::White, false) => {
                    movegen::generate::<White, MoveList, false>(us, them, kings, cak, out)
                }
                (Color::Black, false) => {
                    movegen::generate::<Black, MoveList, false>(us, them, kings, cak, out)
                }
                (Color::White, true) => {
                    movegen::generate::<White, MoveList, true>(us, them, kings, cak, out)
                }
                (Color::Black, true) => {
                    movegen::generate::<Black, MoveList, true>(us, them, kings, cak, out)
                }
            }
        }
        Variant::Croda | Variant::Dameo => {
            let cfg = ortho::Config::new(rules);
            match turn {
                Color::White => ortho::generate::<White, MoveList>(us, them, kings, cfg, out),
                Color::Black => ortho::generate::<Black, MoveList>(us, them, kings, cfg, out),
            }
        }
    }
}
