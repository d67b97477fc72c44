//! The network dama ships for Turkish Tafl (`networks/tafl.nnue`,
//! `eval=shipped` with `--game tafl`): built in, trained under the default
//! rules, and the one the last entry of `networks/tafl-history.toml`
//! describes, each entry measured against the handcrafted engine at equal
//! time and against the one before it.

#![allow(clippy::unwrap_used)]

use dama_game::{AlphaBetaLimit, AlphaBetaSpec, EvalSource, OwnSpec};
use dama_nnue::LearnedGame;
use dama_tafl::players::{own_of, TaflEvaluation};
use dama_tafl::shipped::{shipped_rules, SHIPPED};
use dama_tafl::{Game, Tafl, TaflRules};

#[test]
fn the_built_in_network_is_the_last_in_the_history() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../networks/tafl-history.toml"
    );
    let history: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    let networks = history["network"].as_array().unwrap();
    let last = networks.last().unwrap();
    assert_eq!(
        last["checksum"].as_str().unwrap(),
        Tafl::shipped_file().unwrap().checksum(),
        "{} is not the history's last network",
        SHIPPED.path
    );
    let on_disk = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../networks/tafl.nnue"
    ))
    .unwrap();
    assert_eq!(on_disk, SHIPPED.bytes);
    let rules = shipped_rules().unwrap();
    assert_eq!(rules, TaflRules::default());
    assert_eq!(last["rules"].as_str().unwrap(), rules.to_string());
    for (i, e) in networks.iter().enumerate() {
        assert_eq!(e["id"].as_integer().unwrap() as usize, i + 1);
        assert_eq!(
            e.get("parent").and_then(toml::Value::as_integer),
            (i > 0).then_some(i as i64)
        );
        for key in ["config", "command", "machine"] {
            assert!(e[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
        }
        // Measured against the handcrafted engine at equal time and, after
        // the first, against its parent; it beat both.
        let mut against = vec!["handcrafted".to_owned()];
        if let Some(p) = e.get("parent").and_then(toml::Value::as_integer) {
            against.push(format!("network {p}"));
        }
        for who in against {
            let m = e["match"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["against"].as_str() == Some(&who))
                .unwrap_or_else(|| panic!("network {} has no match against {who}", i + 1));
            let n = |k: &str| m[k].as_integer().unwrap();
            assert_eq!(n("wins") + n("draws") + n("losses"), n("games"));
            assert!(
                2 * n("wins") + n("draws") > n("games"),
                "network {} did not beat {who}",
                i + 1
            );
            let elo = |k: &str| m[k].as_float().unwrap();
            assert!(elo("elo_low") <= elo("elo") && elo("elo") <= elo("elo_high"));
        }
    }
}

#[test]
fn eval_shipped_plays_the_built_in_network() {
    let spec = OwnSpec::AlphaBeta(AlphaBetaSpec {
        limit: AlphaBetaLimit::Depth(2),
        tt_mb: 1,
        eval: Some(EvalSource::Shipped),
        threads: 1,
    });
    let (_, evaluation) = own_of(&spec).unwrap();
    let TaflEvaluation::Learned { path, .. } = &evaluation else {
        panic!("eval=shipped gave {evaluation:?}");
    };
    assert_eq!(path.as_os_str(), SHIPPED.path);
    assert_eq!(evaluation.rules(), Some(&TaflRules::default()));
    let game = Game::new(TaflRules::default());
    assert!(dama_tafl::players::best_move_with(&game, 2, &evaluation, None).is_some());
}
