"""Self-check of dama_py against the engines: perft counts of the engine's
perft data files (every variant and rule option, depth <= --depth), Turkish
Tafl perft counts stated by the Rust sources, the draughts and Tafl
encoders' layouts on known positions (policy tables, hand-worked planes of
captures in progress, facts of the Rust docs and tests); with --dama, perft
of seeded random positions of every variant and of Tafl under several rules
against `dama perft --game --rules --position` (the Rust engines); with
--analyse, the network's output on positions through dama_py (encoder,
legal steps, policy indices, the PyTorch twin) against `dama analyse --json`
(the Rust encoder and network), Turkish and variant positions. Run from
scripts/:

    python -m dama_py.check [--depth N] [--dama path/to/dama] [--analyse path/to/dama --checkpoint gen-NNNN.safetensors]

Exits non-zero on any difference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from . import tafl
from .encode import NUM_PLANES, POLICY_SIZE, decode_index, encode_planes, policy_index
from .movegen import State, Step, legal_steps, perft, play_step, state_steps
from .position import Position, parse_square
from .rules import Rules

DATA = Path(__file__).resolve().parents[2] / "crates" / "engine" / "tests" / "data"


# The perft files' older rule tokens (crates/engine/tests/common/mod.rs).
LEGACY_RULES = {"continue-as-king": "promotion=continue_as_king", "king-beats-man": "one_piece_each=king_beats_man"}


def rules_of_perft_line(rest: str) -> str:
    if "=" in rest:
        return rest
    toks, out = rest.split(), []
    while toks:
        t = toks.pop(0)
        if t == "no-capture-limit":
            out.append("no_capture_limit=" + toks.pop(0))
        elif t in LEGACY_RULES:
            out.append(LEGACY_RULES[t])
        else:
            raise ValueError(f"unknown rule token `{t}` in a perft file")
    return " ".join(out)


def perft_cases(max_depth: int, max_nodes: int = 200_000):
    """(file, id, position text, rules text, depth, nodes) of the engine's
    perft data (draw rules do not change perft, so `clock` and `result`
    lines are ignored)."""
    for f in sorted(DATA.glob("*.perft")):
        pid, epd, rules = None, None, "default"
        for line in f.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, rest = line.partition(" ")
            if key == "id":
                pid, epd, rules = rest, None, "default"
            elif key == "epd":
                epd = rest
            elif key == "rules":
                rules = rules_of_perft_line(rest)
            elif key == "perft" and epd is not None:
                depth, nodes = rest.split()
                if nodes != "?" and int(depth) <= max_depth and int(nodes) <= max_nodes:
                    yield f.name, pid, epd, rules, int(depth), int(nodes)


# Turkish Tafl perft from the initial position, as stated by the Rust sources
# (crates/tafl/src/lib.rs docs: 6 moves, perft 4 = 4497; crates/cli/tests/perft.rs).
TAFL_PERFT = [("default", 1, 6), ("default", 4, 4497)]


def check_encoding() -> list:
    errors = []
    start = encode_planes(Position.startpos()).reshape(NUM_PLANES, 64)
    if not (start[0, 8:24] == 1).all() or start[0].sum() != 16:
        errors.append("startpos: own men are not on indices 8..24 of plane 0")
    if start[2].sum() != 16 or not (start[2, 40:56] == 1).all():
        errors.append("startpos: opponent men are not on indices 40..56 of plane 2")
    if not (start[11] == 1).all() or start[[1, 3, 4, 5, 6, 7, 8, 9, 10, 12]].any():
        errors.append("startpos: constant planes wrong")
    # Black to move: the board is flipped vertically, so Black's men are
    # "own" pieces on the White side of the planes.
    black = encode_planes(Position.parse("B:Wa2:Bh7,Kc6")).reshape(NUM_PLANES, 64)
    if black[0, parse_square("h2")] != 1 or black[1, parse_square("c3")] != 1 or black[2, parse_square("a7")] != 1:
        errors.append("black to move: planes are not flipped vertically")
    # Policy index round trip, and the documented layout.
    for turn in "WB":
        for i in range(POLICY_SIZE):
            d = decode_index(i, turn)
            if d is not None and policy_index(Step(*d), turn) != i:
                errors.append(f"policy index {i} ({turn}) does not round trip")
                break
    # d3-d4 for White: North (0), distance 1, from d3 = 19.
    if policy_index(Step(parse_square("d3"), parse_square("d4")), "W") != 19:
        errors.append("d3-d4 for White is not index 19")
    # d6-d5 for Black is North in its point of view, from d3 (pov) = 19.
    if policy_index(Step(parse_square("d6"), parse_square("d5")), "B") != 19:
        errors.append("d6-d5 for Black is not index 19")
    # b2-c2 for White: East (2), distance 1 -> plane 14, from b2 = 9.
    if policy_index(Step(parse_square("b2"), parse_square("c2")), "W") != 14 * 64 + 9:
        errors.append("b2-c2 for White is not index 14*64+9")
    # d3-e4 for White: North-East (1), distance 1 -> plane 7, from d3 = 19
    # (the diagonal step of the variants; the Rust unit test checks the same).
    if policy_index(Step(parse_square("d3"), parse_square("e4")), "W") != 7 * 64 + 19:
        errors.append("d3-e4 for White is not index 7*64+19")
    if policy_index(Step(parse_square("d6"), parse_square("e5")), "B") != 7 * 64 + 19:
        errors.append("d6-e5 for Black is not index 7*64+19")
    seen = {policy_index(s, "W") for s in legal_steps(Position.startpos())}
    if len(seen) != 8:
        errors.append("startpos: legal steps do not have 8 distinct indices")
    return errors


def _planes_at(planes, plane: int) -> list:
    """The point-of-view indices set in one plane of draughts planes."""
    return [int(i) for i in np.flatnonzero(planes.reshape(NUM_PLANES, 64)[plane])]


def check_state_encoding() -> list:
    """Hand-worked captures in progress (jump by jump, as the engine's
    `Game::play_step`) and what the Rust encoder's module docs say of them."""
    errors = []
    sq = parse_square

    def first_jump(text, rules, frm, to):
        st = State(Position.parse(text, rules))
        steps = state_steps(st)
        step = next((s for s in steps if (s.frm, s.to) == (sq(frm), sq(to))), None)
        if step is None:
            errors.append(f"{text} ({rules}): {frm}x{to} is not a legal first jump: {[str(s) for s in steps]}")
            return None
        return play_step(st, step)

    # b3xd3 of the rules document's b3xd3xd5: the man on d3 must go on to d5;
    # c3 is gone (taken at once), marked in plane 12; the next jump may not
    # go West (plane 5 + 3). Black's mirror image b6xd6 encodes the same.
    w = first_jump("W:Wb3:Bc3,d4", "default", "b3", "d3")
    b = first_jump("B:Bb6:Wc6,d5", "default", "b6", "d6")
    if w is not None and b is not None:
        if w.pending is None or [str(s) for s in state_steps(w)] != ["d3xd5"]:
            errors.append(f"W:Wb3:Bc3,d4 after b3xd3: steps {[str(s) for s in state_steps(w)]}, want d3xd5")
        pw = encode_planes(w)
        want = {0: [19], 1: [], 2: [27], 3: [], 4: [19], 5: [], 6: [], 7: [], 8: list(range(64)), 12: [18]}
        for plane, idx in want.items():
            if _planes_at(pw, plane) != idx:
                errors.append(f"W:Wb3:Bc3,d4 after b3xd3: plane {plane} is {_planes_at(pw, plane)}, want {idx}")
        if not np.array_equal(pw, encode_planes(b)):
            errors.append("B:Bb6:Wc6,d5 after b6xd6 does not encode as its mirror image W:Wb3:Bc3,d4 after b3xd3")
        done = play_step(w, state_steps(w)[0]) if state_steps(w) else w
        if done.pending is not None or str(done.position) != "B:Wd5:B":
            errors.append(f"b3xd3xd5 played jump by jump gives {done.position}, want B:Wd5:B")
    # A jump North (South for Black): the next may not go South, plane 5 + 2.
    w = first_jump("W:Wd3:Bd4,c5", "default", "d3", "d5")
    b = first_jump("B:Bd6:Wd5,c4", "default", "d6", "d4")
    if w is not None and b is not None:
        if _planes_at(encode_planes(w), 7) != list(range(64)) or not np.array_equal(encode_planes(w), encode_planes(b)):
            errors.append("a jump North (South for Black): plane 7 (no jump back South) not set alike for both colours")
    # Dameo: the captured piece stays on the board (plane 2) until the move ends.
    d = first_jump("W:Wb3:Bc3,d4", "variant=dameo", "b3", "d3")
    if d is not None:
        pd = encode_planes(d)
        if _planes_at(pd, 2) != [18, 27] or _planes_at(pd, 12) != [18]:
            errors.append(f"Dameo after b3xd3: planes 2 {_planes_at(pd, 2)} and 12 {_planes_at(pd, 12)}, "
                          "want [18, 27] and [18] (captured pieces stay to the end)")
    # promotion=continue_as_king: the man crowned on c8 goes on as a king
    # (plane 1) and takes e8; by default the man stops on c8 and is crowned.
    k = first_jump("W:Wc6:Bc7,e8", "promotion=continue_as_king", "c6", "c8")
    if k is not None:
        if k.pending is None or _planes_at(encode_planes(k), 1) != [58]:
            errors.append("continue_as_king: c6xc8 should leave a king on c8 (plane 1) with e8 to take")
    e = first_jump("W:Wc6:Bc7,e8", "default", "c6", "c8")
    if e is not None and (e.pending is not None or e.position.pieces.get(sq("c8")) != ("W", True)):
        errors.append("end_of_move: c6xc8 should end the move with a king on c8")
    # Variants' quiet steps: diagonal for Armenian/Croda men, lines in Dameo.
    for text, rules, want in [
        ("W:Wd4:BKh8", "variant=armenian", {"d4-d5", "d4-c4", "d4-e4", "d4-c5", "d4-e5"}),
        ("W:Wd4:BKh8", "variant=croda", {"d4-d5", "d4-c5", "d4-e5"}),
        ("W:Wd1,d2,d3:BKh8", "variant=dameo",
         {"d3-d4", "d2-d4", "d1-d4", "d3-c4", "d3-e4", "d2-c3", "d2-e3", "d1-c2", "d1-e2"}),
    ]:
        got = {str(s) for s in legal_steps(Position.parse(text, rules))}
        if got != want:
            errors.append(f"{text} ({rules}): steps {sorted(got)}, want {sorted(want)}")
    # Dameo's longest line move d1-d4 for White: North, distance 3, from d1 = 3.
    if policy_index(Step(sq("d1"), sq("d4")), "W") != 2 * 64 + 3:
        errors.append("d1-d4 for White is not index 2*64+3")
    # Bad text is named.
    for text, rules, needle in [("W:Wd8:Bh1", "default", "promotion row"), ("startpos", "variant=croda", None),
                                ("W:Wa2:Ba7", "variant=chess", "unknown variant"),
                                ("W:Wa2:Ba7", "no_capture_limit=0", "bad value")]:
        try:
            p = Position.parse(text, rules)
            if needle is not None:
                errors.append(f"{text} ({rules}) parsed; want a ValueError naming `{needle}`")
            elif len(p.pieces) != 48:
                errors.append("Croda startpos does not have 48 men")
        except ValueError as e:
            if needle is None or needle not in str(e):
                errors.append(f"{text} ({rules}): {e}")
    r = Rules.parse("variant=croda")
    if str(r) != ("variant=croda promotion=end_of_move one_piece_each=play_on no_capture_limit=off "
                  "croda_removal=end_of_move croda_man_captures=all") or Rules.parse(str(r)) != r:
        errors.append(f"Rules text of Croda is `{r}` (the Rust Display differs or does not round trip)")
    return errors


def check_tafl() -> list:
    """Turkish Tafl: perft stated by the Rust sources, the encoder's layout
    (crates/tafl/src/encode.rs docs and tests), hand-worked chains."""
    errors = []
    for rules, depth, nodes in TAFL_PERFT:
        got = tafl.perft(tafl.Game.new(rules), depth)
        if got != nodes:
            errors.append(f"Tafl perft {depth} ({rules}) is {nodes}, dama_py counts {got}")
    for i in range(tafl.POLICY_SIZE):
        if tafl.policy_index(tafl.decode_index(i)) != i:
            errors.append(f"Tafl policy index {i} does not round trip")
            break
    if tafl.decode_index(tafl.POLICY_SIZE) is not None:
        errors.append("Tafl policy index 288 decodes")
    g = tafl.Game.new()
    x = tafl.encode_planes(g).reshape(tafl.NUM_PLANES, 32)
    if str(g.pos) != "W:Wb5,c5,a6,b6,c6,d6,a7,b7,c7,d7,a8,b8,c8,d8:Ba1,b1,c1,d1,a2,b2,c2,d2,Kb3":
        errors.append(f"Tafl startpos is {g.pos}")
    if list(np.flatnonzero(x[0])) != list(range(8)) or list(np.flatnonzero(x[1])) != [9] or x[2].sum() != 14 \
            or x[[3, 4, 5, 6, 7, 8, 9, 10]].any() or not (x[11] == 1).all():
        errors.append("Tafl startpos planes: want King-side men 0..8, the King on 9 (b3), 14 Defender men, "
                      "the Defenders to move")
    if not (tafl.encode_planes(tafl.Game.new("first=king_side"))[4] == 1).all():
        errors.append("Tafl: plane 4 is not 1 with the King side to move")
    # c5-c4 (Down, 1) from c5 = 4*4+2 = 18: index 1*32+18.
    steps = {str(s): tafl.policy_index(s) for s in g.legal_steps()}
    if steps.get("c5-c4") != 50 or len(set(steps.values())) != len(steps):
        errors.append(f"Tafl startpos steps/indices {steps}: want c5-c4 at 50, all distinct")
    # A friendly chain: a1 over a2 to a3, then on over the King to c3, or stop.
    g = tafl.Game.new(position="B:Wd8:Ba1,a2,Kb3")
    g.play_step(tafl.TaflStep(tafl.JUMP, tafl.parse_square("a1"), tafl.UP))
    x = tafl.encode_planes(g).reshape(tafl.NUM_PLANES, 32)
    idx = sorted(tafl.policy_index(s) for s in g.legal_steps())
    if idx != [6 * 32 + 8, 8 * 32 + 8] or list(np.flatnonzero(x[5])) != [8] or not (x[6] == 1).all() \
            or list(np.flatnonzero(x[7])) != [0, 8] or list(np.flatnonzero(x[0])) != [4, 8]:
        errors.append(f"Tafl friendly chain a1-a3: indices {idx} (want 200, 264), planes 5 {np.flatnonzero(x[5])}, "
                      f"7 {np.flatnonzero(x[7])}, 0 {np.flatnonzero(x[0])}")
    # A capture chain: the King takes a3 (to a4), then must take a5.
    g = tafl.Game.new(position="B:Wa3,a5:Ba1,Ka2")
    g.play_step(tafl.TaflStep(tafl.JUMP, tafl.parse_square("a2"), tafl.UP))
    x = tafl.encode_planes(g).reshape(tafl.NUM_PLANES, 32)
    if [str(s) for s in g.legal_steps()] != ["a4^a6"] or list(np.flatnonzero(x[8])) != [8] \
            or list(np.flatnonzero(x[2])) != [16] or list(np.flatnonzero(x[5])) != [12] or x[6].any():
        errors.append("Tafl capture chain a2xa4: want a4^a6 next, a3 in plane 8, a5 alone in plane 2")
    # The rules text's worked example C4xC2xA2: a Defender man takes one
    # piece by default, chains with defender_man_chain=on.
    for rules, want in [("default", ["c4xc2"]), ("defender_man_chain=on", ["c4xc2xa2"])]:
        got = [str(m) for m in tafl.Game.new(rules, "W:Wc4:Bc3,b2,Kd8").legal_moves()]
        if got != want:
            errors.append(f"Tafl W:Wc4:Bc3,b2,Kd8 ({rules}): moves {got}, want {want}")
    # A position seen before sets plane 9; plane 10 counts plies / 200.
    g = tafl.Game.new("default", "B:Wd8:Ba1,Kb3")
    for text in ["b3-b4", "d8-c8", "b4-b3", "c8-d8"]:
        m = next((m for m in g.legal_moves() if str(m) == text), None)
        if m is None:
            errors.append(f"Tafl B:Wd8:Ba1,Kb3: {text} is not legal")
            break
        g.play(m)
    x = tafl.encode_planes(g).reshape(tafl.NUM_PLANES, 32)
    if g.repetitions() != 2 or not (x[9] == 1).all() or not np.allclose(x[10], 4 / 200):
        errors.append(f"Tafl after b3-b4 d8-c8 b4-b3 c8-d8: repetitions {g.repetitions()}, plane 9 {x[9, 0]}, "
                      f"plane 10 {x[10, 0]} (want 2, 1, 0.02)")
    # Random games: distinct indices for the legal steps (as the Rust test).
    import random

    rng = random.Random(3)
    for _ in range(3):
        g = tafl.Game.new()
        while g.outcome is None and g.plies() < 60:
            steps = g.legal_steps()
            if len({tafl.policy_index(s) for s in steps}) != len(steps):
                errors.append(f"Tafl {g.pos}: two legal steps share a policy index")
                break
            g.play_step(rng.choice(steps))
    try:
        tafl.TaflPosition.parse("W:Wa1:BKb3")
        errors.append("Tafl: a Defender man on column 1 parsed")
    except ValueError as e:
        if "column 1" not in str(e):
            errors.append(f"Tafl: a Defender man on column 1: {e}")
    return errors


# Rules the --dama comparison covers: every variant and option that changes
# move generation.
DRAUGHTS_RULES = ["default", "promotion=continue_as_king", "variant=armenian", "variant=croda",
                  "variant=croda,croda_removal=immediate,croda_man_captures=forward_sideways", "variant=dameo"]
TAFL_RULES = ["default", "first=king_side,defender_man_chain=on,majority=on", "goal=column8,surround=edge_counts"]


def random_draughts_positions(rules: str, n: int, seed: int) -> list:
    import random

    from .movegen import legal_moves, play

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position.startpos(rules)
        for _ in range(rng.randrange(6, 70)):
            moves = legal_moves(pos)
            if not moves:
                break
            pos = play(pos, rng.choice(moves))
        if all(any(c == side for c, _ in pos.pieces.values()) for side in "WB") and legal_moves(pos):
            out.append(str(pos))
    return out


def random_tafl_positions(rules: str, n: int, seed: int) -> list:
    import random

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        g = tafl.Game.new(rules)
        for _ in range(rng.randrange(4, 40)):
            moves = g.legal_moves()
            if not moves:
                break
            g.play(rng.choice(moves))
        if g.outcome is None:
            out.append(str(g.pos))
    return out


def check_perft_against_dama(dama: str, per_rules: int) -> tuple[list, int]:
    """Perft of random positions: dama_py against `dama perft`."""
    import subprocess

    errors, n = [], 0
    cases = [("draughts", r, p, 2) for i, r in enumerate(DRAUGHTS_RULES)
             for p in random_draughts_positions(r, per_rules, 11 + i)]
    cases += [("tafl", r, p, 2) for i, r in enumerate(TAFL_RULES) for p in random_tafl_positions(r, per_rules, 5 + i)]
    cases += [("tafl", r, "startpos", 3) for r in TAFL_RULES]
    for game, rules, text, depth in cases:
        r = subprocess.run([dama, "perft", "--game", game, "--rules", rules, "--position", text, "--depth", str(depth)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errors.append(f"dama perft --game {game} --rules {rules} --position {text}: {r.stderr.strip()}")
            continue
        rust = int(r.stdout.strip().splitlines()[-1])
        if game == "draughts":
            ours = perft(Position.parse(text, rules), depth)
        else:
            ours = tafl.perft(tafl.Game.new(rules, text), depth)
        n += 1
        if ours != rust:
            errors.append(f"{game} {rules} {text}: perft {depth} is {rust} in dama, {ours} in dama_py")
    return errors, n


def sample_positions(n: int, seed: int = 7) -> list:
    """Positions of seeded random games (whole moves), with both sides still
    having two or more pieces and a legal move."""
    import random

    from .movegen import legal_moves, play

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position.startpos()
        for ply in range(rng.randrange(4, 90)):
            moves = legal_moves(pos)
            if not moves:
                break
            pos = play(pos, rng.choice(moves))
        pos = Position.parse(str(pos))  # zeroed counters, as `dama analyse` parses it
        counts = [sum(c == side for c, _ in pos.pieces.values()) for side in "WB"]
        if min(counts) >= 2 and legal_moves(pos):
            out.append(str(pos))
    return out


ANALYSE_POSITIONS = [
    "startpos",
    "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8",
    "W:Wb3,Kh1:Bc3,d4,e6,Ka8",
    "B:Wc4,Kf5:Bc5,d7,Kb8",
    "W:Wa2,b2,d3,g3:Bd4,d6,g4,a6,b7",
    "W:WKd4,a2:Bd6,f7,a7",
    # The bot notebook's positions.
    "B:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d4,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7",
    "W:Wd3,g3,a2,b2:Bd4,d6,g4,a6,b7",
    "W:WKd4:Bd6,f7,a7",
    "W:Wc6,e2,f2:Bb4,h4,g5",
    "B:WKa1,c3:BKh8,f6",
]


# Positions of the variants (the network is a Turkish one; `dama analyse
# --rules` runs it under the variant's rules, legal steps and encoding).
ANALYSE_VARIANT_POSITIONS = [
    ("W:Wd4,b2,g3:Be6,Kh8,a7", "variant=armenian"),
    ("B:Wd4,c3,g2:Bd6,e7,Ka1", "variant=croda"),
    ("W:Wd5,a2:Bd4,h7", "variant=croda"),
    ("W:Wd1,d2,d3,f1,Kf2,f3:Bd4,d5,Kh8", "variant=dameo"),
    ("B:Wb2,c3,d4:Bf6,Ke8,h7", "variant=dameo"),
    ("W:Wc6:Bc7,e8,a5", "promotion=continue_as_king"),
]


def check_against_dama(dama: str, checkpoint: str, n_random: int, tol: float = 1e-4) -> tuple[list, int]:
    """Compares dama_py + the PyTorch twin with `dama analyse --json` on the
    fixed positions and n_random random ones."""
    import json
    import subprocess

    from .model import evaluate, load_checkpoint

    net = load_checkpoint(checkpoint)
    positions = [(p, None) for p in ANALYSE_POSITIONS + sample_positions(n_random)] + ANALYSE_VARIANT_POSITIONS
    ours = [evaluate(net, [p], rules)[0] for p, rules in positions]
    errors = []
    for (text, rules), ev in zip(positions, ours):
        r = subprocess.run(
            [dama, "analyse", "--checkpoint", checkpoint, "--position", text, "--json", "--sims", "1"]
            + (["--rules", rules] if rules else []),
            capture_output=True, text=True,
        )
        if rules:
            text = f"{text} ({rules})"
        if r.returncode != 0:
            errors.append(f"dama analyse {text}: {r.stderr.strip()}")
            continue
        rust = json.loads(r.stdout)["network"]
        dw = float(np.abs(np.array(rust["wdl"]) - ev.wdl).max())
        if dw > tol:
            errors.append(f"{text}: WDL differs by {dw:.2e} (rust {rust['wdl']}, dama_py {ev.wdl.tolist()})")
        theirs = {p["index"]: (p["step"], p["prior"]) for p in rust["priors"]}
        mine = {policy_index(s, ev.position.turn): (str(s), p) for s, p in ev.steps}
        if set(theirs) != set(mine):
            errors.append(f"{text}: legal steps differ: rust {sorted(v[0] for v in theirs.values())}, "
                          f"dama_py {sorted(v[0] for v in mine.values())}")
            continue
        for i, (step, prior) in theirs.items():
            if step != mine[i][0] or abs(prior - mine[i][1]) > tol:
                errors.append(f"{text}: step {step} (index {i}): rust prior {prior:.6f}, "
                              f"dama_py {mine[i][0]} {mine[i][1]:.6f}")
                break
    return errors, len(positions)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--analyse", metavar="DAMA", help="the dama binary to compare the network output with")
    ap.add_argument("--checkpoint", help="a gen-NNNN.safetensors for --analyse")
    ap.add_argument("--random", type=int, default=8, help="random positions for --analyse")
    ap.add_argument("--dama", metavar="DAMA", help="the dama binary to compare perft of random positions with")
    ap.add_argument("--per-rules", type=int, default=2, help="random positions per rules for --dama")
    args = ap.parse_args()
    errors = check_encoding() + check_state_encoding() + check_tafl()
    n = 0
    for fname, pid, epd, rules, depth, nodes in perft_cases(args.depth):
        got = perft(Position.parse(epd, rules), depth)
        n += 1
        if got != nodes:
            errors.append(f"{fname} {pid} ({rules}): perft {depth} is {nodes}, dama_py counts {got}")
    for e in errors:
        print("dama_py check:", e, file=sys.stderr)
    if n == 0:
        errors.append("no perft data found")
        print(f"dama_py check: no perft data under {DATA}", file=sys.stderr)
    what = (f"{n} perft counts of every variant, Tafl perft, the draughts and Tafl encodings "
            "(captures and chains in progress)")
    if args.dama:
        more, m = check_perft_against_dama(args.dama, args.per_rules)
        for e in more:
            print("dama_py check:", e, file=sys.stderr)
        errors += more
        what += f", perft of {m} positions vs dama perft"
    if args.analyse:
        if not args.checkpoint:
            ap.error("--analyse needs --checkpoint")
        more, m = check_against_dama(args.analyse, args.checkpoint, args.random)
        for e in more:
            print("dama_py check:", e, file=sys.stderr)
        errors += more
        what += f", network output on {m} positions vs dama analyse"
    print(f"dama_py check: {what}, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
