//! `dama device`: a forward pass of a small network of each game on its
//! start position, and a bad `--game` refused by name.

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use crate::common::{dama, err, ok};

#[test]
fn device_runs_a_forward_pass_of_every_game() {
    for (game, title) in [
        ("draughts", "Turkish draughts's"),
        ("tafl", "Turkish Tafl's"),
        ("minidama", "Mini Turkish draughts (6×6)'s"),
    ] {
        let out = ok(dama(&["device", "--device", "cpu", "--game", game]));
        assert!(
            out.contains("device: cpu") || out.contains("device: CPU"),
            "{out}"
        );
        assert!(out.contains(title), "{game}: {out}");
        assert!(out.contains("priors, value W/D/L"), "{game}: {out}");
    }
    let e = err(dama(&["device", "--device", "cpu", "--game", "chess"]));
    assert!(e.contains("chess"), "{e}");
}
