//! The fuzz targets: one per parser of outside input, with the properties
//! each must keep (never panic; round-trip what it accepts).

use std::path::Path;

use dama_engine::{GameRecord, MoveText, Position, Rules};
use dama_game::GameDef;
use dama_nn::{GameName, WithGame};
use dama_selfplay::record::{self, GameRecord as ChunkGame, GameResult, PackedPlane, Sample};

use crate::Target;

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "position",
        tokens: &[
            "W:", "B:", "W", "B", "K", ",", ":", "a1", "h8", "-", "startpos",
        ],
        run: position,
    },
    Target {
        name: "move",
        tokens: &["x", "-", "a3", "d4", "h8", "K", ":", "W:Wa2:Bh7"],
        run: move_text,
    },
    Target {
        name: "game_record",
        tokens: &[
            "[",
            "]",
            "\"",
            "[Rules \"",
            "[Position \"",
            "[FEN \"",
            "1.",
            "2...",
            "{",
            "}",
            "1-0",
            "0-1",
            "1/2-1/2",
            "*",
            "x",
            "-",
            "\n",
        ],
        run: game_record,
    },
    Target {
        name: "rules",
        tokens: &[
            "default",
            "promotion=",
            "continue_as_king",
            "end_of_move",
            "one_piece_each=",
            "king_beats_man",
            "no_capture_limit=",
            "off",
            ",",
            " ",
            "=",
        ],
        run: rules,
    },
    Target {
        name: "player_spec",
        tokens: &[
            "random",
            "greedy",
            "alphabeta:",
            "ab:",
            "mcts:",
            "ckpt:",
            "policy:",
            "depth=",
            "time=",
            "tt=",
            "sims=",
            "search=",
            "gumbel",
            "puct",
            "batch=",
            "threads=",
            "precision=",
            "auto",
            "bf16",
            "f32",
            "eval=",
            ",",
            ":",
            "=",
        ],
        run: player_spec,
    },
    Target {
        name: "config",
        tokens: &[
            "[run]",
            "[model]",
            "[search]",
            "[selfplay]",
            "[buffer]",
            "[train]",
            "[schedule]",
            "[eval]",
            "[rules]",
            "=",
            "\"",
            "\n",
            "threads",
            "torch_threads",
            "inference_threads",
            "eval_threads",
            "channels",
            "blocks",
            "sims",
            "baselines",
            "[",
            "]",
            "true",
            "1e400",
            "-0.0",
        ],
        run: config,
    },
    Target {
        name: "bot_protocol",
        tokens: &[
            "hello",
            "isready",
            "rules ",
            "position ",
            "moves ",
            "undo ",
            "go ",
            "sims ",
            "time ",
            "eval",
            "show",
            "legal",
            "newgame",
            "startpos",
            "-off",
            "x",
            "\n",
            "\u{ff}",
            "\r",
        ],
        run: bot_protocol,
    },
    Target {
        name: "hub_protocol",
        tokens: &[
            "hub",
            "init",
            "set-param name=",
            " value=",
            "variant",
            "croda",
            "pos pos=",
            " moves=\"",
            "\"",
            "level ",
            "depth=",
            "move-time=",
            "nodes=",
            "infinite",
            "go think",
            "stop",
            "ping",
            "-",
            "x",
            "e",
            "W",
            "\n",
            "\u{ff}",
        ],
        run: hub_protocol,
    },
    Target {
        name: "game_chunk",
        tokens: &["DAMAGAME", "\u{0}", "\u{1}", "\u{fb}", "\u{fc}", "\u{fd}"],
        run: game_chunk,
    },
    Target {
        name: "sidecar",
        tokens: &[
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            "null",
            "\"channels\"",
            "\"blocks\"",
            "\"model\"",
            "\"weights\"",
            "1e400",
        ],
        run: sidecar,
    },
    Target {
        name: "bundle",
        tokens: &[
            "{",
            "}",
            "\"",
            ":",
            ",",
            "null",
            "\"model_file\"",
            "\"../x\"",
            "\"/etc/passwd\"",
            "\"format\"",
            "\"channels\"",
        ],
        run: bundle,
    },
    Target {
        name: "opening",
        tokens: &["1.", "W:", "B:", "x", "-", " ", "K"],
        run: opening,
    },
    Target {
        name: "run_state",
        tokens: &[
            "{",
            "}",
            "\"generation\"",
            "\"step\"",
            ":",
            ",",
            "1e400",
            "-1",
        ],
        run: run_state,
    },
    Target {
        name: "game_position",
        tokens: &[
            "W:", "B:", "W", "B", "K", ",", ":", "a1", "d8", "f6", "b3", "h8", "startpos",
        ],
        run: game_position,
    },
    Target {
        name: "game_move",
        tokens: &[
            "x", "-", "off", "b1", "b2", "b3", "d3", "c8", "a7", "d4", "f5",
        ],
        run: game_move,
    },
    Target {
        name: "game_rules",
        tokens: &[
            "default",
            "first=",
            "king_side",
            "majority=",
            "variant=",
            "croda",
            "no_capture_limit=",
            "one_piece_each=",
            "on",
            "off",
            "goal=",
            "column8",
            "ply_limit=",
            "draw",
            ",",
            " ",
        ],
        run: game_rules,
    },
];

/// Runs `check` with the input's text on every registered game; accepted
/// if some game accepted it. Every game's parsers are fuzzed, a game added
/// by one registry line included.
fn every_game(data: &[u8], check: fn(&str, GameName) -> bool) -> bool {
    let Some(s) = text(data) else { return false };
    GameName::ALL
        .iter()
        .fold(false, |accepted, &g| check(s, g) | accepted)
}

/// Position text: what parses prints and parses back to the same text,
/// and every legal move of it plays.
fn game_position(data: &[u8]) -> bool {
    struct Check<'a>(&'a str);
    impl WithGame for Check<'_> {
        type Output = bool;
        fn run<G: GameDef>(self) -> bool {
            let rules = G::Rules::default();
            let Ok(game) = G::parse_position(&rules, self.0) else {
                return false;
            };
            let text = G::position_text(&game);
            let back = G::parse_position(&rules, &text)
                .unwrap_or_else(|e| panic!("{}: {text} does not parse back: {e}", G::NAME));
            assert_eq!(G::position_text(&back), text, "{}", G::NAME);
            for m in G::legal_moves(&game) {
                let mut g = game.clone();
                G::play(&mut g, &m).unwrap_or_else(|e| panic!("{}: {m} in {text}: {e}", G::NAME));
            }
            true
        }
    }
    every_game(data, |s, g| g.with(Check(s)))
}

/// Move text, in a few positions of each game: what parses plays, and its
/// own text parses back to it.
fn game_move(data: &[u8]) -> bool {
    struct Check<'a>(&'a str);
    impl WithGame for Check<'_> {
        type Output = bool;
        fn run<G: GameDef>(self) -> bool {
            let rules = G::Rules::default();
            let mut game = G::start(&rules);
            let mut accepted = false;
            for _ in 0..3 {
                if let Ok(m) = G::parse_move(&game, self.0) {
                    let again = G::parse_move(&game, &m.to_string())
                        .unwrap_or_else(|e| panic!("{}: {m} does not parse back: {e}", G::NAME));
                    assert_eq!(again, m, "{}", G::NAME);
                    let mut g = game.clone();
                    G::play(&mut g, &m).unwrap_or_else(|e| panic!("{}: {m}: {e}", G::NAME));
                    accepted = true;
                }
                // On to a later position: the first legal move.
                let Some(first) = G::legal_moves(&game).into_iter().next() else {
                    break;
                };
                if G::play(&mut game, &first).is_err() {
                    break;
                }
            }
            accepted
        }
    }
    every_game(data, |s, g| g.with(Check(s)))
}

/// Rules text: what parses prints and parses back to the same rules.
fn game_rules(data: &[u8]) -> bool {
    struct Check<'a>(&'a str);
    impl WithGame for Check<'_> {
        type Output = bool;
        fn run<G: GameDef>(self) -> bool {
            let Ok(rules) = G::parse_rules(self.0) else {
                return false;
            };
            let back = G::parse_rules(&rules.to_string())
                .unwrap_or_else(|e| panic!("{}: {rules} does not parse back: {e}", G::NAME));
            assert_eq!(back, rules, "{}", G::NAME);
            true
        }
    }
    every_game(data, |s, g| g.with(Check(s)))
}

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

fn position(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    match s.parse::<Position>() {
        Ok(p) => {
            let back: Position = p
                .to_string()
                .parse()
                .unwrap_or_else(|e| panic!("{p} does not parse back: {e}"));
            assert_eq!(back.to_string(), p.to_string());
            // Move generation must be sound on anything the parser accepts.
            let _ = p.legal_moves();
            true
        }
        Err(_) => false,
    }
}

fn move_text(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    let mut accepted = s.parse::<MoveText>().is_ok();
    for fen in ["startpos", "W:Wa2,b2,Kd4:Ba7,Kh8", "W:Wd4,e2:Bd5,d7,f5,Kb7"] {
        let Ok(pos) = fen.parse::<Position>() else {
            continue;
        };
        if let Ok(m) = pos.parse_move(s) {
            assert!(pos.legal_moves().contains(&m), "{s} in {fen}");
            let mut p = pos;
            p.play_unchecked(&m);
            accepted = true;
        }
    }
    accepted
}

fn game_record(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    match s.parse::<GameRecord>() {
        Ok(r) => {
            let written = r.to_string();
            let back: GameRecord = written
                .parse()
                .unwrap_or_else(|e| panic!("record does not read back: {e}\n{written}"));
            assert_eq!(back.game.moves(), r.game.moves());
            assert_eq!(back.game.rules(), r.game.rules());
            true
        }
        Err(_) => false,
    }
}

fn rules(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    match s.parse::<Rules>() {
        Ok(r) => {
            assert_eq!(r.to_string().parse::<Rules>().ok(), Some(r));
            true
        }
        Err(_) => false,
    }
}

fn player_spec(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    match s.parse::<dama_eval::PlayerSpec>() {
        Ok(p) => {
            let back: dama_eval::PlayerSpec = p
                .to_string()
                .parse()
                .unwrap_or_else(|e| panic!("{p} does not parse back: {e}"));
            assert_eq!(back, p);
            true
        }
        Err(_) => false,
    }
}

fn config(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    match dama_selfplay::RunConfig::parse(s) {
        Ok(c) => {
            let toml = c.to_toml().expect("a valid config writes as TOML");
            let back = dama_selfplay::RunConfig::parse(&toml)
                .unwrap_or_else(|e| panic!("config does not read back: {e}\n{toml}"));
            assert!(back == c, "config changed on the way back:\n{toml}");
            true
        }
        Err(_) => false,
    }
}

/// A `dama bot` session of every registered game (through its bot
/// adapter), fed the input; accepted if some game answered it without an
/// error.
fn bot_protocol(data: &[u8]) -> bool {
    struct Check<'a>(&'a [u8]);
    impl dama_nn::WithGame for Check<'_> {
        type Output = bool;
        fn run<G: dama_game::GameDef>(self) -> bool {
            session_protocol::<G>(self.0)
        }
    }
    GameName::ALL
        .iter()
        .fold(false, |accepted, &g| g.with(Check(data)) | accepted)
}

/// The one session of every game, with a random bot, fed `data`.
fn session_protocol<G: dama_game::GameDef>(data: &[u8]) -> bool {
    let bot = dama_bot::Bot::<G>::from_spec("random", &dama_bot::BotOptions::default())
        .expect("the random bot builds");
    let mut session = dama_bot::Session::new(bot);
    let mut out = Vec::new();
    session
        .serve(&mut std::io::Cursor::new(data), &mut out)
        .expect("writing to memory does not fail");
    // Every answer ends with one of the terminal words (docs/protocol.md),
    // and the output is text.
    let out = String::from_utf8(out).expect("the protocol writes UTF-8");
    out.lines().any(|l| !l.starts_with("error"))
}

/// A Hub session (`dama bot --protocol hub`) of the handcrafted engine at
/// depth 1, fed `data`; the end of input stops any search it started.
/// Accepted if some line was answered without an error.
fn hub_protocol(data: &[u8]) -> bool {
    let config = dama_bot::HubConfig {
        eval: None,
        eval_named: false,
        tt_mb: 1,
        threads: 1,
        limit: dama_eval::AlphaBetaLimit::Depth(1),
        tablebase: None,
        rules: dama_engine::Rules::default(),
    };
    let mut out = Vec::new();
    dama_bot::serve_hub(config, std::io::Cursor::new(data.to_vec()), &mut out)
        .expect("writing to memory does not fail");
    let out = String::from_utf8(out).expect("the protocol writes UTF-8");
    out.lines().any(|l| !l.starts_with("error"))
}

fn with_header(payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(28 + payload.len());
    bytes.extend_from_slice(b"DAMAGAME");
    bytes.extend_from_slice(&record::FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&dama_nn::files::fnv1a64(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// The input as a whole chunk file, and as the payload of a chunk with a
/// valid header and checksum (a crafted file: issue 19).
fn game_chunk(data: &[u8]) -> bool {
    let raw = record::decode_chunk(data).is_ok();
    let payload = data.get(28..).unwrap_or(data);
    let crafted = match record::decode_chunk(&with_header(payload)) {
        Ok(games) => {
            // What decodes must encode to a chunk that decodes the same.
            for g in &games {
                for s in &g.samples {
                    let mut out = [0f32; 64];
                    for p in &s.planes {
                        let _ = p.unpack_into(&mut out);
                    }
                }
            }
            true
        }
        Err(_) => false,
    };
    raw || crafted
}

fn sidecar(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    dama_nn::checkpoint::parse_meta(s, Path::new("fuzz.json")).is_ok()
}

fn bundle(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    // Either kind of bundle (a network, a learned evaluator).
    dama_bot::BundleContents::parse(s).is_ok()
}

fn opening(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    let mut any = false;
    for variant in dama_engine::Variant::ALL {
        let rules = dama_engine::Rules::for_variant(variant);
        if let Ok(o) = dama_eval::Opening::<dama_draughts::Draughts>::parse(s, &rules) {
            let back = dama_eval::Opening::<dama_draughts::Draughts>::parse(&o.text(), &rules)
                .unwrap_or_else(|e| panic!("{} does not parse back ({variant}): {e}", o.text()));
            assert_eq!(back.text(), o.text());
            any = true;
        }
    }
    any
}

fn run_state(data: &[u8]) -> bool {
    let Some(s) = text(data) else { return false };
    serde_json::from_str::<dama_selfplay::RunState>(s).is_ok()
}

fn sample_chunk_game(id: u64) -> ChunkGame {
    let mut plane = vec![0.0f32; 64];
    plane[3] = 1.0;
    ChunkGame {
        game: dama_nn::GameName::Draughts,
        game_id: id,
        generation: 1,
        rules: "no_capture_limit = 50\n".into(),
        start: "startpos".into(),
        moves: vec!["d3-d4".into(), "d6-d5".into()],
        result: GameResult::Draw,
        termination: "move cap".into(),
        ending: dama_game::EndReason::MoveCap,
        captures: 0,
        resigned: false,
        resign_disabled: false,
        would_have_resigned_wrongly: false,
        samples: vec![Sample {
            planes: vec![
                PackedPlane::pack(&plane),
                PackedPlane::pack(&[0.5; 64]),
                PackedPlane::Dense((0..64).map(|i| i as f32).collect()),
            ],
            legal: vec![1, 2, 3],
            policy: vec![0.5, 0.25, 0.25],
            search_value: [0.1, 0.8, 0.1],
            outcome: [0.0, 1.0, 0.0],
            ply: 0,
        }],
    }
}

/// The built-in seeds of a target: valid inputs of its format (what
/// `dama-fuzz --write-corpus` writes into `fuzz/corpus/<target>/`).
pub fn builtin_seeds(name: &str) -> Vec<Vec<u8>> {
    let texts: Vec<String> = match name {
        "position" => vec![
            "startpos".into(),
            "W:Wa2,b2,Kd4:Ba7,Kh8".into(),
            "B:Wd4,e2:Bd5,d7,f5,Kb7".into(),
            Position::startpos().to_string(),
        ],
        "move" => vec!["d3-d4".into(), "b3xd3xd5".into(), "Kd4-d8".into(), "a2-a3".into()],
        "game_record" => vec![
            "1. d3-d4 d6-d5 2. d4xd6xd8 *".into(),
            "[Event \"dama play\"]\n[Rules \"promotion=continue_as_king one_piece_each=draw no_capture_limit=off\"]\n1. c3-c4 f6-f5 2. b3-b4 {a comment} 1/2-1/2\n".into(),
            "[Position \"W:Wa2,b2,Kd4:Ba7,Kh8\"]\n1. Kd4-d5 *\n".into(),
        ],
        "rules" => vec![
            "default".into(),
            "promotion=continue_as_king".into(),
            "no_capture_limit=off, one_piece_each=king_beats_man".into(),
            Rules::default().to_string(),
        ],
        "player_spec" => vec![
            "random".into(),
            "greedy".into(),
            "alphabeta:depth=4,tt=16".into(),
            "alphabeta:time=100".into(),
            "mcts:sims=800".into(),
            "ckpt:runs/a/models/gen-0001.safetensors,sims=64,search=puct".into(),
            "policy:x.safetensors".into(),
        ],
        "config" => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
            let mut seeds: Vec<String> = ["smoke.toml", "quick.toml"]
                .iter()
                .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
                .collect();
            // A config of every game, its options in [rules].
            for &game in GameName::ALL {
                let mut cfg = dama_selfplay::RunConfig::default();
                cfg.game.name = game;
                cfg.rules = dama_nn::GameRules::default_for(game);
                cfg.fit_model_to_game();
                seeds.extend(cfg.to_toml().ok());
            }
            seeds
        }
        "bot_protocol" => every_game_seeds(BotProtocolSeeds),
        "hub_protocol" => {
            let start = dama_bot::hub_position(&Position::startpos());
            return vec![
                format!("hub\ninit\npos pos={start}\nlevel depth=2\ngo think\nping\n").into_bytes(),
                format!("hub\nset-param name=variant value=croda\nset-param name=no_capture_limit value=off\ninit\npos pos={start} moves=\"17-25 48-40\"\nlevel move-time=0.01\ngo analyze\nstop\nquit\n").into_bytes(),
                format!("pos pos={start} moves=\"17-25 41-33 25x57x33x49\"\nlevel nodes=500\ngo think\n").into_bytes(),
            ];
        }
        "game_chunk" => {
            let mut bytes = Vec::new();
            let dir = std::env::temp_dir().join(format!("dama-fuzz-seed-{}", std::process::id()));
            let path = dir.join("seed.games");
            let games = vec![sample_chunk_game(1), sample_chunk_game(2)];
            if record::write_chunk(&path, &games).is_ok() {
                bytes = std::fs::read(&path).unwrap_or_default();
            }
            let _ = std::fs::remove_dir_all(&dir);
            return vec![bytes];
        }
        "sidecar" => every_game_seeds(SidecarSeeds),
        "bundle" => {
            let mut seeds = every_game_seeds(BundleSeeds);
            // A learned-evaluator bundle of each game that learns one.
            for game in dama_nn::GameName::learned() {
                let (rules, game_rules_text) = dama_nn::GameRules::default_for(game).file_fields();
                let evaluator = dama_bot::EvaluatorBundleMeta {
                format: dama_bot::BUNDLE_FORMAT,
                kind: dama_bot::BundleKind::Evaluator,
                game,
                rules,
                game_rules_text,
                limit: dama_eval::AlphaBetaLimit::TimeMs(1000),
                threads: 2,
                tt_mb: 16,
                evaluator_file: "evaluator.nnue".into(),
                evaluator_bytes: 201_000,
                evaluator_fnv1a64: "0123456789abcdef".into(),
                generation: Some(3),
                step: Some(900),
                elo: Vec::new(),
                source: "checkpoints/n/best.nnue".into(),
                python_wheel: None,
                dama_version: "0.1.0".into(),
            };
                seeds.push(serde_json::to_string_pretty(&evaluator).unwrap_or_default());
            }
            seeds
        }
        "opening" => vec![
            "d3-d4 d6-d5".into(),
            "1. c3-c4 f6-f5".into(),
            "W:Wa2,b2,Kd4:Ba7,Kh8 Kd4-d5".into(),
        ],
        "game_position" => vec![
            "startpos".into(),
            "W:Wa2,b2,Kd4:Ba7,Kh8".into(),
            "W:Wa2,b2:Ba5,Kf6".into(),
            "B:Wd8:Bb2,b4,c3,d4,b1,Ka5".into(),
            "W:WKd3:Bd2,d4,c5,c3,b2,Kb4".into(),
        ]
        .into_iter()
        .chain(every_game_seeds(PositionSeeds))
        .collect(),
        "game_move" => vec![
            "d3-d4".into(),
            "b2-b3".into(),
            "b1-b3-d3".into(),
            "a7xoff".into(),
            "c5-c4".into(),
            "b1-b2".into(),
        ],
        "game_rules" => vec![
            "default".into(),
            "variant=croda".into(),
            "no_capture_limit=40 one_piece_each=draw".into(),
            "majority=on,defender_man_chain=on".into(),
            "goal=column8 ply_limit=off limit_result=draw".into(),
        ]
        .into_iter()
        .chain(every_game_seeds(RulesSeeds))
        .collect(),
        "run_state" => vec![
            "{\"version\":1,\"generation\":2,\"step\":6,\"best_generation\":2,\"elapsed_secs\":1.5}"
                .into(),
        ],
        _ => Vec::new(),
    };
    texts.into_iter().map(String::into_bytes).collect()
}

/// Seeds of every registered game, built from its seam (`G::start`,
/// `position_text`, its legal moves, its default rules), so that a game
/// added by one registry line has seeds too.
fn every_game_seeds<W: WithGame<Output = Vec<String>> + Copy>(w: W) -> Vec<String> {
    GameName::ALL.iter().flat_map(|g| g.with(w)).collect()
}

/// A game of `G` after its first legal move `plies` times.
fn after_first_moves<G: GameDef>(plies: usize) -> G::Game {
    let mut game = G::start(&G::Rules::default());
    for _ in 0..plies {
        let Some(first) = G::legal_moves(&game).into_iter().next() else {
            break;
        };
        if G::play(&mut game, &first).is_err() {
            break;
        }
    }
    game
}

/// `bot_protocol`: a session of each game, its moves and positions.
#[derive(Clone, Copy)]
struct BotProtocolSeeds;

impl WithGame for BotProtocolSeeds {
    type Output = Vec<String>;
    fn run<G: GameDef>(self) -> Vec<String> {
        let start = G::start(&G::Rules::default());
        let first = G::legal_moves(&start)
            .first()
            .map(|m| format!(" moves {m}"))
            .unwrap_or_default();
        let later = G::position_text(&after_first_moves::<G>(3));
        vec![
            format!("hello\nisready\nposition startpos{first}\ngo\nlegal\nshow\nquit\n"),
            format!(
                "rules {}\nnewgame\nundo 1\ngo sims 1\neval\n",
                G::Rules::default()
            ),
            format!("position {later}\nlegal\ngo time 1\n"),
        ]
    }
}

/// `game_position`: each game's start and a later position.
#[derive(Clone, Copy)]
struct PositionSeeds;

impl WithGame for PositionSeeds {
    type Output = Vec<String>;
    fn run<G: GameDef>(self) -> Vec<String> {
        vec![
            G::position_text(&G::start(&G::Rules::default())),
            G::position_text(&after_first_moves::<G>(4)),
        ]
    }
}

/// `game_rules`: each game's default rules text.
#[derive(Clone, Copy)]
struct RulesSeeds;

impl WithGame for RulesSeeds {
    type Output = Vec<String>;
    fn run<G: GameDef>(self) -> Vec<String> {
        vec![G::Rules::default().to_string()]
    }
}

/// `sidecar`: a checkpoint sidecar of each game (its encoding and rules),
/// and the older form of a game whose rules had a field of their own.
#[derive(Clone, Copy)]
struct SidecarSeeds;

impl WithGame for SidecarSeeds {
    type Output = Vec<String>;
    fn run<G: GameDef>(self) -> Vec<String> {
        let Some(game) = GameName::of::<G>() else {
            return Vec::new();
        };
        let encoding = game.encoding();
        let rules = dama_nn::GameRules::default_for(game);
        let other = game != GameName::default();
        let mut meta = dama_nn::CheckpointMeta {
            format: dama_nn::checkpoint::CHECKPOINT_FORMAT,
            game,
            game_rules_text: other.then(|| rules.text()),
            legacy: dama_nn::LegacyRuleFields::default(),
            encoding_version: encoding.version,
            model: dama_nn::ModelConfig::quick().with_shape(encoding.shape),
            rules: rules.draughts().unwrap_or_default(),
            step: 3,
            train: Some(dama_nn::TrainConfig::default()),
            weights: dama_nn::checkpoint::FileEntry {
                file: "gen-0001.safetensors".into(),
                bytes: 1234,
                fnv1a64: "0123456789abcdef".into(),
            },
            optimizer: None,
        };
        let mut seeds = vec![serde_json::to_string_pretty(&meta).unwrap_or_default()];
        if let Some(legacy) = dama_nn::LegacyRuleFields::holding(&rules) {
            meta.game_rules_text = None;
            meta.legacy = legacy;
            seeds.push(serde_json::to_string_pretty(&meta).unwrap_or_default());
        }
        seeds
    }
}

/// `bundle`: a network bundle's `bundle.json` of each game, and the older
/// form of a game whose rules had a field of their own.
#[derive(Clone, Copy)]
struct BundleSeeds;

impl WithGame for BundleSeeds {
    type Output = Vec<String>;
    fn run<G: GameDef>(self) -> Vec<String> {
        let Some(game) = GameName::of::<G>() else {
            return Vec::new();
        };
        let encoding = game.encoding();
        let rules = dama_nn::GameRules::default_for(game);
        let (draughts, game_rules_text) = dama_bot::BundleMeta::rule_fields(&rules);
        let mut meta = dama_bot::BundleMeta {
            format: dama_bot::BUNDLE_FORMAT,
            kind: dama_bot::BundleKind::Network,
            game,
            game_rules_text,
            legacy: dama_nn::LegacyRuleFields::default(),
            encoding_version: encoding.version,
            input_planes: encoding.shape.planes,
            policy_size: encoding.shape.policy_size(),
            rules: draughts,
            model: dama_nn::ModelConfig::quick().with_shape(encoding.shape),
            search: dama_mcts::SearchConfig::default(),
            step: 1,
            generation: Some(1),
            elo: Vec::new(),
            source: "checkpoints/a/models/gen-0001.safetensors".into(),
            model_file: "model.ts".into(),
            weights_file: "weights.safetensors".into(),
            check: None,
            python_wheel: None,
            dama_version: "0.1.0".into(),
        };
        let mut seeds = vec![serde_json::to_string_pretty(&meta).unwrap_or_default()];
        if let Some(legacy) = dama_nn::LegacyRuleFields::holding(&rules) {
            meta.game_rules_text = None;
            meta.legacy = legacy;
            seeds.push(serde_json::to_string_pretty(&meta).unwrap_or_default());
        }
        seeds
    }
}
