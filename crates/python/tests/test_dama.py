"""The compiled module (`import dama`) against the Rust engines, the engine's
perft data and the encoders' documented layouts, and the Python side of
bundles built on it.

Run by scripts/test-python.sh (the README's test command runs it) with
DAMA_BIN set to the `dama` binary; `pytest crates/python/tests`. The bundle
and network tests need PyTorch (the project's venv has it).

* Perft: every registered game from Python equals `dama perft` (the Rust
  binary, another process) from the start and seeded random positions,
  under every draughts variant and rule option that changes move generation
  and several Tafl rules; the counts of the engine's perft data files
  (crates/engine/tests/data, every variant) and those the sources state
  for Tafl and Mini draughts.
* Encodings and policy indices against their documented layouts (the games'
  `encoding_notes`): the start's planes, Black's board flipped (a position
  and its mirror image encode alike), the repetition and clock planes, every
  legal action's index decoded by the draughts formula, known Tafl indices.
* Bundles: `dama export` of a checkpoint of every game; the bundle's own
  `bundle_example.py`, run outside the repository, reproduces `dama analyse`
  (the Rust encoder and network) through `torch.jit.load` and this module,
  and refuses a bundle of another encoding. The PyTorch twin
  (scripts/torch_twin.py) evaluates checkpoints as `dama analyse` does.
* Players, the arena, run directories, and errors as ValueError.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dama

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

DAMA_BIN = os.path.abspath(os.environ.get("DAMA_BIN", ROOT / "target" / "debug" / "dama"))
PERFT_DATA = ROOT / "crates" / "engine" / "tests" / "data"

# Rules that change move generation: every draughts variant and option, and
# several Tafl rule sets.
DRAUGHTS_RULES = ["promotion=continue_as_king", "variant=armenian", "variant=croda",
                  "variant=croda,croda_removal=immediate,croda_man_captures=forward_sideways", "variant=dameo"]
TAFL_RULES = ["first=king_side,defender_man_chain=on,majority=on", "goal=column8,surround=edge_counts"]


def random_positions(game, n, seed, max_plies=60, rules=None):
    """`n` position texts of seeded random games of `game`."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        g = dama.Game(game, rules=rules)
        for _ in range(rng.randrange(1, max_plies)):
            moves = g.legal_moves()
            if g.is_over() or not moves:
                break
            g.play(rng.choice(moves))
        if not g.is_over() and g.legal_moves():
            out.append(g.position)
    return out


def rust_perft(game, position, depth, rules=None):
    out = subprocess.run(
        [DAMA_BIN, "perft", "--game", game, "--depth", str(depth), "--position", position]
        + (["--rules", rules] if rules else []),
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


@pytest.mark.parametrize("game,rules", [("draughts", r) for r in DRAUGHTS_RULES] + [("tafl", r) for r in TAFL_RULES])
def test_perft_under_other_rules_equals_the_rust_binary(game, rules):
    for pos in ["startpos"] + random_positions(game, 4, seed=12, rules=rules):
        assert dama.Game(game, rules=rules, position=pos).perft(3) == rust_perft(game, pos, 3, rules), pos


# The perft files' older rule tokens (crates/engine/tests/engine/common/mod.rs).
LEGACY_RULES = {"continue-as-king": "promotion=continue_as_king", "king-beats-man": "one_piece_each=king_beats_man"}


def rules_of_perft_line(rest):
    if "=" in rest:
        return rest
    toks, out = rest.split(), []
    while toks:
        t = toks.pop(0)
        if t == "no-capture-limit":
            out.append("no_capture_limit=" + toks.pop(0))
        else:
            out.append(LEGACY_RULES[t])
    return " ".join(out)


def perft_cases(max_nodes=5_000_000):
    """(file, id, position, rules, depth, nodes) of the engine's perft data
    (draw rules do not change perft: `clock` and `result` lines are
    ignored)."""
    for f in sorted(PERFT_DATA.glob("*.perft")):
        pid, epd, rules = None, None, None
        for line in f.read_text(encoding="utf-8").splitlines():
            key, _, rest = line.strip().partition(" ")
            if key == "id":
                pid, epd, rules = rest, None, None
            elif key == "epd":
                epd = rest
            elif key == "rules":
                rules = rules_of_perft_line(rest)
            elif key == "perft" and epd is not None:
                depth, nodes = rest.split()
                if nodes != "?" and int(nodes) <= max_nodes:
                    yield f.name, pid, epd, rules, int(depth), int(nodes)


def test_perft_equals_the_engine_perft_data():
    cases = list(perft_cases())
    files = {c[0] for c in cases}
    assert len(cases) > 200 and {"armenian.perft", "croda.perft", "dameo.perft", "rules.perft"} <= files, files
    for fname, pid, epd, rules, depth, nodes in cases:
        got = dama.Game("draughts", rules=rules, position=epd).perft(depth)
        assert got == nodes, f"{fname} {pid} ({rules}) perft {depth}"


def test_perft_stated_by_the_sources():
    # crates/tafl/src/lib.rs: 6 moves, perft 4 = 4497; crates/minidama: 6 moves, perft 3 = 286, 4 = 2136.
    t, m = dama.Game("tafl"), dama.Game("minidama")
    assert (len(t.legal_moves()), t.perft(4)) == (6, 4497)
    assert (len(m.legal_moves()), m.perft(3), m.perft(4)) == (6, 286, 2136)


# Encodings against their documented layouts.

SQUARE = re.compile(r"([a-h])([1-8])")


def draughts_pieces(text):
    """{square: (colour, king)} and the side to move of a draughts position."""
    turn, *groups = text.split(":")
    pieces = {}
    for group in groups:
        colour, squares = group[0], group[1:]
        for s in filter(None, squares.split(",")):
            pieces[s.lstrip("K")] = (colour, s.startswith("K"))
    return turn, pieces


def mirror(text):
    """The draughts position with the colours swapped and the board flipped
    vertically (rank r -> 9 - r)."""
    turn, pieces = draughts_pieces(text)
    other = {"W": "B", "B": "W"}
    groups = {"W": [], "B": []}
    for sq, (colour, king) in sorted(pieces.items()):
        groups[other[colour]].append(("K" if king else "") + sq[0] + str(9 - int(sq[1])))
    return f"{other[turn]}:W{','.join(groups['W'])}:B{','.join(groups['B'])}"


def index(square, black=False):
    """A draughts square's index 0..63 from the mover's side (Black's board
    flipped vertically)."""
    f, r = ord(square[0]) - ord("a"), int(square[1]) - 1
    return (7 - r if black else r) * 8 + f


def test_draughts_start_planes():
    x = dama.Game().encode().reshape(13, 64)
    assert list(np.flatnonzero(x[0])) == list(range(8, 24))   # own men, ranks 2-3
    assert list(np.flatnonzero(x[2])) == list(range(40, 56))  # opponent men, ranks 6-7
    assert (x[11] == 1).all() and not x[[1, 3, 4, 5, 6, 7, 8, 9, 10, 12]].any()


def test_draughts_black_to_move_is_flipped():
    x = dama.Game(position="B:Wa2:Bh7,Kc6").encode().reshape(13, 64)
    assert list(np.flatnonzero(x[0])) == [index("h2")]  # Black's man h7, seen from Black's side
    assert list(np.flatnonzero(x[1])) == [index("c3")]
    assert list(np.flatnonzero(x[2])) == [index("a7")]
    for rules in [None] + DRAUGHTS_RULES:
        for pos in random_positions("draughts", 40, seed=13, rules=rules):
            g, m = dama.Game(rules=rules, position=pos), dama.Game(rules=rules, position=mirror(pos))
            np.testing.assert_array_equal(g.encode(), m.encode(), err_msg=f"{pos} ({rules})")
            mirrored = {(SQUARE.sub(lambda s: s[1] + str(9 - int(s[2])), a), i) for a, i in g.actions()}
            assert mirrored == set(m.actions()), f"{pos} ({rules})"


def test_draughts_repetition_and_clock_planes():
    g = dama.Game(position="W:WKa1,c1:BKh8,f8")
    for move in ["a1-a2", "h8-h7", "a2-a1", "h7-h8"]:
        g.play(move)
    x = g.encode()
    assert (x[9] == 1).all() and np.allclose(x[10], 4 / 50), (x[9, 0, 0], x[10, 0, 0])


DIRECTIONS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]  # N, NE, E, ... clockwise


@pytest.mark.parametrize("rules", [None] + DRAUGHTS_RULES)
def test_draughts_policy_indices_follow_the_formula(rules):
    """Policy index `(direction * 7 + distance - 1) * 64 + from`, from the
    mover's side: every legal action's index decodes to its own squares."""
    for pos in ["startpos"] + random_positions("draughts", 100, seed=9, rules=rules):
        g = dama.Game(rules=rules, position=pos)
        black = g.turn == 1
        for action, i in g.actions():
            frm, to = SQUARE.findall(action)[:2]
            plane, origin = divmod(i, 64)
            (dx, dy), distance = DIRECTIONS[plane // 7], plane % 7 + 1
            r, f = divmod(origin, 8)
            assert origin == index("".join(frm), black), (pos, action, i)
            target = (r + dy * distance) * 8 + f + dx * distance
            assert target == index("".join(to), black), (pos, action, i)


def test_draughts_policy_indices_of_the_notes():
    actions = lambda text, rules=None: dict(dama.Game(rules=rules, position=text).actions())
    assert dama.Game().actions()[3] == ("d3-d4", 19)  # North, 1, from d3
    assert actions("B:Wa2:Bd6")["d6-d5"] == 19  # North from Black's side
    assert actions("W:Wb2:BKh8")["b2-c2"] == 14 * 64 + 9  # East, 1, from b2
    assert actions("W:Wd4:BKh8", "variant=armenian")["d4-e5"] == 7 * 64 + 27  # North-East
    assert actions("W:Wd1,d2,d3:BKh8", "variant=dameo")["d1-d4"] == 2 * 64 + 3  # North, 3
    for text, rules, want in [
        ("W:Wd4:BKh8", "variant=armenian", {"d4-d5", "d4-c4", "d4-e4", "d4-c5", "d4-e5"}),
        ("W:Wd4:BKh8", "variant=croda", {"d4-d5", "d4-c5", "d4-e5"}),
        ("W:Wd1,d2,d3:BKh8", "variant=dameo",
         {"d3-d4", "d2-d4", "d1-d4", "d3-c4", "d3-e4", "d2-c3", "d2-e3", "d1-c2", "d1-e2"}),
    ]:
        assert set(actions(text, rules)) == want, rules


def test_tafl_planes_and_indices_of_the_notes():
    g = dama.Game("tafl")
    assert g.position == "W:Wb5,c5,a6,b6,c6,d6,a7,b7,c7,d7,a8,b8,c8,d8:Ba1,b1,c1,d1,a2,b2,c2,d2,Kb3"
    x = g.encode().reshape(12, 32)
    assert list(np.flatnonzero(x[0])) == list(range(8)) and list(np.flatnonzero(x[1])) == [9]
    assert x[2].sum() == 14 and not x[3:11].any() and (x[11] == 1).all()
    assert (dama.Game("tafl", rules="first=king_side").encode()[4] == 1).all()
    # c5-c4 slides Down from c5 = 4 * 4 + 2: plane 1.
    assert dict(g.actions())["c5-c4"] == 1 * 32 + 18
    for pos in random_positions("tafl", 50, seed=14):
        indices = [i for _, i in dama.Game("tafl", position=pos).actions()]
        assert len(set(indices)) == len(indices) and max(indices) < 9 * 32, pos
    g = dama.Game("tafl", position="B:Wd8:Ba1,Kb3")
    for move in ["b3-b4", "d8-c8", "b4-b3", "c8-d8"]:
        g.play(move)
    x = g.encode()
    assert (x[9] == 1).all() and np.allclose(x[10], 4 / 200)


@pytest.mark.parametrize("game,shape", [("draughts", (13, 8, 8)), ("tafl", (12, 8, 4)), ("minidama", (9, 6, 6))])
def test_every_game_encodes_to_its_shape(game, shape):
    for pos in ["startpos"] + random_positions(game, 20, seed=7):
        x = dama.Game(game, position=pos).encode()
        assert x.shape == shape and x.dtype == np.float32
        assert np.isfinite(x).all() and x.any()
    assert dama.Game(game).encoding_version >= 1


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


# Runs, bundles and the networks' Python side.

def start(*args):
    """Starts `dama ARGS` with its output captured; `finish` waits for it."""
    return subprocess.Popen([DAMA_BIN, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def train(checkpoints, game, generations):
    """Starts a configs/smoke.toml run of `game`."""
    return start("train", "--config", ROOT / "configs" / "smoke.toml", "--checkpoints", checkpoints,
                 "--run", game, "--game", game, "--generations", generations, "--quiet")


def finish(process):
    out, _ = process.communicate()
    assert process.returncode == 0, f"{' '.join(process.args)} failed:\n{out}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A configs/smoke.toml run of every game (draughts: its 2 generations),
    the games' runs side by side (each is mostly start-up)."""
    root = tmp_path_factory.mktemp("runs")
    started = {game: train(root, game, 2 if game == "draughts" else 1) for game in dama.games()}
    for process in started.values():
        finish(process)
    return {game: root / game for game in started}


def newest(run):
    return max((run / "models").glob("gen-[0-9][0-9][0-9][0-9].safetensors"))


@pytest.fixture(scope="module")
def bundles(runs, tmp_path_factory):
    root = tmp_path_factory.mktemp("bundles")
    exports = [start("export", "--checkpoint", newest(run), "--out", root / game) for game, run in runs.items()]
    for process in exports:
        finish(process)
    return {game: root / game for game in runs}


def run_example(bundle, *args, cwd):
    return subprocess.run([sys.executable, str(bundle / "bundle_example.py"), *args],
                          capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("game", dama.games())
def test_a_bundle_runs_from_python_as_in_rust(game, bundles, tmp_path):
    bundle = bundles[game]
    assert (bundle / "bundle_example.py").read_text() == (ROOT / "scripts" / "bundle_example.py").read_text()
    assert not (bundle / "dama_py").exists()
    readme = (bundle / "README.md").read_text()
    assert "pip install ./crates/python" in readme and f'dama.Game("{game}"' in readme
    # The README's Python example runs as written.
    snippet = re.search(r"```python\n(.*?)```", readme, re.S).group(1).replace("BUNDLE_DIR", str(bundle))
    snippet += "assert priors.shape == (len(actions),) and abs(float(win + draw + loss) - 1) < 1e-5 and g.plies == 1\n"
    r = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, snippet + r.stderr
    # The bundle's own example, from outside the repository.
    r = run_example(bundle, "--dama", DAMA_BIN, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("ok"), r.stdout + r.stderr
    assert "python vs rust on 5 positions" in r.stdout, r.stdout
    # A bundle of an encoding the module does not write is refused by name.
    bad = tmp_path / "bad"
    shutil.copytree(bundle, bad)
    meta = json.loads((bad / "bundle.json").read_text())
    meta["encoding_version"] = 99
    (bad / "bundle.json").write_text(json.dumps(meta))
    r = run_example(bad, cwd=tmp_path)
    assert r.returncode != 0 and "encoding version" in r.stderr, r.stdout + r.stderr


# Positions of the draughts variants: the Turkish network, run under the
# variant's rules, moves and encoding by `dama analyse --rules`.
VARIANT_POSITIONS = [
    ("W:Wd4,b2,g3:Be6,Kh8,a7", "variant=armenian"),
    ("B:Wd4,c3,g2:Bd6,e7,Ka1", "variant=croda"),
    ("W:Wd1,d2,d3,f1,Kf2,f3:Bd4,d5,Kh8", "variant=dameo"),
    ("W:Wc6:Bc7,e8,a5", "promotion=continue_as_king"),
]


@pytest.mark.parametrize("game", dama.games())
def test_the_torch_twin_evaluates_checkpoints_as_dama_analyse(game, runs):
    import torch_twin

    ckpt = newest(runs[game])
    net = torch_twin.load_checkpoint(ckpt)
    cases = [(p, None) for p in ["startpos"] + random_positions(game, 3, seed=15)]
    if game == "draughts":
        cases += VARIANT_POSITIONS
    for text, rules in cases:
        ev = torch_twin.evaluate(net, [text], rules)[0]
        out = subprocess.run(
            [DAMA_BIN, "analyse", "--checkpoint", str(ckpt), "--position", ev.game.position, "--sims", "1", "--json"]
            + (["--rules", rules] if rules else []),
            capture_output=True, text=True, check=True,
        ).stdout
        rust = json.loads(out)["network"]
        np.testing.assert_allclose(ev.wdl, rust["wdl"], atol=1e-4, err_msg=text)
        theirs = {p["index"]: (p["step"], p["prior"]) for p in rust["priors"]}
        mine = {i: (a, p) for a, i, p in ev.steps}
        assert set(mine) == set(theirs), text
        for i, (step, prior) in theirs.items():
            assert mine[i][0] == step and abs(mine[i][1] - prior) < 1e-4, (text, step)
    net.meta["encoding_version"] = 99
    with pytest.raises(ValueError, match="encoding version 99"):
        torch_twin.evaluate(net, ["startpos"])


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


def test_a_run_directory_reads_through_the_rust_types(runs, tmp_path):
    smoke = runs["draughts"]
    run = dama.read_run(smoke)
    lines = [l for l in (smoke / "metrics.jsonl").read_text().splitlines() if l.strip()]
    assert len(run["metrics"]) == len(lines)
    kinds = {e["kind"] for e in run["metrics"]}
    assert {"session", "selfplay", "train", "generation"} <= kinds, kinds
    assert run["state"]["generation"] == 2
    assert "[selfplay]" in run["config"]
    last = [e for e in run["metrics"] if e["kind"] == "generation"][-1]
    assert last["generation"] == 2
    with pytest.raises(ValueError, match="not a run directory"):
        dama.read_run(tmp_path / "nothing")


# The wheel a bundle carries (`dama export --wheel`): scripts/test-python.sh
# builds it (scripts/build-wheel.sh) from the same build and names it in
# DAMA_WHEEL.

def test_a_bundle_carries_the_module_as_a_wheel_that_installs_and_plays(tmp_path):
    wheel = os.environ.get("DAMA_WHEEL")
    if not wheel:
        pytest.skip("DAMA_WHEEL names no wheel (scripts/test-python.sh builds one)")
    bundle = tmp_path / "bundle"
    subprocess.run([DAMA_BIN, "export", "--evaluator", "shipped", "--out", str(bundle), "--wheel", wheel,
                    "--time", "50"], check=True, capture_output=True)
    meta = json.loads((bundle / "bundle.json").read_text())
    carried = bundle / meta["python_wheel"]["file"]
    assert carried.name == Path(wheel).name and carried.stat().st_size == meta["python_wheel"]["bytes"]
    assert f"pip install BUNDLE_DIR/{meta['python_wheel']['file']}" in (bundle / "README.md").read_text()
    # Installed on its own (no dama checkout, not the venv's module), it
    # plays the bundle's engine.
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--disable-pip-version-check", "--target", str(site), str(carried)], check=True)
    code = (
        "import dama, sys\n"
        f"assert dama.__file__.startswith({str(site)!r}), dama.__file__\n"
        f"p = dama.Player('alphabeta:time=50,eval={bundle}/evaluator.nnue')\n"
        "g = dama.Game('draughts')\n"
        "assert p.choose(g) in g.legal_moves()\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    # A bundle whose wheel was replaced is refused by name.
    carried.write_bytes(b"PK\x03\x04 something else")
    r = subprocess.run([DAMA_BIN, "analyse", "--bundle", str(bundle), "--position", "startpos"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "corrupt or was replaced" in r.stderr, r.stderr
    # Not a wheel of the module: refused before anything is written.
    other = tmp_path / "numpy-2.0-x.whl"
    other.write_bytes(b"PK\x03\x04")
    r = subprocess.run([DAMA_BIN, "export", "--evaluator", "shipped", "--out", str(tmp_path / "b2"),
                        "--wheel", str(other)], capture_output=True, text=True)
    assert r.returncode != 0 and "not a wheel of dama's Python module" in r.stderr, r.stderr
