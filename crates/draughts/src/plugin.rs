//! Turkish draughts behind the game seam: [`Draughts`] implements
//! [`dama_game::GameDef`].

use std::sync::Arc;

use dama_engine::{Game, Move, Position, Role, RuleValues, Rules, Square, Step, Termination};
use dama_game::{
    DecisionSquares, EndReason, Ending, GameDef, GameError, Geometry, MoveSquares, OpenedTables,
    OwnError, OwnFactory, OwnSpec, Piece, PieceKind, RuleOptionInfo, RuleOptionValues, SideInfo,
    TableVerdict, TablesError,
};
use dama_mcts::{Outcome, Player};
use dama_tablebase::Tablebase;

use crate::state::{complete_turn, player, DamaState};

/// Turkish draughts and its variants, as every layer above the rules sees
/// them. The variant is a rule option ([`Rules::variant`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Draughts;

impl GameDef for Draughts {
    const NAME: &'static str = "draughts";
    const TITLE: &'static str = "Turkish draughts";
    const ENCODING_VERSION: u32 = crate::encode::ENCODING_VERSION;

    type Rules = Rules;
    type Game = Game;
    type Move = Move;
    type State = DamaState;
    type Tables = Option<Arc<Tablebase>>;

    fn start(rules: &Rules) -> Game {
        Game::with_rules(*rules)
    }

    fn rules(game: &Game) -> Rules {
        *game.rules()
    }

    fn parse_rules(text: &str) -> Result<Rules, GameError> {
        Ok(text.parse::<Rules>()?)
    }

    fn to_play(game: &Game) -> Player {
        player(game.turn())
    }

    fn outcome(game: &Game) -> Option<Outcome> {
        Some(match game.outcome()?.winner() {
            Some(c) => Outcome::Win(player(c)),
            None => Outcome::Draw,
        })
    }

    fn plies(game: &Game) -> usize {
        game.moves().len()
    }

    /// None once the game is over, draws by rule included (the engine's
    /// own `legal_moves` is the position's, whatever the history).
    fn legal_moves(game: &Game) -> Vec<Move> {
        if game.is_game_over() {
            return Vec::new();
        }
        game.legal_moves().into_iter().collect()
    }

    fn play(game: &mut Game, mv: &Move) -> Result<(), GameError> {
        Ok(game.play(mv)?)
    }

    fn parse_move(game: &Game, text: &str) -> Result<Move, GameError> {
        Ok(game.position().parse_move(text)?)
    }

    fn position_text(game: &Game) -> String {
        game.position().to_string()
    }

    fn parse_position(rules: &Rules, text: &str) -> Result<Game, GameError> {
        let position = Position::from_str_with_rules(text, *rules)?;
        Ok(Game::from_position(position))
    }

    fn search_state(game: &Game) -> DamaState {
        DamaState::new(game.clone())
    }

    fn search_state_with(game: &Game, tables: &Option<Arc<Tablebase>>) -> DamaState {
        DamaState::new(game.clone()).with_tablebase(tables.clone())
    }

    fn game_of(state: &DamaState) -> &Game {
        state.game()
    }

    fn start_text(game: &Game) -> String {
        game.start_position().to_string()
    }

    fn history(game: &Game) -> &[Move] {
        game.moves()
    }

    fn ending(game: &Game) -> Option<Ending> {
        let (_, termination) = game.termination()?;
        let reason = match termination {
            Termination::NoPieces | Termination::Blocked => EndReason::NoMoves,
            Termination::Repetition => EndReason::Repetition,
            Termination::NoCaptureLimit => EndReason::NoCaptureLimit,
            Termination::MutualBlock | Termination::OnePieceEach | Termination::KingBeatsMan => {
                EndReason::Other
            }
        };
        Some(Ending::new(reason, format!("{termination:?}")))
    }

    fn complete_turn(game: &Game, decisions: &[Step]) -> Result<Move, GameError> {
        Ok(complete_turn(game, decisions)?)
    }

    /// The engine's perft from the current position (its history, and so
    /// repetitions, left out as the engine's perft data count them).
    fn perft(game: &Game, depth: u32) -> u64 {
        dama_engine::perft(game.position(), game.rules(), depth)
    }

    fn geometry() -> Geometry {
        Geometry {
            width: 8,
            height: 8,
            sides: [
                SideInfo {
                    name: "White",
                    key: "white",
                },
                SideInfo {
                    name: "Black",
                    key: "black",
                },
            ],
        }
    }

    fn encoding_notes() -> &'static str {
        "- Encoded from the side to move (`crates/draughts/src/encode.rs`; from Python, `dama.Game(...).encode()` of dama's module): for Black to move the board is flipped vertically (rank r → 7 − r, files kept).\n\
         - Planes: 0 own men, 1 own kings, 2 opponent men, 3 opponent kings, 4 the piece continuing a capture, 5–8 the forbidden jump direction (N, E, S, W), 9 repetition, 10 plies since the last capture / limit, 11 ones, 12 the pieces captured so far by a capture in progress.\n\
         - Policy index `(direction · 7 + distance − 1) · 64 + from`, the eight compass directions clockwise from North (from the mover's side; `dama.Game(...).actions()` lists each legal action's index)."
    }

    /// White at the bottom: cell `(x, y)` is file `x`, rank `8 − y`.
    fn square_name(cell: usize) -> String {
        square_of(cell).map_or_else(String::new, |sq| sq.to_string())
    }

    /// The position, with a capture in progress as it stands.
    fn board(state: &DamaState) -> Vec<Option<Piece>> {
        let game = state.game();
        let pos = game.position();
        let piece = |color, role| Piece {
            side: player(color),
            kind: match role {
                Role::Man => PieceKind::Man,
                Role::King => PieceKind::King,
            },
        };
        (0..64)
            .map(|cell| {
                let sq = square_of(cell)?;
                if let Some(p) = game.pending_capture() {
                    if sq == p.square() {
                        let role = if p.captures_as_king() {
                            Role::King
                        } else {
                            p.role()
                        };
                        return Some(piece(p.color(), role));
                    }
                    if sq == p.origin() || p.captured().contains(sq) {
                        return None;
                    }
                }
                pos.piece_at(sq).map(|p| piece(p.color, p.role))
            })
            .collect()
    }

    fn decision_squares(_: &DamaState, step: &Step) -> DecisionSquares {
        DecisionSquares {
            from: cell_of(step.from),
            to: Some(cell_of(step.to)),
            captured: step.captured.map(cell_of),
        }
    }

    fn move_squares(mv: &Move) -> MoveSquares {
        let steps = mv.steps();
        MoveSquares {
            from: cell_of(mv.from()),
            path: steps.iter().map(|s| Some(cell_of(s.to))).collect(),
            captured: steps
                .iter()
                .filter_map(|s| s.captured.map(cell_of))
                .collect(),
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
                max_depth: dama_game::own::MAX_SEARCH_DEPTH,
                timed: true,
                max_threads: crate::alphabeta::MAX_THREADS,
                evaluator_files: true,
            }),
        }
    }

    fn check_own(spec: &OwnSpec) -> Result<(), OwnError> {
        crate::own::check(spec)
    }

    fn own_players(
        spec: &OwnSpec,
        tables: &Option<Arc<Tablebase>>,
    ) -> Result<Arc<dyn OwnFactory<Draughts>>, OwnError> {
        crate::own::factory(spec, tables)
    }

    fn shipped_evaluator_rules() -> Option<Rules> {
        crate::shipped::shipped_rules().ok()
    }

    /// A network plays the variant it was trained for: other rule options
    /// get a warning, another variant is refused.
    fn refuse_network_rules(trained: &Rules, asked: &Rules) -> Option<String> {
        (trained.variant != asked.variant).then(|| {
            format!(
                "the network was trained for {}, not {}",
                trained.variant, asked.variant
            )
        })
    }

    fn rule_options() -> Vec<RuleOptionInfo> {
        Rules::OPTIONS
            .iter()
            .map(|o| RuleOptionInfo {
                key: o.key,
                about: o.about,
                values: match o.values {
                    RuleValues::Choice(v) => RuleOptionValues::Choice(v),
                    RuleValues::Count { min, max } => RuleOptionValues::Count { min, max },
                },
                default: o.default,
            })
            .collect()
    }

    fn has_tables() -> bool {
        true
    }

    /// The tables `dama tablebase generate` wrote in `dir`, if they are
    /// for `rules`.
    fn open_tables(
        dir: &std::path::Path,
        rules: &Rules,
    ) -> Result<OpenedTables<Option<Arc<Tablebase>>>, TablesError> {
        let tb = match Tablebase::open_if_present(dir).map_err(|e| TablesError {
            dir: dir.to_path_buf(),
            source: Box::new(e),
        })? {
            Ok(tb) => tb,
            Err(why) => return Ok(OpenedTables::Absent(why.to_string())),
        };
        if !tb.holds_rules(rules) {
            return Ok(OpenedTables::Absent(format!(
                "the endgame tables in {} are for other rules ({})",
                dir.display(),
                tb.rules_text()
            )));
        }
        Ok(OpenedTables::Found {
            about: format!("{} pieces from {}", tb.max_pieces(), dir.display()),
            tables: Some(Arc::new(tb)),
        })
    }

    fn table_move(game: &Game, tables: &Option<Arc<Tablebase>>) -> Option<(Move, TableVerdict)> {
        let tablebase = tables.as_ref()?;
        let probe = DamaState::new(game.clone())
            .with_tablebase(Some(tablebase.clone()))
            .probe()?;
        let (best, _) = tablebase.best_moves(game.position())?.first().copied()?;
        Some((
            best,
            TableVerdict {
                result: probe.wdl.to_string(),
                decisive: probe.wdl.score() != 0,
                dtz: probe.dtz,
            },
        ))
    }

    const POSITION_EXAMPLE: &'static str = "W:Wa2,b2:Ba7,Kh8";
    const MOVE_HELP: &'static str =
        "Type a move (d3-d4, b3xd3xd5; a capture may be shortened to from x to),\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

    fn end_text(game: &Game) -> Option<String> {
        game.termination().map(|(o, t)| format!("{o} ({t:?})"))
    }

    fn status_text(game: &Game) -> Option<String> {
        game.termination().map(|(o, t)| format!("{o} {t:?}"))
    }

    fn board_text(game: &Game, bottom: Player) -> String {
        crate::board::draw_board(game.position(), crate::state::color(bottom))
    }

    fn record_text(game: &Game, names: [&str; 2], resigned: Option<Player>) -> String {
        let mut record = dama_engine::GameRecord::from_game(game);
        record.tags = vec![
            ("Event".into(), "dama play".into()),
            ("White".into(), names[0].into()),
            ("Black".into(), names[1].into()),
            ("Rules".into(), game.rules().to_string()),
        ];
        if let Some(loser) = resigned.map(crate::state::color) {
            record.result = Some(dama_engine::Outcome::Decisive { winner: !loser });
            record
                .tags
                .push(("Termination".into(), format!("{loser} resigns")));
        } else if let Some((_, t)) = game.termination() {
            record.tags.push(("Termination".into(), format!("{t:?}")));
        }
        record.to_string()
    }
}

/// The square drawn at `cell` (White at the bottom).
fn square_of(cell: usize) -> Option<Square> {
    let (x, y) = (cell % 8, cell / 8);
    if y >= 8 {
        return None;
    }
    Square::from_coords(x as u8, 7 - y as u8)
}

/// The cell a square is drawn at.
fn cell_of(sq: Square) -> usize {
    (7 - sq.rank() as usize) * 8 + sq.file() as usize
}
