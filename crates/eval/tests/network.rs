//! Checkpoint players: a freshly initialised network saved to disk plays
//! legal games through both `ckpt:` and `policy:` specs (issue 7).

use dama_eval::{parse_player, play_match, BuildOptions, MatchConfig};
use dama_nn::{ModelConfig, Network};

#[test]
fn checkpoint_players_play_legal_games() {
    let dir = std::env::temp_dir().join(format!("dama-eval-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("tiny.safetensors");
    let device = dama_nn::device::parse_device("cpu").expect("cpu");
    let net = Network::new(&ModelConfig::quick(), device).expect("network");
    dama_nn::save_network(&net, &dama_engine::Rules::default(), 0, &path).expect("save");

    let options = BuildOptions {
        device: Some("cpu".to_owned()),
        ..BuildOptions::default()
    };
    let policy = parse_player(&format!("policy:{}", path.display()), &options).unwrap();
    let gumbel = parse_player(&format!("ckpt:{},sims=8", path.display()), &options).unwrap();
    let puct = parse_player(
        &format!("ckpt:{},sims=8,search=puct", path.display()),
        &options,
    )
    .unwrap();
    let random = parse_player("random", &options).unwrap();
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
    let missing = parse_player("ckpt:/nonexistent/x.safetensors", &options);
    assert!(missing.is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
