//! Turkish Tafl behind the game seam: [`Tafl`] implements
//! [`dama_game::GameDef`].

use std::sync::Arc;

use dama_game::{
    DecisionSquares, EndReason, Ending, GameDef, GameError, Geometry, IncompleteTurn, MoveSquares,
    OwnError, OwnFactory, OwnSpec, Piece, PieceKind, RuleOptionInfo, RuleOptionValues, SideInfo,
};
use dama_mcts::{Outcome, Player};

use crate::search::{player, TaflState};
use crate::{Game, Move, MoveKind, Position, Side, Square, Step, TaflRules, Termination};

/// Turkish Tafl, as every layer above the rules sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tafl;

impl GameDef for Tafl {
    const NAME: &'static str = "tafl";
    const TITLE: &'static str = "Turkish Tafl";
    const ENCODING_VERSION: u32 = crate::encode::TAFL_ENCODING_VERSION;

    type Rules = TaflRules;
    type Game = Game;
    type Move = Move;
    type State = TaflState;
    type Tables = ();

    fn start(rules: &TaflRules) -> Game {
        Game::new(*rules)
    }

    fn rules(game: &Game) -> TaflRules {
        *game.rules()
    }

    fn parse_rules(text: &str) -> Result<TaflRules, GameError> {
        Ok(text.parse::<TaflRules>()?)
    }

    /// [`TaflRules::OPTIONS`]: words, but the ply limit is a count.
    fn rule_options() -> Vec<RuleOptionInfo> {
        TaflRules::OPTIONS
            .iter()
            .map(|&(key, values)| RuleOptionInfo {
                key,
                about: "",
                values: if key == "ply_limit" {
                    RuleOptionValues::Count {
                        min: 1,
                        max: crate::rules::MAX_PLY_LIMIT,
                    }
                } else {
                    RuleOptionValues::Choice(values)
                },
                default: values[0],
            })
            .collect()
    }

    fn to_play(game: &Game) -> Player {
        player(game.turn())
    }

    fn outcome(game: &Game) -> Option<Outcome> {
        let o = game.outcome()?;
        Some(match o.winner {
            Some(s) => Outcome::Win(player(s)),
            None => Outcome::Draw,
        })
    }

    fn plies(game: &Game) -> usize {
        game.moves().len()
    }

    fn legal_moves(game: &Game) -> Vec<Move> {
        game.legal_moves()
    }

    fn play(game: &mut Game, mv: &Move) -> Result<(), GameError> {
        Ok(game.play(mv)?)
    }

    fn parse_move(game: &Game, text: &str) -> Result<Move, GameError> {
        Ok(game.parse_move(text)?)
    }

    fn position_text(game: &Game) -> String {
        game.position().to_string()
    }

    /// `startpos` is the start under `rules` (whichever side they let move
    /// first).
    fn parse_position(rules: &TaflRules, text: &str) -> Result<Game, GameError> {
        if text.trim() == "startpos" {
            return Ok(Game::new(*rules));
        }
        let position: Position = text.parse()?;
        Ok(Game::from_position(position, *rules))
    }

    fn search_state(game: &Game) -> TaflState {
        TaflState::new(game.clone())
    }

    fn game_of(state: &TaflState) -> &Game {
        state.game()
    }

    fn start_text(game: &Game) -> String {
        game.start_position().to_string()
    }

    fn history(game: &Game) -> &[Move] {
        game.moves()
    }

    fn ending(game: &Game) -> Option<Ending> {
        let termination = game.outcome()?.termination;
        let reason = match termination {
            Termination::NoMoves => EndReason::NoMoves,
            Termination::Repetition => EndReason::Repetition,
            Termination::KingEscaped
            | Termination::KingSurrounded
            | Termination::Locked
            | Termination::PlyLimit => EndReason::Other,
        };
        Some(Ending::new(reason, format!("{termination:?}")))
    }

    fn complete_turn(game: &Game, decisions: &[Step]) -> Result<Move, GameError> {
        let mut g = game.clone();
        let before = g.moves().len();
        for &step in decisions {
            g.play_step(step)?;
        }
        if g.moves().len() != before + 1 {
            return Err(IncompleteTurn.into());
        }
        Ok(g.moves()[before].clone())
    }

    fn perft(game: &Game, depth: u32) -> u64 {
        crate::perft(game, depth)
    }

    fn geometry() -> Geometry {
        Geometry {
            width: crate::COLUMNS,
            height: crate::ROWS,
            sides: [
                SideInfo {
                    name: "Defenders",
                    key: "defender",
                },
                SideInfo {
                    name: "King side",
                    key: "king_side",
                },
            ],
        }
    }

    fn tournament() -> Option<dama_game::TournamentPoints<Self>> {
        Some(|game| crate::tournament_score(game).map(|(_, points)| points))
    }

    fn encoding_notes() -> &'static str {
        "- The board is never turned (`crates/tafl/src/encode.rs`; from Python, `dama.Game(\"tafl\").encode()` of dama's module): plane row = column 1..8, plane column = row A..D.\n\
         - Planes: 0 King-side men, 1 the King, 2 Defender men, 3 Defender Kings, 4 ones if the King side is to move, 5 the piece continuing a chain, 6 ones during a friendly chain, 7 squares a friendly chain has landed on, 8 pieces captured so far in the chain, 9 repetition, 10 plies / limit, 11 ones.\n\
         - Policy index `plane · 32 + square` (square = 4 · column + row; planes 0–3 slide Up, Down, Right, Left, 4–7 jump in those directions, 8 stop a friendly chain)."
    }

    /// Columns 1 to 8 from left to right (the King side moves right, the
    /// Defenders left), rows A to D from the top: cell `(x, y)` is row `y`,
    /// column `x + 1`.
    fn square_name(cell: usize) -> String {
        square_of(cell).map_or_else(String::new, |sq| sq.to_string())
    }

    /// The position (a chain in progress is played on it as it goes).
    fn board(state: &TaflState) -> Vec<Option<Piece>> {
        let pos = state.game().position();
        let cells = usize::from(crate::COLUMNS) * usize::from(crate::ROWS);
        (0..cells)
            .map(|cell| {
                let sq = square_of(cell)?;
                let (side, kind) = if sq == pos.king {
                    (crate::Side::KingSide, PieceKind::King)
                } else if pos.black_men.contains(sq) {
                    (crate::Side::KingSide, PieceKind::Man)
                } else if pos.white_men.contains(sq) {
                    (crate::Side::Defender, PieceKind::Man)
                } else if pos.white_kings.contains(sq) {
                    (crate::Side::Defender, PieceKind::King)
                } else {
                    return None;
                };
                Some(Piece {
                    side: player(side),
                    kind,
                })
            })
            .collect()
    }

    fn decision_squares(state: &TaflState, step: &Step) -> DecisionSquares {
        match *step {
            Step::Slide { from, dir } => DecisionSquares {
                from: cell_of(from),
                to: from.step(dir).map(cell_of),
                captured: None,
            },
            Step::Jump { from, dir } => {
                let over = from.step(dir);
                let mover = state.game().position().turn;
                let enemy =
                    over.filter(|&sq| state.game().position().pieces(mover.other()).contains(sq));
                DecisionSquares {
                    from: cell_of(from),
                    to: over.and_then(|sq| sq.step(dir)).map(cell_of),
                    captured: enemy.map(cell_of),
                }
            }
            Step::Stop { at } => DecisionSquares {
                from: cell_of(at),
                to: Some(cell_of(at)),
                captured: None,
            },
        }
    }

    fn move_squares(mv: &Move) -> MoveSquares {
        let mut path: Vec<Option<usize>> = mv.path.iter().map(|&sq| Some(cell_of(sq))).collect();
        if mv.exit {
            path.push(None);
        }
        MoveSquares {
            from: cell_of(mv.from),
            path,
            captured: if mv.kind == MoveKind::Capture {
                mv.captured.into_iter().map(cell_of).collect()
            } else {
                Vec::new()
            },
        }
    }

    fn mirror_planes(src: &[f32], dst: &mut [f32]) {
        crate::encode::mirror_planes(src, dst);
    }

    fn mirror_policy_index(index: usize) -> usize {
        crate::encode::mirror_policy_index(index)
    }

    fn own_capabilities() -> dama_game::OwnCapabilities {
        dama_game::OwnCapabilities {
            greedy: true,
            alphabeta: Some(dama_game::AlphaBetaCapabilities {
                max_depth: crate::players::MAX_ALPHABETA_DEPTH,
                timed: true,
                max_threads: 1,
                evaluator_files: true,
            }),
        }
    }

    fn shipped_evaluator_rules() -> Option<TaflRules> {
        crate::shipped::shipped_rules().ok()
    }

    fn check_own(spec: &OwnSpec) -> Result<(), OwnError> {
        crate::players::baseline_of(spec).map(|_| ())
    }

    fn own_players(spec: &OwnSpec, _: &()) -> Result<Arc<dyn OwnFactory<Tafl>>, OwnError> {
        let (baseline, evaluation) = crate::players::own_of(spec)?;
        Ok(Arc::new(crate::players::BaselineFactory(
            baseline, evaluation,
        )))
    }

    const POSITION_EXAMPLE: &'static str = "W:Wb5,c5,Kd1:Ba1,Kb3";
    const MOVE_HELP: &'static str = "Type a move: b5-b4 (a slide), a1-a3-c3 (friendly jumps), \
        c4xc2 or c4xc2xa2 (a capture; a chain may be shortened to its start and end), \
        c8-off (the King's exit),\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

    fn side_title(side: Player) -> &'static str {
        match side {
            Player::First => "the Defenders",
            Player::Second => "the King side",
        }
    }

    fn end_text(game: &Game) -> Option<String> {
        let o = game.outcome()?;
        let who = match o.winner {
            Some(Side::Defender) => "the Defenders win",
            Some(Side::KingSide) => "the King side wins",
            None => "a draw",
        };
        Some(format!("{who} ({})", o.termination))
    }

    fn status_text(game: &Game) -> Option<String> {
        let o = game.outcome()?;
        Some(format!(
            "{} {:?}",
            o.winner.map_or("draw", side_key),
            o.termination
        ))
    }

    /// Columns 1 to 8 left to right (the King side moves right and leaves
    /// the board past column 8), rows `d` to `a` top to bottom; `b`
    /// King-side men, `K` the King, `w` Defender men, `W` Defender Kings,
    /// `.` empty. The board is never turned.
    fn board_text(game: &Game, _: Player) -> String {
        let pos = game.position();
        let numbers = "1 2 3 4 5 6 7 8";
        let edge = format!("   +{}+\n", "-".repeat(17));
        let mut out = format!("     {numbers}\n{edge}");
        for row in (0..crate::ROWS).rev() {
            let letter = char::from(b'a' + row);
            out.push_str(&format!(" {letter} |"));
            for col in 0..crate::COLUMNS {
                let c = match Square::at(row, col) {
                    None => '?',
                    Some(sq) if pos.king() == sq => 'K',
                    Some(sq) if pos.king_side_men().contains(sq) => 'b',
                    Some(sq) if pos.defender_men().contains(sq) => 'w',
                    Some(sq) if pos.defender_kings().contains(sq) => 'W',
                    Some(_) => '.',
                };
                out.push(' ');
                out.push(c);
            }
            out.push_str(&format!(" | {letter}\n"));
        }
        out.push_str(&edge);
        out.push_str(&format!("     {numbers}\n"));
        out
    }

    /// A PDN-like text record: tags for the game, players (Defenders, King
    /// side), rules, start position (FEN), result (1-0: the Defenders win,
    /// as in self-play records) and termination, then the numbered moves.
    fn record_text(game: &Game, names: [&str; 2], resigned: Option<Player>) -> String {
        let tag = |v: &str| v.replace(['"', '\\'], "'");
        let (winner, termination) = match (resigned.map(side_of), game.outcome()) {
            (Some(loser), _) => (
                Some(Some(loser.other())),
                format!("{} resigns", side_key(loser)),
            ),
            (None, Some(o)) => (Some(o.winner), format!("{:?}", o.termination)),
            (None, None) => (None, "unfinished".to_owned()),
        };
        let result = match winner {
            Some(Some(Side::Defender)) => "1-0",
            Some(Some(Side::KingSide)) => "0-1",
            Some(None) => "1/2-1/2",
            None => "*",
        };
        let mut text = String::new();
        for (k, v) in [
            ("Event", "dama play".to_owned()),
            ("GameType", "Turkish Tafl".to_owned()),
            ("Defenders", tag(names[0])),
            ("KingSide", tag(names[1])),
            ("Rules", game.rules().to_string()),
            ("FEN", game.start_position().to_string()),
            ("Result", result.to_owned()),
            ("Termination", termination),
        ] {
            text.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        text.push('\n');
        let moves: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
        for (i, pair) in moves.chunks(2).enumerate() {
            text.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
        }
        text.push_str(result);
        text.push('\n');
        text
    }
}

/// The side a search player stands for.
fn side_of(p: Player) -> Side {
    match p {
        Player::First => Side::Defender,
        Player::Second => Side::KingSide,
    }
}

/// A side as the protocol writes it: `defender`, `king_side`.
fn side_key(side: Side) -> &'static str {
    match side {
        Side::Defender => "defender",
        Side::KingSide => "king_side",
    }
}

/// The square drawn at `cell`: row `y`, column `x + 1`.
fn square_of(cell: usize) -> Option<Square> {
    let columns = usize::from(crate::COLUMNS);
    let (x, y) = (cell % columns, cell / columns);
    Square::at(u8::try_from(y).ok()?, u8::try_from(x).ok()?)
}

/// The cell a square is drawn at.
fn cell_of(sq: Square) -> usize {
    usize::from(sq.row()) * usize::from(crate::COLUMNS) + usize::from(sq.column())
}
