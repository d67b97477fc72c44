//! Helpers shared by the integration tests: a deliberately naive reference
//! move generator (arrays and recursion, no bitboards), random playouts, and
//! conversions.
//!
//! The reference generator is written from the rules text only and shares no
//! code with the engine's generator: it represents the board as 64 cells and
//! every move by the board it leaves behind.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

pub mod variants;

use dama_engine::{Color, Position, Role, Square};
use rand::seq::SliceRandom;
use rand::Rng;

/// A cell: 0 empty, 1 white man, 2 white king, 3 black man, 4 black king.
pub type Cells = [u8; 64];

/// A naive board: cells plus the side to move (true = White).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Naive {
    pub cells: Cells,
    pub white: bool,
}

const EMPTY: u8 = 0;

fn color_of(c: u8) -> Option<bool> {
    match c {
        1 | 2 => Some(true),
        3 | 4 => Some(false),
        _ => None,
    }
}

fn is_king(c: u8) -> bool {
    c == 2 || c == 4
}

fn idx(f: i32, r: i32) -> usize {
    (r * 8 + f) as usize
}

fn on_board(f: i32, r: i32) -> bool {
    (0..8).contains(&f) && (0..8).contains(&r)
}

/// (df, dr) for North, East, South, West.
const DIRS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

impl Naive {
    pub fn from_position(pos: &Position) -> Naive {
        let mut cells = [EMPTY; 64];
        for sq in Square::ALL {
            if let Some(p) = pos.piece_at(sq) {
                cells[sq.index() as usize] = match (p.color, p.role) {
                    (Color::White, Role::Man) => 1,
                    (Color::White, Role::King) => 2,
                    (Color::Black, Role::Man) => 3,
                    (Color::Black, Role::King) => 4,
                };
            }
        }
        Naive {
            cells,
            white: pos.turn() == Color::White,
        }
    }

    /// The boards reachable in one legal move (distinct boards), under the
    /// default promotion rule (`continue_as_king == false`) or the other.
    pub fn children(&self, continue_as_king: bool) -> BTreeSet<Naive> {
        let mut best = 0usize;
        let mut caps: BTreeSet<Naive> = BTreeSet::new();
        for r in 0..8 {
            for f in 0..8 {
                let c = self.cells[idx(f, r)];
                if color_of(c) != Some(self.white) {
                    continue;
                }
                let mut board = self.cells;
                board[idx(f, r)] = EMPTY;
                self.capture_dfs(
                    &mut board,
                    f,
                    r,
                    is_king(c),
                    is_king(c),
                    None,
                    0,
                    continue_as_king,
                    &mut best,
                    &mut caps,
                );
            }
        }
        if best > 0 {
            return caps;
        }
        let mut quiet = BTreeSet::new();
        let forward = if self.white { 1 } else { -1 };
        for r in 0..8 {
            for f in 0..8 {
                let c = self.cells[idx(f, r)];
                if color_of(c) != Some(self.white) {
                    continue;
                }
                for (df, dr) in DIRS {
                    if !is_king(c) {
                        if dr == -forward {
                            continue;
                        }
                        let (nf, nr) = (f + df, r + dr);
                        if on_board(nf, nr) && self.cells[idx(nf, nr)] == EMPTY {
                            let mut b = self.cells;
                            b[idx(f, r)] = EMPTY;
                            b[idx(nf, nr)] = self.placed(c, nr);
                            quiet.insert(Naive {
                                cells: b,
                                white: !self.white,
                            });
                        }
                    } else {
                        let (mut nf, mut nr) = (f + df, r + dr);
                        while on_board(nf, nr) && self.cells[idx(nf, nr)] == EMPTY {
                            let mut b = self.cells;
                            b[idx(f, r)] = EMPTY;
                            b[idx(nf, nr)] = c;
                            quiet.insert(Naive {
                                cells: b,
                                white: !self.white,
                            });
                            nf += df;
                            nr += dr;
                        }
                    }
                }
            }
        }
        quiet
    }

    /// The piece code after a man of `c` ends its move on rank `r`.
    fn placed(&self, c: u8, r: i32) -> u8 {
        let last = if self.white { 7 } else { 0 };
        if r == last && !is_king(c) {
            c + 1
        } else {
            c
        }
    }

    /// Explores capture sequences. `board` has the moving piece lifted and
    /// captured pieces removed. `king_now` is whether the piece jumps as a
    /// king; `was_king` whether it started as one.
    #[allow(clippy::too_many_arguments)]
    fn capture_dfs(
        &self,
        board: &mut Cells,
        f: i32,
        r: i32,
        king_now: bool,
        was_king: bool,
        last: Option<(i32, i32)>,
        count: usize,
        cak: bool,
        best: &mut usize,
        out: &mut BTreeSet<Naive>,
    ) {
        let forward = if self.white { 1 } else { -1 };
        let promo_rank = if self.white { 7 } else { 0 };
        let mut jumped = false;
        for (df, dr) in DIRS {
            if let Some((lf, lr)) = last {
                if (df, dr) == (-lf, -lr) {
                    continue; // no 180-degree turn
                }
            }
            if !king_now && dr == -forward {
                continue; // men never jump backward
            }
            // Find the piece to jump and the landing squares.
            let (mut tf, mut tr) = (f + df, r + dr);
            if king_now {
                while on_board(tf, tr) && board[idx(tf, tr)] == EMPTY {
                    tf += df;
                    tr += dr;
                }
            }
            if !on_board(tf, tr) {
                continue;
            }
            let target = board[idx(tf, tr)];
            if color_of(target) != Some(!self.white) {
                continue;
            }
            let mut landings = Vec::new();
            let (mut lf, mut lr) = (tf + df, tr + dr);
            while on_board(lf, lr) && board[idx(lf, lr)] == EMPTY {
                landings.push((lf, lr));
                if !king_now {
                    break;
                }
                lf += df;
                lr += dr;
            }
            for (lf, lr) in landings {
                jumped = true;
                board[idx(tf, tr)] = EMPTY; // removed at once
                let crowned_now = !king_now && cak && lr == promo_rank;
                self.capture_dfs(
                    board,
                    lf,
                    lr,
                    king_now || crowned_now,
                    was_king,
                    Some((df, dr)),
                    count + 1,
                    cak,
                    best,
                    out,
                );
                board[idx(tf, tr)] = target;
            }
        }
        if !jumped && count > 0 {
            if count < *best {
                return;
            }
            if count > *best {
                *best = count;
                out.clear();
            }
            let mut b = *board;
            let me = if self.white { 1 } else { 3 };
            let ends_king = was_king || king_now || r == promo_rank;
            b[idx(f, r)] = if ends_king { me + 1 } else { me };
            out.insert(Naive {
                cells: b,
                white: !self.white,
            });
        }
    }

    /// Naive perft: distinct boards at each ply.
    pub fn perft(&self, depth: u32, cak: bool) -> u64 {
        if depth == 0 {
            return 1;
        }
        let children = self.children(cak);
        if depth == 1 {
            return children.len() as u64;
        }
        children.iter().map(|c| c.perft(depth - 1, cak)).sum()
    }
}

/// Whether the side that just moved in `pos` could capture were the turn
/// passed back to it: a capture among the legal moves of the same board
/// with the other side to move.
pub fn passed_turn_has_capture(pos: &Position) -> bool {
    let passed = Position::from_bitboards_with_rules(
        pos.pieces(Color::White),
        pos.pieces(Color::Black),
        pos.kings(),
        !pos.turn(),
        *pos.rules(),
    )
    .unwrap();
    passed.legal_moves().iter().any(|m| m.is_capture())
}

/// The naive view of the engine's children of `pos`.
pub fn engine_children(pos: &Position) -> BTreeSet<Naive> {
    pos.legal_moves()
        .iter()
        .map(|m| {
            let mut c = *pos;
            c.play_unchecked(m);
            Naive::from_position(&c)
        })
        .collect()
}

/// Positions from random playouts (uniform random legal moves) from the
/// start, `games` games of at most `max_plies` plies; every position visited.
pub fn random_playout_positions(
    rng: &mut impl Rng,
    games: usize,
    max_plies: usize,
    rules: dama_engine::Rules,
) -> Vec<Position> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos_with_rules(rules);
        for _ in 0..max_plies {
            out.push(pos);
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(rng) else { break };
            pos.play_unchecked(m);
        }
    }
    out
}

/// A random position with a few pieces of each side, kings likely; men never
/// on their promotion row (impossible) nor on their own back row
/// (unreachable: men never move backward); `turn` random.
pub fn random_sparse_position(rng: &mut impl Rng, rules: dama_engine::Rules) -> Position {
    loop {
        let mut squares: Vec<Square> = Square::ALL.to_vec();
        squares.shuffle(rng);
        let nw = rng.gen_range(1..=10);
        let nb = rng.gen_range(1..=10);
        let mut pieces = Vec::new();
        for (i, sq) in squares.iter().take(nw + nb).enumerate() {
            let color = if i < nw { Color::White } else { Color::Black };
            let king_prob = rng.gen_range(0.0..1.0);
            let mut role = if king_prob < 0.4 {
                Role::King
            } else {
                Role::Man
            };
            if sq.is_promotion_row(color) || sq.is_promotion_row(!color) {
                role = Role::King;
            }
            pieces.push((*sq, dama_engine::Piece { color, role }));
        }
        let turn = if rng.gen_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(p) = Position::from_pieces(pieces, turn) {
            return p.with_rules(rules);
        }
    }
}

/// One record of a `tests/data/*.perft` file.
#[derive(Clone, Debug)]
pub struct PerftCase {
    pub file: String,
    pub id: String,
    pub epd: String,
    pub rules: dama_engine::Rules,
    pub clock: u16,
    /// `(result token, termination name)`.
    pub result: Option<(String, String)>,
    pub perft: Vec<(u32, Option<u64>)>,
}

impl PerftCase {
    pub fn position(&self) -> Position {
        let pos = Position::from_str_with_rules(&self.epd, self.rules)
            .unwrap_or_else(|e| panic!("{}: {}: bad epd: {e}", self.file, self.id));
        pos.with_counters(self.clock, 0)
    }

    pub fn continue_as_king(&self) -> bool {
        self.rules.promotion_mid_capture == dama_engine::MidCapturePromotion::ContinueAsKing
    }
}

/// Reads the shakmaty-style perft files: records separated by blank lines,
/// `# comments`, lines `id NAME`, `epd POSITION`, optional `rules TOKENS`
/// (`continue-as-king`, `king-beats-man`, `no-capture-limit N|off`),
/// optional `clock N` (plies since the last capture), optional
/// `result TOKEN TERMINATION`, and `perft DEPTH NODES` (`?` = not yet known).
pub fn read_perft_files() -> Vec<PerftCase> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "perft"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        out.extend(parse_perft_text(&file, &text));
    }
    out
}

pub fn parse_perft_text(file: &str, text: &str) -> Vec<PerftCase> {
    let mut out = Vec::new();
    let mut cur: Option<PerftCase> = None;
    for line in text.lines().chain(std::iter::once("")) {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if let Some(c) = cur.take() {
                out.push(c);
            }
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let c = cur.get_or_insert_with(|| PerftCase {
            file: file.to_owned(),
            id: String::new(),
            epd: String::new(),
            rules: dama_engine::Rules::default(),
            clock: 0,
            result: None,
            perft: Vec::new(),
        });
        match key {
            "id" => c.id = rest.to_owned(),
            "epd" => c.epd = rest.to_owned(),
            "clock" => c.clock = rest.parse().unwrap(),
            "rules" if rest.contains('=') => {
                c.rules = rest
                    .parse()
                    .unwrap_or_else(|e| panic!("{file}: bad rules {rest}: {e}"));
            }
            "rules" => {
                let mut toks = rest.split_whitespace();
                while let Some(t) = toks.next() {
                    match t {
                        "continue-as-king" => {
                            c.rules.promotion_mid_capture =
                                dama_engine::MidCapturePromotion::ContinueAsKing
                        }
                        "king-beats-man" => {
                            c.rules.one_piece_each = dama_engine::OnePieceEachRule::KingBeatsMan
                        }
                        "no-capture-limit" => {
                            let v = toks.next().unwrap();
                            c.rules.no_capture_limit = if v == "off" {
                                None
                            } else {
                                Some(v.parse().unwrap())
                            };
                        }
                        other => panic!("{file}: unknown rule {other}"),
                    }
                }
            }
            "result" => {
                let (a, b) = rest.split_once(' ').unwrap();
                c.result = Some((a.to_owned(), b.to_owned()));
            }
            "perft" => {
                let (d, n) = rest.split_once(' ').unwrap();
                let n = if n == "?" {
                    None
                } else {
                    Some(n.parse().unwrap())
                };
                c.perft.push((d.parse().unwrap(), n));
            }
            other => panic!("{file}: unknown key {other}"),
        }
    }
    out
}
