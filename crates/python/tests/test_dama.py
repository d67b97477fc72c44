"""The compiled module (`import dama`) against the Rust engines and the
pure-Python twin it replaces.

Run by scripts/test-python.sh (the README's test command runs it) with
DAMA_BIN set to the `dama` binary; `pytest crates/python/tests`.

* Every registered game: perft from Python equals `dama perft` (the Rust
  binary, another process) at depth 4 from the start and from ten seeded
  random positions.
* Encodings: for a thousand seeded random positions of draughts and of
  Turkish Tafl, the module's input planes equal the pure-Python twin's
  (scripts/dama_py, written separately from the rules text); every game's
  planes have the shape and values a network reads.
* Players, the arena, and errors as ValueError.
"""
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dama

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

DAMA_BIN = os.environ.get("DAMA_BIN", str(ROOT / "target" / "debug" / "dama"))


def random_positions(game, n, seed, max_plies=60):
    """`n` position texts of seeded random games of `game`."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        g = dama.Game(game)
        for _ in range(rng.randrange(1, max_plies)):
            moves = g.legal_moves()
            if g.is_over() or not moves:
                break
            g.play(rng.choice(moves))
        if not g.is_over() and g.legal_moves():
            out.append(g.position)
    return out


def rust_perft(game, position, depth):
    out = subprocess.run(
        [DAMA_BIN, "perft", "--game", game, "--depth", str(depth), "--position", position],
        capture_output=True, text=True, check=True,
    ).stdout
    # stdout is the count alone (the speed goes to stderr).
    return int(out.strip())


def test_games_are_the_registry():
    assert dama.games() == ["draughts", "tafl", "minidama"]


@pytest.mark.parametrize("game", dama.games())
def test_perft_equals_the_rust_binary(game):
    positions = ["startpos"] + random_positions(game, 10, seed=4)
    for pos in positions:
        g = dama.Game(game, position=pos)
        assert g.perft(4) == rust_perft(game, pos, 4), pos
    assert dama.perft(2, game=game) == dama.Game(game).perft(2)


def test_draughts_encoding_equals_the_python_twin():
    from dama_py.encode import encode_planes
    from dama_py.position import Position

    for pos in random_positions("draughts", 1000, seed=5):
        ours = dama.Game("draughts", position=pos).encode()
        twin = encode_planes(Position.parse(pos)).reshape(ours.shape)
        np.testing.assert_array_equal(ours, twin, err_msg=pos)


def test_tafl_encoding_equals_the_python_twin():
    from dama_py import tafl

    for pos in random_positions("tafl", 1000, seed=6):
        ours = dama.Game("tafl", position=pos).encode()
        twin = tafl.encode_planes(tafl.Game.new(None, pos)).reshape(ours.shape)
        np.testing.assert_array_equal(ours, twin, err_msg=pos)


@pytest.mark.parametrize("game,shape", [("draughts", (13, 8, 8)), ("tafl", (12, 8, 4)), ("minidama", (9, 6, 6))])
def test_every_game_encodes_to_its_shape(game, shape):
    for pos in ["startpos"] + random_positions(game, 20, seed=7):
        x = dama.Game(game, position=pos).encode()
        assert x.shape == shape and x.dtype == np.float32
        assert np.isfinite(x).all() and x.any()


@pytest.mark.parametrize("game", dama.games())
def test_actions_index_the_policy_and_start_the_legal_moves(game):
    for pos in ["startpos"] + random_positions(game, 30, seed=8):
        g = dama.Game(game, position=pos)
        actions = g.actions()
        indices = [i for _, i in actions]
        assert actions and len(set(indices)) == len(indices), pos
        assert all(0 <= i < g.policy_size for i in indices), pos
        # The actions start from the squares the legal whole moves start from.
        start = lambda text: re.match(r"K?([a-h][1-8])", text).group(1)
        assert {start(a) for a, _ in actions} == {start(m) for m in g.legal_moves()}, pos


def test_draughts_policy_indices_equal_the_python_twin():
    from dama_py.encode import policy_index
    from dama_py.movegen import State, state_steps
    from dama_py.position import Position

    for pos in random_positions("draughts", 200, seed=9):
        ours = sorted(i for _, i in dama.Game("draughts", position=pos).actions())
        p = Position.parse(pos)
        st = State(p, None)
        twin = sorted(policy_index(s, p.turn) for s in state_steps(st))
        assert ours == twin, pos


def test_a_game_plays_to_its_end():
    g = dama.Game("minidama")
    p = [dama.Player("mcts:sims=10", "minidama", seed=1), dama.Player("random", "minidama", seed=2)]
    while not g.is_over():
        g.play(p[g.turn].choose(g))
    reason, text = g.ending()
    assert reason in ("NoMoves", "Repetition", "NoCaptureLimit", "Other") and text
    assert g.plies == len(g.moves)
    with pytest.raises(ValueError, match="over"):
        g.play("a2-a3")
    replay = dama.Game("minidama")
    for m in g.moves:
        replay.play(m)
    assert replay.position == g.position


def test_copies_are_independent():
    g = dama.Game()
    c = g.copy()
    c.play(c.legal_moves()[0])
    assert g.plies == 0 and c.plies == 1


def test_the_alpha_beta_engine_plays_a_legal_move():
    g = dama.Game(rules="no_capture_limit=off")
    for spec in ["alphabeta:depth=3", "alphabeta:depth=2,eval=shipped", "greedy", "mcts:sims=20"]:
        assert dama.Player(spec).choose(g) in g.legal_moves(), spec
    t = dama.Game("tafl")
    assert dama.Player("alphabeta:depth=2", "tafl").choose(t) in t.legal_moves()
    found = dama.Player("alphabeta:depth=4").think(g)
    assert found["depth"] == 4 and found["nodes"] > 0 and found["pv"][0] == found["move"]
    assert isinstance(found["score_cm"], int) and found["seconds"] >= 0


def test_a_match_reports_the_arena_result():
    r = dama.play_match("greedy", "random", game="tafl", games=6, seed=3)
    assert r["games"] == 6
    wdl = r["wdl"]
    assert wdl["wins"] + wdl["draws"] + wdl["losses"] == 6
    assert set(r["elo"]) >= {"elo", "lo", "hi"}
    assert r["sides"] == ["Defenders", "King side"]


def test_errors_are_value_errors_naming_the_problem():
    with pytest.raises(ValueError, match="unknown game"):
        dama.Game("chess")
    with pytest.raises(ValueError, match="position"):
        dama.Game(position="W:Wz9:B")
    with pytest.raises(ValueError, match="rules"):
        dama.Game(rules="variant=chess")
    g = dama.Game()
    with pytest.raises(ValueError):
        g.play("a3-a5")
    with pytest.raises(ValueError, match="player"):
        dama.Player("alphabeta:depth=999")
    with pytest.raises(ValueError, match="plays Turkish Tafl"):
        dama.Player("random", "tafl").choose(dama.Game("draughts"))
    with pytest.raises(ValueError, match="too deep"):
        g.perft(40)
    with pytest.raises(ValueError, match="games"):
        dama.play_match("random", "random", games=0)


def test_a_run_directory_reads_through_the_rust_types(tmp_path):
    subprocess.run(
        [DAMA_BIN, "train", "--config", str(ROOT / "configs" / "smoke.toml"),
         "--checkpoints", str(tmp_path), "--run", "smoke", "--quiet"],
        check=True, capture_output=True,
    )
    run = dama.read_run(tmp_path / "smoke")
    lines = [l for l in (tmp_path / "smoke" / "metrics.jsonl").read_text().splitlines() if l.strip()]
    assert len(run["metrics"]) == len(lines)
    kinds = {e["kind"] for e in run["metrics"]}
    assert {"session", "selfplay", "train", "generation"} <= kinds, kinds
    assert run["state"]["generation"] == 2
    assert "[selfplay]" in run["config"]
    last = [e for e in run["metrics"] if e["kind"] == "generation"][-1]
    assert last["generation"] == 2
    with pytest.raises(ValueError, match="not a run directory"):
        dama.read_run(tmp_path / "nothing")
