//! Checkpoint players: a freshly initialised network saved to disk plays
//! legal games through both `ckpt:` and `policy:` specs (issue 7).

use dama_draughts::Draughts;
use dama_eval::{parse_player, play_match, BuildOptions, MatchConfig};
use dama_nn::{ModelConfig, Network};
use rand::SeedableRng;

#[test]
fn checkpoint_players_play_legal_games() {
    let dir = std::env::temp_dir().join(format!("dama-eval-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("tiny.safetensors");
    let device = dama_nn::device::parse_device("cpu").expect("cpu");
    let net = Network::new(&ModelConfig::quick(), device).expect("network");
    dama_nn::save_network(&net, dama_engine::Rules::default(), 0, &path).expect("save");

    let options = BuildOptions {
        device: Some(dama_run::DeviceSpec::Cpu),
        ..BuildOptions::default()
    };
    let policy = parse_player::<Draughts>(&format!("policy:{}", path.display()), &options).unwrap();
    let gumbel =
        parse_player::<Draughts>(&format!("ckpt:{},sims=8", path.display()), &options).unwrap();
    let puct = parse_player::<Draughts>(
        &format!("ckpt:{},sims=8,search=puct", path.display()),
        &options,
    )
    .unwrap();
    let random = parse_player::<Draughts>("random", &options).unwrap();
    let config = MatchConfig {
        games: 2,
        seed: 3,
        max_plies: 60,
        ..MatchConfig::default()
    };
    for p in [&policy, &gumbel, &puct] {
        let r = play_match(p.as_ref(), random.as_ref(), &config, &|_| {}).unwrap();
        assert_eq!(r.games, 2, "{}", p.name());
    }
    let missing = parse_player::<Draughts>("ckpt:/nonexistent/x.safetensors", &options);
    assert!(missing.is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tiny_checkpoint(dir: &std::path::Path, name: &str, seed: u64) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).expect("temp dir");
    let path = dir.join(name);
    let device = dama_nn::device::parse_device("cpu").expect("cpu");
    dama_nn::device::manual_seed(seed);
    let net = Network::new(&ModelConfig::quick(), device).expect("network");
    dama_nn::save_network(&net, dama_engine::Rules::default(), 0, &path).expect("save");
    path
}

fn cpu() -> BuildOptions {
    BuildOptions {
        device: Some(dama_run::DeviceSpec::Cpu),
        ..BuildOptions::default()
    }
}

/// Issue 12: the batched arena (games' searches sharing network calls)
/// plays the same moves as one evaluation at a time, for Gumbel and PUCT
/// players, against a baseline and against another network.
#[test]
fn batched_arena_plays_the_same_moves_as_unbatched() {
    let dir = std::env::temp_dir().join(format!("dama-eval-batched-{}", std::process::id()));
    let a = tiny_checkpoint(&dir, "a.safetensors", 1);
    let b = tiny_checkpoint(&dir, "b.safetensors", 2);
    let options = cpu();
    let cases = [
        (format!("ckpt:{},sims=8", a.display()), "greedy".to_owned()),
        (
            format!("ckpt:{},sims=6,search=puct", a.display()),
            format!("ckpt:{},sims=5", b.display()),
        ),
    ];
    for (sa, sb) in cases {
        let pa = parse_player::<Draughts>(&sa, &options).unwrap();
        let pb = parse_player::<Draughts>(&sb, &options).unwrap();
        let play = |batch_games: usize| {
            let config = MatchConfig {
                games: 5,
                seed: 11,
                max_plies: 40,
                keep_records: true,
                batch_games,
                ..MatchConfig::default()
            };
            play_match(pa.as_ref(), pb.as_ref(), &config, &|_| {}).unwrap()
        };
        let unbatched = play(0);
        let batched = play(64);
        let two_at_a_time = play(2);
        assert_eq!(unbatched.records.len(), 5);
        for r in [&batched, &two_at_a_time] {
            assert_eq!(r.records, unbatched.records, "{sa} vs {sb}");
            assert_eq!(r.wdl, unbatched.wdl);
            assert_eq!(r.pentanomial, unbatched.pentanomial);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 12: `ckpt:PATH,time=MS` spends about its budget per move (the
/// jumps of a capture share it) and always returns a legal move.
#[test]
fn timed_checkpoint_players_keep_their_budget() {
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("dama-eval-timed-{}", std::process::id()));
    let a = tiny_checkpoint(&dir, "a.safetensors", 3);
    dama_nn::device::set_torch_threads(1);
    let budget = Duration::from_millis(150);
    for (search, option) in [("gumbel", ",search=gumbel"), ("puct", "")] {
        let spec = format!("ckpt:{},time=150{option}", a.display());
        let factory = parse_player::<Draughts>(&spec, &cpu()).unwrap();
        assert_eq!(factory.name(), spec);
        let mut player = factory.build().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut game = dama_engine::Game::new();
        let mut searched = Vec::new();
        for _ in 0..10 {
            if game.is_game_over() {
                break;
            }
            let t = Instant::now();
            let m = player.choose(&game, &mut rng).unwrap();
            let took = t.elapsed();
            assert!(game.legal_moves().contains(&m), "{search}: illegal {m}");
            // The clock is checked between network calls, so a move may
            // overrun by one evaluation; on a loaded machine a debug-build
            // evaluation can take 100 ms. A search that ignored the clock
            // would run a million simulations.
            assert!(
                took < budget + Duration::from_millis(400),
                "{search}: {took:?}"
            );
            if game.legal_steps().len() > 1 {
                searched.push(took);
            }
            game.play(&m).unwrap();
        }
        // A decision with a choice uses most of its time (Gumbel sizes its
        // search from the measured speed, so allow it some slack).
        let long = searched.iter().filter(|t| **t >= budget / 3).count();
        assert!(
            long * 2 >= searched.len(),
            "{search}: {searched:?} mostly shorter than a third of {budget:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `NetworkPlayer::<G>::load` reads a checkpoint of its own game, whatever
/// the game (it once fell back to draughts and refused every Tafl one),
/// and refuses another game's by name.
#[test]
fn network_players_load_their_own_games_checkpoints() {
    let dir = std::env::temp_dir().join(format!("dama-eval-games-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let device = dama_nn::device::parse_device("cpu").expect("cpu");
    let shape = <dama_tafl::Tafl as dama_game::GameDef>::shape();
    let net = Network::new(&ModelConfig::quick().with_shape(shape), device).expect("network");
    let tafl = dir.join("tafl.safetensors");
    dama_nn::save_network(&net, dama_tafl::TaflRules::default(), 0, &tafl).expect("save");
    let draughts = tiny_checkpoint(&dir, "draughts.safetensors", 1);
    let cpu = dama_run::DeviceSpec::Cpu;
    assert!(dama_eval::NetworkPlayer::<dama_tafl::Tafl>::load("t", &tafl, cpu, None).is_ok());
    assert!(dama_eval::NetworkPlayer::<Draughts>::load("d", &draughts, cpu, None).is_ok());
    let err = dama_eval::NetworkPlayer::<Draughts>::load("d", &tafl, cpu, None)
        .err()
        .expect("a Tafl checkpoint is not draughts'");
    let chain = format!("{err}: {:?}", std::error::Error::source(&err));
    assert!(chain.contains("tafl") || chain.contains("Tafl"), "{chain}");
    std::fs::remove_dir_all(&dir).unwrap();
}
