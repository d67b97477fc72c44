"""Tests of scripts/independent_engine.py, without the project's binary.

The engine's perft is checked against a second, deliberately naive move
generator written here from the rules text (shared/rules): squares are
(file, rank) pairs, the board is a dict that is copied at every jump, and a
move is identified by the position it leads to. Then the line protocol is
driven through a subprocess.

Run: python3 -m pytest scripts/test_independent_engine.py
"""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join(HERE, "independent_engine.py")
sys.path.insert(0, HERE)

import independent_engine as engine  # noqa: E402

# ---------------------------------------------------------------------------
# The naive generator.
#
# Rules (official rules sections 5-7, Zeybek "Moves" and "Rules of the game"):
#  - a man steps one square forward, left or right; a king any number of
#    empty squares up, down, left or right;
#  - a man captures an adjacent enemy forward, left or right by jumping to
#    the empty square just beyond; a king captures an enemy any distance away
#    along a line (empty squares between) and lands on any empty square
#    beyond it;
#  - a captured piece is removed at once (its square may be crossed later);
#  - after a jump the piece must go on jumping if it can, but never in the
#    direction opposite to the jump just made;
#  - captures are mandatory and only the sequences that take the most pieces
#    are legal;
#  - a man that reaches the last row during a capture goes on as a man; it is
#    crowned at the end of the move (when it ends on the last row).

FILES = "abcdefgh"


def naive_parse(text):
    """'W:Wa2,Kd4:Bh8' or 'startpos' -> (dict square -> piece, side)."""
    if text == "startpos":
        board = {}
        for f in range(8):
            for r in (2, 3):
                board[(f, r)] = "w"
            for r in (6, 7):
                board[(f, r)] = "b"
        return board, "w"
    turn, white, black = text.split(":")
    board = {}
    for part, colour in ((white[1:], "w"), (black[1:], "b")):
        for item in filter(None, part.split(",")):
            king = item.startswith("K")
            name = item[1:] if king else item
            board[(FILES.index(name[0]), int(name[1]))] = colour.upper() if king else colour
    return board, turn.lower()


def on_board(sq):
    return 0 <= sq[0] < 8 and 1 <= sq[1] <= 8


def colour_of(piece):
    return piece.lower()


def forward(side):
    return 1 if side == "w" else -1


def man_directions(side):
    return [(0, forward(side)), (1, 0), (-1, 0)]


KING_DIRECTIONS = [(0, 1), (0, -1), (1, 0), (-1, 0)]


def capture_sequences(board, side, start):
    """Every maximal jump sequence of the piece on start: lists of
    (path, captured squares, final board)."""
    piece = board[start]
    is_king = piece.isupper()
    results = []

    def extend(b, sq, last_dir, path, taken):
        continued = False
        dirs = KING_DIRECTIONS if is_king else man_directions(side)
        for d in dirs:
            if last_dir is not None and d == (-last_dir[0], -last_dir[1]):
                continue  # no 180-degree turn
            # find the enemy piece to jump
            if is_king:
                s = (sq[0] + d[0], sq[1] + d[1])
                while on_board(s) and s not in b:
                    s = (s[0] + d[0], s[1] + d[1])
            else:
                s = (sq[0] + d[0], sq[1] + d[1])
            if not on_board(s) or s not in b or colour_of(b[s]) == side:
                continue
            victim = s
            landings = []
            s = (victim[0] + d[0], victim[1] + d[1])
            while on_board(s) and s not in b:
                landings.append(s)
                if not is_king:
                    break
                s = (s[0] + d[0], s[1] + d[1])
            for land in landings:
                nb = dict(b)
                del nb[victim]  # removed at once
                del nb[sq]
                nb[land] = piece  # still a man if it was one
                continued = True
                extend(nb, land, d, path + [land], taken + [victim])
        if not continued and taken:
            results.append((path, taken, b))

    extend(board, start, None, [start], [])
    return results


def crowned(board, side, sq):
    b = dict(board)
    last = 8 if side == "w" else 1
    if b[sq] == side and sq[1] == last:
        b[sq] = side.upper()
    return b


def name(sq):
    return FILES[sq[0]] + str(sq[1])


def naive_moves(board, side):
    """[(notation, next board)], one entry per distinct next position."""
    caps = []
    for sq in sorted(board):
        if colour_of(board[sq]) == side:
            caps.extend(capture_sequences(board, side, sq))
    moves = []
    if caps:
        most = max(len(t) for _, t, _ in caps)
        for path, taken, b in caps:
            if len(taken) == most:
                moves.append(("x".join(name(s) for s in path), crowned(b, side, path[-1])))
    else:
        for sq in sorted(board):
            piece = board[sq]
            if colour_of(piece) != side:
                continue
            if piece.isupper():
                for d in KING_DIRECTIONS:
                    s = (sq[0] + d[0], sq[1] + d[1])
                    while on_board(s) and s not in board:
                        b = dict(board)
                        del b[sq]
                        b[s] = piece
                        moves.append((name(sq) + "-" + name(s), b))
                        s = (s[0] + d[0], s[1] + d[1])
            else:
                for d in man_directions(side):
                    s = (sq[0] + d[0], sq[1] + d[1])
                    if on_board(s) and s not in board:
                        b = dict(board)
                        del b[sq]
                        b[s] = piece
                        moves.append((name(sq) + "-" + name(s), crowned(b, side, s)))
    return moves


def naive_distinct(board, side):
    seen = {}
    for text, b in naive_moves(board, side):
        seen.setdefault(frozenset(b.items()), (text, b))
    return list(seen.values())


def naive_perft(board, side, depth):
    if depth == 0:
        return 1
    other = "b" if side == "w" else "w"
    return sum(naive_perft(b, other, depth - 1) for _, b in naive_distinct(board, side))


# ---------------------------------------------------------------------------
# perft against the naive generator

POSITIONS = [
    ("startpos", 4),
    # a king: the reversal ban (d4xg4 may not turn back to take b4)
    ("W:WKd4:Bf4,b4,h8", 4),
    # a man reaches the last row mid-capture and goes on as a man (c6xc8xe8)
    ("W:Wc6,a2:Bc7,Kd8,e5,h7", 4),
    # a king's 5-piece capture that crosses its own start square
    ("W:WKb2:Bb4,d6,f4,d2,a5,h8", 3),
    # Black man through the last row (Zeybek example 7), kings both sides
    ("B:Wc2,Kd1,e4,h2:Bc3,a8,h7", 3),
    # two captures along one line: paths differing only in the pause square
    ("B:Wd5,e4,c2,Kh1,f6:Bd6,Ka8,g5,c4", 3),
    # a middlegame with a king each
    ("W:Wa3,b3,c4,e3,f3,g4,h3,Kd1:Ba6,b6,c5,e6,f5,g6,h6,Ke8", 2),
]


@pytest.mark.parametrize("fen,max_depth", POSITIONS)
def test_perft_matches_naive(fen, max_depth):
    board, side = naive_parse(fen)
    for depth in range(1, max_depth + 1):
        assert engine.perft(engine.Position.parse(fen), depth) == naive_perft(board, side, depth), (fen, depth)


def test_start_perft_known():
    pos = engine.Position.start()
    assert [engine.perft(pos, d) for d in range(1, 5)] == [8, 64, 708, 7538]


@pytest.mark.parametrize("fen,_", POSITIONS)
def test_every_path_is_a_naive_move(fen, _):
    board, side = naive_parse(fen)
    naive = {t for t, _ in naive_moves(board, side)}
    pos = engine.Position.parse(fen)
    mine = {engine.move_str(m) for m in (pos.captures(all_paths=True) or pos.quiet_moves())}
    assert mine == naive


def test_reversal_is_banned():
    pos = engine.Position.parse("W:WKd4:Bf4,b4,h8")
    assert sorted(engine.move_str(m) for m in pos.legal_moves()) == ["d4xa4", "d4xg4", "d4xh4"]


def test_crowned_only_at_end_of_move():
    pos = engine.Position.parse("W:Wc6,a2:Bc7,Kd8,e5,h7")
    moves = pos.legal_moves()
    assert [engine.move_str(m) for m in moves] == ["c6xc8xe8"]
    pos.make(moves[0])
    assert pos.fen() == "B:Wa2,Ke8:Be5,h7"


# ---------------------------------------------------------------------------
# the line protocol


def run_engine(lines, timeout=15):
    proc = subprocess.run(
        [sys.executable, ENGINE], input="".join(l + "\n" for l in lines),
        capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_hello():
    out = run_engine(["hello", "isready", "quit"])
    assert out == [
        "id dama-independent 0.1 protocol 1",
        "id game draughts",
        "rules promotion=end_of_move one_piece_each=draw no_capture_limit=50",
        "ok",
        "readyok",
        "bye",
    ]


def test_go_gives_a_legal_move():
    played = ["d3-d4", "a6-a5", "c3-c4"]
    out = run_engine(["position startpos moves " + " ".join(played), "go time 100"])
    assert out[0] == "ok"
    assert out[1].startswith("info time_ms ")
    fields = out[1].split()
    for key in ("nodes", "score_cm", "depth", "pv"):
        assert key in fields
    assert out[2].startswith("bestmove ")
    best = out[2].split()[1]
    board, side = naive_parse("startpos")
    for text in played:
        side_moves = dict(naive_moves(board, side))
        board, side = side_moves[text], ("b" if side == "w" else "w")
    assert best in dict(naive_moves(board, side))
    assert int(fields[fields.index("time_ms") + 1]) < 150


def test_illegal_move_is_an_error_and_changes_nothing():
    out = run_engine(["position startpos", "legal", "moves d3-d4 a3-a5", "legal",
                      "moves d3-d5", "frobnicate", "position nonsense", "go time 0"])
    assert out[0] == "ok"
    assert out[1].startswith("legal ") and out[2] == "ok"
    assert out[3].startswith("error ")
    assert out[4] == out[1] and out[5] == "ok"
    assert out[6].startswith("error ")
    assert out[7].startswith("error ")
    assert out[8].startswith("error ")
    assert out[9].startswith("error ")
    assert len(out) == 10


def test_shortened_capture_and_rules():
    out = run_engine(["position B:Wd5,e4,c2,Kh1,f6:Bd6,Ka8,g5,c4 moves d6xf4",
                      "rules", "rules default", "rules promotion=continue_as_king"])
    assert out[0] == "ok"
    assert out[1:3] == ["rules promotion=end_of_move one_piece_each=draw no_capture_limit=50", "ok"]
    assert out[3] == "ok"
    assert out[4].startswith("error ")


def random_position(rng):
    squares = rng.sample([(f, r) for f in range(8) for r in range(1, 9)], rng.randint(4, 16))
    board = {}
    for i, sq in enumerate(squares):
        colour = "w" if i % 2 == 0 else "b"
        king = rng.random() < 0.35 or sq[1] in (1, 8)
        board[sq] = colour.upper() if king else colour
    side = rng.choice("wb")
    parts = []
    for colour in "wb":
        items = [("K" if p.isupper() else "") + name(sq)
                 for sq, p in sorted(board.items()) if colour_of(p) == colour]
        parts.append(colour.upper() + ",".join(items))
    return side.upper() + ":" + ":".join(parts)


def test_random_positions_match_naive():
    import random
    rng = random.Random(7)
    for _ in range(40):
        fen = random_position(rng)
        board, side = naive_parse(fen)
        for depth in (1, 2):
            assert engine.perft(engine.Position.parse(fen), depth) == naive_perft(board, side, depth), (fen, depth)
