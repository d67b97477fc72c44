//! The network dama ships (`networks/turkish.nnue`, `eval=shipped`): it
//! is built in, plays the standard rules only, and is the one the last
//! entry of `networks/history.toml` describes, each entry the child of
//! the one before it and measured against it.

#![allow(clippy::unwrap_used)]

use dama_draughts::shipped::{shipped_rules, SHIPPED};
use dama_draughts::Draughts;
use dama_draughts::{EngineError, Evaluation};
use dama_engine::Rules;
use dama_game::EvalSource;
use dama_nnue::LearnedGame;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct History {
    network: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Read for the schema: every key is checked to exist.
struct Entry {
    id: u32,
    checksum: String,
    parent: Option<u32>,
    rules: String,
    config: String,
    command: String,
    generation: u32,
    positions: u64,
    hours: f64,
    machine: String,
    #[serde(rename = "match")]
    matches: Vec<Match>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Match {
    against: String,
    limit: String,
    command: String,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    elo: f64,
    elo_low: f64,
    elo_high: f64,
    load: String,
}

fn history() -> History {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../networks/history.toml");
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_built_in_network_is_the_last_in_the_history() {
    let history = history();
    let last = history.network.last().unwrap();
    assert_eq!(
        last.checksum,
        Draughts::shipped_file().unwrap().checksum(),
        "{} is not the history's last network",
        SHIPPED.path
    );
    let on_disk = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../networks/turkish.nnue"
    ))
    .unwrap();
    assert_eq!(on_disk, SHIPPED.bytes);
    let rules = shipped_rules().unwrap();
    assert_eq!(rules, Rules::default());
    assert_eq!(last.rules, rules.to_string());
    for (i, e) in history.network.iter().enumerate() {
        assert_eq!(e.id as usize, i + 1);
        assert_eq!(e.parent, (i > 0).then_some(i as u32));
        // Each network measured against its predecessor (the first against
        // the handcrafted evaluation), and it scored above half.
        let parent = match e.parent {
            None => "handcrafted".to_owned(),
            Some(p) => format!("network {p}"),
        };
        let m = e
            .matches
            .iter()
            .find(|m| m.against == parent)
            .unwrap_or_else(|| panic!("network {} has no match against {parent}", e.id));
        assert_eq!(m.wins + m.draws + m.losses, m.games);
        assert!(
            2 * m.wins + m.draws > m.games,
            "network {} did not beat {parent}",
            e.id
        );
        assert!(m.elo_low <= m.elo && m.elo <= m.elo_high);
    }
}

#[test]
fn shipped_plays_the_standard_rules_only() {
    let e = Evaluation::of_spec(Some(&EvalSource::Shipped), None).unwrap();
    assert_eq!(e.rules(), Some(&Rules::default()));
    let croda: Rules = "variant=croda".parse().unwrap();
    let err = Evaluation::of_spec(Some(&EvalSource::Shipped), Some(&croda)).unwrap_err();
    assert!(matches!(err, EngineError::Rules { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("shipped") && text.contains("variant=croda"),
        "{text}"
    );
}
