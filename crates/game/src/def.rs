//! [`GameDef`]: one game, as every layer above the rules sees it.

use std::fmt::{Debug, Display};
use std::str::FromStr;
use std::sync::Arc;

use dama_mcts::{Game as SearchGame, Outcome, Player};

use crate::input::NnInput;
use crate::own::{OwnError, OwnFactory, OwnSpec};
use crate::shape::Shape;
use crate::tables::{OpenedTables, TablesError};

/// Why a game refused a move, a position or rules text: the game's own
/// error, type-erased so that code written once for every game can keep it
/// as its source.
pub type GameError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A game's tournament scoring ([`GameDef::tournament`]): the points the
/// winner of a finished game scores, `None` for a draw or a game running.
pub type TournamentPoints<G> = fn(&<G as GameDef>::Game) -> Option<u32>;

/// Why a game ended, in the reasons that every layer above the rules
/// counts by (self-play's statistics, the records); the game's own words
/// for it are [`Ending::text`].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The side to move could not move (no legal move, or no pieces).
    NoMoves,
    /// A position occurred for the third time.
    Repetition,
    /// Too many plies without a capture (draughts' 50-ply rule).
    NoCaptureLimit,
    /// Self-play's own cap on a game's length (not a rule of the game).
    MoveCap,
    /// The endgame tables called the position (self-play, not the rules).
    Tablebase,
    /// Any other of the game's own endings (one piece each, a Tafl King's
    /// escape, a ply limit...), or a record too old to say.
    #[default]
    Other,
}

/// How a game ended ([`GameDef::ending`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The reason, as every game's statistics count it.
    pub reason: EndReason,
    /// The game's own words (what game records and pages show).
    pub text: String,
}

impl Ending {
    /// An ending for `reason` in the game's words `text`.
    pub fn new(reason: EndReason, text: impl Into<String>) -> Ending {
        Ending {
            reason,
            text: text.into(),
        }
    }
}

/// The decisions given for a turn end before its move does (or go beyond
/// it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the decisions do not make exactly one whole move")]
pub struct IncompleteTurn;

/// One side of a game, for people: `White`, `Defenders`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideInfo {
    /// The side's name in sentences and results (`White`, `Defenders`).
    pub name: &'static str,
    /// Its name in files and protocols (`white`, `defender`).
    pub key: &'static str,
}

/// What a front end needs to draw a game's board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Columns of the board.
    pub width: u8,
    /// Rows of the board.
    pub height: u8,
    /// The two sides, in the search's [`Player`] order (`First`, `Second`).
    pub sides: [SideInfo; 2],
}

/// What a piece is, for front ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PieceKind {
    /// A man (a plain piece).
    Man,
    /// A king (a crowned man, or Tafl's King).
    King,
}

/// A piece on a square, for front ends: whose ([`Player`] order, as in
/// [`Geometry::sides`]) and what kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub side: Player,
    /// Man or king.
    pub kind: PieceKind,
}

/// The squares of one decision (a quiet move, one jump, or the end of a
/// chain), as cells (see [`GameDef::square_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecisionSquares {
    /// Where the acting piece stands.
    pub from: usize,
    /// Where it lands: `None` off the board (a Tafl King's exit); `from`
    /// itself for a decision that ends a chain where the piece stands.
    pub to: Option<usize>,
    /// The piece this decision captures, if any.
    pub captured: Option<usize>,
}

/// The squares of a whole move, as cells (see [`GameDef::square_name`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveSquares {
    /// Where the piece starts.
    pub from: usize,
    /// The landing squares in order; `None` off the board (an exit).
    pub path: Vec<Option<usize>>,
    /// The pieces captured.
    pub captured: Vec<usize>,
}

/// A game, written once in its own crate, behind which every layer above
/// the rules (self-play, records, training, the arena, bots, the protocol,
/// the web page) is written once.
///
/// Implemented by a marker type (`dama_draughts::Draughts`,
/// `dama_tafl::Tafl`); `dama_registry` maps a game's name to it. Every
/// function is an associated function: a game carries no state of its own
/// beyond its rules, which travel inside [`GameDef::Game`].
///
/// # Contract
///
/// * [`GameDef::legal_moves`] is empty exactly when [`GameDef::outcome`]
///   is `Some`.
/// * A move's text ([`Display`]) parses back to the same move with
///   [`GameDef::parse_move`] in the position it was legal in.
/// * [`GameDef::search_state`] of a game is a state whose
///   [`dama_mcts::Game::to_play`] is [`GameDef::to_play`] of the game;
///   [`GameDef::complete_turn`] turns the decisions of one turn, as the
///   search took them from that state, into the whole move.
pub trait GameDef: Copy + Default + Debug + Send + Sync + 'static {
    /// The name in configs, files and on the command line (`draughts`).
    const NAME: &'static str;
    /// The name in sentences (`Turkish draughts`).
    const TITLE: &'static str;
    /// Version of the network encoding; a file of another is refused.
    const ENCODING_VERSION: u32;

    /// The game's typed rule options, with rules text as their
    /// [`Display`]/[`FromStr`] form, and a TOML table (configs) as their
    /// serde form.
    type Rules: Copy
        + Eq
        + Default
        + Debug
        + Display
        + FromStr
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static;
    /// A game in progress: its rules, position and history (draw rules
    /// included).
    type Game: Clone + Debug + Send + Sync + 'static;
    /// A whole move (a turn: a capture of several jumps is one move).
    type Move: Clone + Eq + Debug + Display + Send + Sync + 'static;
    /// The search's state: one decision at a time (its decisions cross
    /// threads, as the arena's games in flight do, and have a text).
    type State: SearchGame<Action: Send + Sync + Display>
        + NnInput<Action = <Self::State as SearchGame>::Action>
        + Clone
        + Send
        + Sync
        + 'static;
    /// Knowledge a search may end a game on before the rules do (draughts:
    /// endgame tables); `()` for a game without.
    type Tables: Clone + Default + Send + Sync + 'static;

    /// The start position under `rules`.
    fn start(rules: &Self::Rules) -> Self::Game;

    /// The rules `game` is played under.
    fn rules(game: &Self::Game) -> Self::Rules;

    /// Parses rules text (`variant=croda`), naming the option it refuses.
    ///
    /// # Errors
    ///
    /// The game's own error for unknown options or values.
    fn parse_rules(text: &str) -> Result<Self::Rules, GameError>;

    /// The side to move.
    fn to_play(game: &Self::Game) -> Player;

    /// The result if the game is over (every end the rules have, draws by
    /// rule included), else `None`.
    fn outcome(game: &Self::Game) -> Option<Outcome>;

    /// Whole moves played since the start position.
    fn plies(game: &Self::Game) -> usize;

    /// The legal whole moves, in a deterministic order.
    fn legal_moves(game: &Self::Game) -> Vec<Self::Move>;

    /// Plays `mv`.
    ///
    /// # Errors
    ///
    /// If `mv` is not legal here (nothing is played then).
    fn play(game: &mut Self::Game, mv: &Self::Move) -> Result<(), GameError>;

    /// Parses a move's text in this position.
    ///
    /// # Errors
    ///
    /// If the text is malformed or names no legal move.
    fn parse_move(game: &Self::Game, text: &str) -> Result<Self::Move, GameError>;

    /// The position's text (what [`GameDef::parse_position`] reads).
    fn position_text(game: &Self::Game) -> String;

    /// A game starting from a position's text under `rules`; `startpos` is
    /// the start position under `rules`.
    ///
    /// # Errors
    ///
    /// If the text is malformed or the position impossible.
    fn parse_position(rules: &Self::Rules, text: &str) -> Result<Self::Game, GameError>;

    /// The search's state at this position.
    fn search_state(game: &Self::Game) -> Self::State;

    /// The search's state at this position, ending where `tables` know
    /// the result. The default ignores the tables.
    fn search_state_with(game: &Self::Game, tables: &Self::Tables) -> Self::State {
        let _ = tables;
        Self::search_state(game)
    }

    /// The game a search state is at (mid-turn: the position at the start
    /// of the turn, with the decisions taken so far).
    fn game_of(state: &Self::State) -> &Self::Game;

    /// The position the game started from, as text.
    fn start_text(game: &Self::Game) -> String;

    /// The whole moves played since the start position.
    fn history(game: &Self::Game) -> &[Self::Move];

    /// How the game ended (a reason every layer counts by, and the game's
    /// words for it), or `None` while it goes on.
    fn ending(game: &Self::Game) -> Option<Ending>;

    /// Why the game ended, in a word or two (what game records keep), or
    /// `None` while it goes on: [`GameDef::ending`]'s text.
    fn termination(game: &Self::Game) -> Option<String> {
        Self::ending(game).map(|e| e.text)
    }

    /// The whole move made of one turn's decisions, taken in order from
    /// [`GameDef::search_state`] of `game`.
    ///
    /// # Errors
    ///
    /// If the decisions do not make one legal move.
    fn complete_turn(
        game: &Self::Game,
        decisions: &[<Self::State as SearchGame>::Action],
    ) -> Result<Self::Move, GameError>;

    /// Leaf nodes of the tree of whole moves `depth` plies deep (perft:
    /// the move generator's test and benchmark). The default plays every
    /// move on a copy of the game; a game with a faster generator
    /// overrides it.
    fn perft(game: &Self::Game, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = Self::legal_moves(game);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut child = game.clone();
                match Self::play(&mut child, m) {
                    Ok(()) => Self::perft(&child, depth - 1),
                    Err(_) => 0,
                }
            })
            .sum()
    }

    /// The board and sides, for front ends.
    fn geometry() -> Geometry;

    /// The game's tournament scoring, if it has one: the points the winner
    /// of a finished game scores (`None` for a draw or a game still
    /// running). An arena then also scores each opening's pair of games
    /// (one per side) by these points. The default: no tournament scoring.
    fn tournament() -> Option<TournamentPoints<Self>> {
        None
    }

    /// How the network's input planes and policy indices are laid out, for
    /// people (the README of a network bundle): Markdown list lines, each
    /// starting `- `. The default: none (a README then gives the shapes).
    fn encoding_notes() -> &'static str {
        ""
    }

    /// The name of the square drawn at `cell` (`c4`). Front ends number
    /// the board's cells row-major from the top-left corner as the first
    /// side sees the board: `cell = y · width + x`, `0..width · height`.
    fn square_name(cell: usize) -> String;

    /// What stands on each cell (`width · height` entries, in cell order),
    /// mid-turn included: the decisions the state has taken in the turn in
    /// progress played (the moving piece where it stands, the pieces it
    /// took gone).
    fn board(state: &Self::State) -> Vec<Option<Piece>>;

    /// The squares of `decision`, one of the state's legal actions.
    fn decision_squares(
        state: &Self::State,
        decision: &<Self::State as SearchGame>::Action,
    ) -> DecisionSquares;

    /// The squares of a whole move.
    fn move_squares(mv: &Self::Move) -> MoveSquares;

    /// The network encoding's shapes.
    fn shape() -> Shape {
        <Self::State as NnInput>::SHAPE
    }

    /// Writes the mirror image of encoded planes `src` into `dst` (the
    /// symmetry the replay buffer augments with).
    fn mirror_planes(src: &[f32], dst: &mut [f32]);

    /// The policy index of the mirrored action (an involution).
    fn mirror_policy_index(index: usize) -> usize;

    // --- The game's own players ([`crate::own`]) ---

    /// What the game's own players are, declared: what catalogues offer.
    /// The default: none. [`GameDef::check_own`] accepts what this
    /// declares and refuses the rest (a test of every game holds them
    /// together).
    fn own_capabilities() -> crate::OwnCapabilities {
        crate::OwnCapabilities::default()
    }

    /// Checks that the game has the player `spec` asks for, with these
    /// settings, without reading any file. The default: no player of its
    /// own.
    ///
    /// # Errors
    ///
    /// [`OwnError::NotAvailable`], or [`OwnError::Settings`] naming the
    /// setting out of the game's range.
    fn check_own(spec: &OwnSpec) -> Result<(), OwnError> {
        let _ = spec;
        Err(OwnError::NotAvailable)
    }

    /// The factory of the players `spec` asks for, probing `tables` where
    /// they help. The default: no player of its own.
    ///
    /// # Errors
    ///
    /// As [`GameDef::check_own`], and [`OwnError::Load`] for a file that
    /// cannot be used.
    fn own_players(
        spec: &OwnSpec,
        tables: &Self::Tables,
    ) -> Result<Arc<dyn OwnFactory<Self>>, OwnError> {
        let _ = tables;
        Self::check_own(spec)?;
        Err(OwnError::NotAvailable)
    }

    /// The rules of the learned evaluator the game ships, built into the
    /// program (`alphabeta:…,eval=shipped`), if it ships one: the bots
    /// default to the alpha-beta engine with it under those rules. The
    /// default: none.
    fn shipped_evaluator_rules() -> Option<Self::Rules> {
        None
    }

    /// Why a network trained under `trained` refuses to play `asked`, in
    /// one sentence; `None`: it plays them (the caller warns if they
    /// differ). The default plays every rule set.
    fn refuse_network_rules(trained: &Self::Rules, asked: &Self::Rules) -> Option<String> {
        let _ = (trained, asked);
        None
    }

    /// The game's rule options, in the order of its rules text, with the
    /// default rules' values (what a front end's form offers). The
    /// default: none listed (the rules are typed as text).
    fn rule_options() -> Vec<RuleOptionInfo> {
        Vec::new()
    }

    /// Whether the game has endgame tables ([`GameDef::open_tables`] can
    /// find some). The default: no.
    fn has_tables() -> bool {
        false
    }

    /// Opens the game's endgame tables in `dir` for `rules`: the tables,
    /// or why there are none usable (no directory, no table in it, tables
    /// of other rules). The default: none, the game has no tables.
    ///
    /// # Errors
    ///
    /// [`TablesError`] for tables that are there but cannot be read
    /// (unreadable, truncated, damaged).
    fn open_tables(
        dir: &std::path::Path,
        rules: &Self::Rules,
    ) -> Result<OpenedTables<Self::Tables>, TablesError> {
        let _ = (dir, rules);
        Ok(OpenedTables::Absent(format!(
            "{} has no endgame tables",
            Self::TITLE
        )))
    }

    /// The tables' best move and verdict, if `tables` hold the position.
    /// The default: none.
    fn table_move(game: &Self::Game, tables: &Self::Tables) -> Option<(Self::Move, TableVerdict)> {
        let _ = (game, tables);
        None
    }

    // --- Text for people (the bot's `dama play`, protocol and records) ---

    /// An example position text, for the error of a command without one.
    const POSITION_EXAMPLE: &'static str = "startpos";

    /// How to type a move in `dama play`, and the commands there.
    const MOVE_HELP: &'static str = "Type a move in the game's notation,\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

    /// A side in sentences (`White`, `the Defenders`). The default: its
    /// name in the geometry.
    fn side_title(side: Player) -> &'static str {
        Self::geometry().sides[side_index(side)].name
    }

    /// How the game ended, in words (`1-0 (NoPieces)`), if it did.
    fn end_text(game: &Self::Game) -> Option<String> {
        let why = Self::termination(game).unwrap_or_default();
        Some(match Self::outcome(game)? {
            Outcome::Win(p) => {
                format!("{} win ({why})", Self::geometry().sides[side_index(p)].name)
            }
            Outcome::Draw => format!("a draw ({why})"),
        })
    }

    /// How the game ended as the protocol's `status over` writes it
    /// (`<result> <reason>`: the winner's key or `draw`), if it did.
    fn status_text(game: &Self::Game) -> Option<String> {
        let why = Self::termination(game).unwrap_or_default();
        Some(match Self::outcome(game)? {
            Outcome::Win(p) => format!("{} {why}", Self::geometry().sides[side_index(p)].key),
            Outcome::Draw => format!("draw {why}"),
        })
    }

    /// The board as text, `bottom`'s side nearest the viewer where the
    /// game turns the board. The default: the position's text.
    fn board_text(game: &Self::Game, bottom: Player) -> String {
        let _ = bottom;
        format!("{}\n", Self::position_text(game))
    }

    /// The game's record as text (PDN or the game's own), `names` the
    /// players in [`Player`] order, `resigned` the side that resigned.
    /// The default: tags (game, rules, players by side, start position,
    /// termination), then the numbered whole moves.
    fn record_text(game: &Self::Game, names: [&str; 2], resigned: Option<Player>) -> String {
        let sides = Self::geometry().sides;
        let mut out = format!(
            "[Game \"{}\"]\n[Rules \"{}\"]\n[{} \"{}\"]\n[{} \"{}\"]\n[FEN \"{}\"]\n",
            Self::TITLE,
            Self::rules(game),
            sides[0].name,
            names[0].replace(['"', '\\'], "'"),
            sides[1].name,
            names[1].replace(['"', '\\'], "'"),
            Self::start_text(game)
        );
        let end = match resigned {
            Some(p) => Some(format!("{} resigns", sides[side_index(p)].name)),
            None => Self::termination(game),
        };
        if let Some(end) = end {
            out.push_str(&format!("[Termination \"{end}\"]\n"));
        }
        out.push('\n');
        for (i, m) in Self::history(game).iter().enumerate() {
            out.push_str(&format!("{}. {m} ", i + 1));
        }
        out.push('\n');
        out
    }
}

/// A side's place in [`Geometry::sides`].
#[must_use]
pub fn side_index(p: Player) -> usize {
    match p {
        Player::First => 0,
        Player::Second => 1,
    }
}

/// One rule option of a game, as a front end lists it
/// ([`GameDef::rule_options`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOptionInfo {
    /// The key in the rules text (`promotion=…`).
    pub key: &'static str,
    /// What the option decides, in words (may be empty).
    pub about: &'static str,
    /// The values it takes.
    pub values: RuleOptionValues,
    /// The default value, as text.
    pub default: &'static str,
}

/// The values of a [`RuleOptionInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleOptionValues {
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A count in `min..=max`, or `off`.
    Count {
        /// The smallest count.
        min: u16,
        /// The largest count.
        max: u16,
    },
}

/// What a game's tables say about a position ([`GameDef::table_move`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableVerdict {
    /// The result for the side to move, in words (`win`, `cursed win`,
    /// `draw`…).
    pub result: String,
    /// Whether the result is a win or a loss.
    pub decisive: bool,
    /// Plies to the capture that keeps the result, or to the end, where
    /// the tables know it.
    pub dtz: Option<u16>,
}
