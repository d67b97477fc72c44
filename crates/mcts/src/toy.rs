//! Tiny solved games for tests, examples and benchmarks.

use crate::game::Game;
use crate::value::{Outcome, Player};

/// Nim with a bonus: players take 1, 2 or 3 tokens from one heap; whoever
/// takes the last token wins; taking 3 tokens and leaving an odd heap earns
/// another action (the same player acts again), so players do not
/// alternate.
///
/// Heaps 5, 8, 13, 16, 21, 24 are lost for the player to act; in several
/// won heaps (4, 11, 12, 19, 20) the only winning action is the bonus one.
///
/// Small enough to solve exactly (see [`BonusNim::solve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BonusNim {
    /// Tokens left.
    pub heap: u32,
    /// The player to act.
    pub to_play: Player,
    /// The player who took the last token, once the heap is empty.
    pub last: Player,
}

impl BonusNim {
    /// A heap of `heap` tokens, [`Player::First`] to act.
    #[must_use]
    pub fn new(heap: u32) -> Self {
        BonusNim {
            heap,
            to_play: Player::First,
            last: Player::Second,
        }
    }

    /// Whether the player to act wins with perfect play, by exhaustive
    /// search (exponential; fine for heaps up to about 25).
    #[must_use]
    pub fn solve(&self) -> bool {
        if let Some(Outcome::Win(p)) = self.outcome() {
            return p == self.to_play;
        }
        let mut actions = Vec::new();
        self.legal_actions(&mut actions);
        actions.into_iter().any(|a| self.action_wins(a))
    }

    /// Whether `action` keeps a win for the player to act.
    #[must_use]
    pub fn action_wins(&self, action: u32) -> bool {
        let mut next = *self;
        next.apply(action);
        next.solve() == (next.to_play == self.to_play)
    }
}

impl Game for BonusNim {
    type Action = u32;

    fn to_play(&self) -> Player {
        self.to_play
    }

    fn legal_actions(&self, out: &mut Vec<u32>) {
        out.extend((1..=3).filter(|&k| k <= self.heap));
    }

    fn apply(&mut self, action: u32) {
        self.heap -= action;
        self.last = self.to_play;
        if action != 3 || self.heap.is_multiple_of(2) {
            self.to_play = self.to_play.other();
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.heap == 0).then_some(Outcome::Win(self.last))
    }

    fn hash(&self) -> u64 {
        u64::from(self.heap) * 2 + u64::from(self.to_play == Player::Second)
    }
}

/// Tic-tac-toe; squares 0..9 row by row, [`Player::First`] is X.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TicTacToe {
    /// X's squares as a 9-bit set.
    pub x: u16,
    /// O's squares as a 9-bit set.
    pub o: u16,
}

const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

impl TicTacToe {
    /// Builds a board from 9 characters `X`, `O` or `.` (row by row);
    /// `None` if malformed.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        let mut t = TicTacToe::default();
        let cells: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != 9 {
            return None;
        }
        for (i, c) in cells.into_iter().enumerate() {
            match c {
                'X' | 'x' => t.x |= 1 << i,
                'O' | 'o' => t.o |= 1 << i,
                '.' => {}
                _ => return None,
            }
        }
        Some(t)
    }

    /// The exact value for the player to move: 1 win, 0 draw, −1 loss.
    #[must_use]
    pub fn solve(&self) -> i32 {
        if let Some(o) = self.outcome() {
            return match o {
                Outcome::Draw => 0,
                Outcome::Win(p) if p == self.to_play() => 1,
                Outcome::Win(_) => -1,
            };
        }
        let mut actions = Vec::new();
        self.legal_actions(&mut actions);
        actions
            .into_iter()
            .map(|a| {
                let mut n = *self;
                n.apply(a);
                -n.solve()
            })
            .max()
            .unwrap_or(0)
    }
}

impl Game for TicTacToe {
    type Action = u8;

    fn to_play(&self) -> Player {
        if self.x.count_ones() > self.o.count_ones() {
            Player::Second
        } else {
            Player::First
        }
    }

    fn legal_actions(&self, out: &mut Vec<u8>) {
        let full = self.x | self.o;
        out.extend((0..9u8).filter(|&i| full & (1 << i) == 0));
    }

    fn apply(&mut self, action: u8) {
        match self.to_play() {
            Player::First => self.x |= 1 << action,
            Player::Second => self.o |= 1 << action,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        for line in LINES {
            if self.x & line == line {
                return Some(Outcome::Win(Player::First));
            }
            if self.o & line == line {
                return Some(Outcome::Win(Player::Second));
            }
        }
        ((self.x | self.o) == 0x1ff).then_some(Outcome::Draw)
    }

    fn hash(&self) -> u64 {
        u64::from(self.x) | u64::from(self.o) << 9
    }
}
