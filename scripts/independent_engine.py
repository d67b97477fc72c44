#!/usr/bin/env python3
"""An independent Turkish draughts (Dama) engine, standard library only.

Written from the rules text alone (shared/rules: the official rules and
Zeybek's rules) as an outside opponent and a cross-check of the project's
rules implementation. It speaks a subset of the `dama bot` line protocol
(docs/protocol.md) on stdin/stdout.

Rules implemented (the standard rules,
`promotion=end_of_move one_piece_each=draw no_capture_limit=50`):
  * men step one square forward or sideways; kings slide any distance
    orthogonally (flying);
  * captures are mandatory and the maximum number of pieces must be taken
    (men and kings count alike);
  * captured pieces are removed as soon as they are jumped, so a later jump
    of the same move may pass over their squares;
  * no 180-degree turn between two consecutive jumps of a multi-capture;
  * a man reaching the last row during a capture goes on capturing as a man
    and is crowned at the end of the move;
  * a side with no piece or no legal move loses; one piece each is a draw;
    50 plies without a capture is a draw; a threefold repetition is a draw;
    neither side able to move is a draw (official rules 9.5).

Usage:
  independent_engine.py                      # the line protocol
  independent_engine.py --perft N [--position POS] [--all-paths]
"""

import random
import sys
import time

RULES = "promotion=end_of_move one_piece_each=draw no_capture_limit=50"
RULES_MAP = {"promotion": "end_of_move", "one_piece_each": "draw", "no_capture_limit": "50"}
NO_CAPTURE_LIMIT = 50

WHITE, BLACK = 1, -1
WM, WK, BM, BK = 1, 2, -1, -2

# Directions: 0 up (+row, White's forward), 1 down, 2 right (+file), 3 left.
# The opposite of d is d ^ 1.
UP, DOWN, RIGHT, LEFT = 0, 1, 2, 3
DR = ((1, 0), (-1, 0), (0, 1), (0, -1))

ADJ = [[-1] * 4 for _ in range(64)]
RAYS = [[()] * 4 for _ in range(64)]
for _sq in range(64):
    _r, _f = divmod(_sq, 8)
    for _d, (_dr, _df) in enumerate(DR):
        _ray = []
        _rr, _ff = _r + _dr, _f + _df
        while 0 <= _rr < 8 and 0 <= _ff < 8:
            _ray.append(_rr * 8 + _ff)
            _rr += _dr
            _ff += _df
        RAYS[_sq][_d] = tuple(_ray)
        ADJ[_sq][_d] = _ray[0] if _ray else -1

MAN_DIRS = {WHITE: (UP, RIGHT, LEFT), BLACK: (DOWN, RIGHT, LEFT)}
KING_DIRS = (UP, DOWN, RIGHT, LEFT)
LAST_ROW = {WHITE: 7, BLACK: 0}

# Evaluation, in centi-men from White's side: a man is 100 plus a bonus for
# how far it has advanced, a king 275.
MAN_VALUE, KING_VALUE = 100, 275
ADVANCE = (0, 0, 0, 3, 7, 12, 20, 30)
PST = {0: [0] * 64}
PST[WM] = [MAN_VALUE + ADVANCE[sq // 8] for sq in range(64)]
PST[BM] = [-(MAN_VALUE + ADVANCE[7 - sq // 8]) for sq in range(64)]
PST[WK] = [KING_VALUE] * 64
PST[BK] = [-KING_VALUE] * 64

_rng = random.Random(20240611)
ZOB = {v: [_rng.getrandbits(64) for _ in range(64)] for v in (WM, WK, BM, BK)}
ZOB[0] = [0] * 64
ZOB_SIDE = _rng.getrandbits(64)

MATE = 30000


def sq_name(sq):
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_sq(text):
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        raise ValueError("bad square `%s`" % text)
    return (int(text[1]) - 1) * 8 + "abcdefgh".index(text[0])


def move_str(move):
    path, caps = move
    return ("x" if caps else "-").join(sq_name(s) for s in path)


class Position:
    """A board (64 squares, a1 = 0, h8 = 63) and the side to move."""

    def __init__(self, board, side):
        self.board = board
        self.side = side
        self.count = {WHITE: 0, BLACK: 0}
        self.score = 0
        self.hash = ZOB_SIDE if side == BLACK else 0
        for sq, v in enumerate(board):
            if v:
                self.count[WHITE if v > 0 else BLACK] += 1
                self.score += PST[v][sq]
                self.hash ^= ZOB[v][sq]

    @classmethod
    def start(cls):
        b = [0] * 64
        for sq in range(8, 24):
            b[sq] = WM
        for sq in range(40, 56):
            b[sq] = BM
        return cls(b, WHITE)

    @classmethod
    def parse(cls, text):
        if text == "startpos":
            return cls.start()
        parts = text.split(":")
        if len(parts) != 3 or parts[0] not in ("W", "B"):
            raise ValueError("bad position `%s`" % text)
        side = WHITE if parts[0] == "W" else BLACK
        b = [0] * 64
        seen = set()
        for part in parts[1:]:
            if not part or part[0] not in ("W", "B") or part[0] in seen:
                raise ValueError("bad position `%s`" % text)
            seen.add(part[0])
            colour = WHITE if part[0] == "W" else BLACK
            body = part[1:]
            if not body:
                continue
            for item in body.split(","):
                king = item.startswith("K")
                sq = parse_sq(item[1:] if king else item)
                if b[sq]:
                    raise ValueError("square %s given twice" % sq_name(sq))
                b[sq] = colour * (2 if king else 1)
        return cls(b, side)

    def fen(self):
        out = ["W" if self.side == WHITE else "B"]
        for colour, tag in ((WHITE, "W"), (BLACK, "B")):
            items = []
            for sq in range(64):
                v = self.board[sq]
                if v and (v > 0) == (colour > 0):
                    items.append(("K" if abs(v) == 2 else "") + sq_name(sq))
            out.append(tag + ",".join(items))
        return ":".join(out)

    def copy(self):
        return Position(list(self.board), self.side)

    # ----- move generation -----

    def captures(self, all_paths=False):
        """The legal captures (maximum number of pieces) or an empty list.

        Two capture paths with the same piece, the same final square and the
        same captured pieces (e.g. a king that takes two pieces along one line
        and may pause on any square between them) leave the same position: they
        are one move, written with the first path found, unless all_paths.
        """
        board = self.board
        side = self.side
        best = [1]
        found = []
        mdirs = MAN_DIRS[side]

        def record(path, caps):
            # A finished capture: kept if it takes the most pieces so far.
            k = len(caps)
            if k > best[0]:
                best[0] = k
                found.clear()
            if k == best[0]:
                found.append((tuple(path), tuple(caps)))

        def man(sq, last, path, caps):
            more = False
            for d in mdirs:
                if d == last ^ 1:
                    continue
                n = ADJ[sq][d]
                if n < 0:
                    continue
                v = board[n]
                if v * side >= 0:
                    continue
                n2 = ADJ[n][d]
                if n2 < 0 or board[n2]:
                    continue
                more = True
                board[n] = 0
                caps.append(n)
                path.append(n2)
                man(n2, d, path, caps)
                path.pop()
                caps.pop()
                board[n] = v
            if not more:
                record(path, caps)

        def king(sq, last, path, caps):
            more = False
            for d in KING_DIRS:
                if d == last ^ 1:
                    continue
                ray = RAYS[sq][d]
                i = 0
                n = len(ray)
                while i < n and board[ray[i]] == 0:
                    i += 1
                if i >= n - 1:
                    continue
                t = ray[i]
                v = board[t]
                if v * side >= 0:
                    continue
                j = i + 1
                if board[ray[j]]:
                    continue
                more = True
                board[t] = 0
                caps.append(t)
                while j < n and board[ray[j]] == 0:
                    path.append(ray[j])
                    king(ray[j], d, path, caps)
                    path.pop()
                    j += 1
                caps.pop()
                board[t] = v
            if not more:
                record(path, caps)

        for sq in range(64):
            p = board[sq]
            if p * side <= 0:
                continue
            board[sq] = 0  # the capturing piece has left its square
            if p == side:
                man(sq, -2, [sq], [])
            else:
                king(sq, -2, [sq], [])
            board[sq] = p
        if all_paths:
            return found
        return dedupe(found)

    def quiet_moves(self):
        board = self.board
        side = self.side
        out = []
        mdirs = MAN_DIRS[side]
        for sq in range(64):
            p = board[sq]
            if p * side <= 0:
                continue
            if p == side:
                for d in mdirs:
                    n = ADJ[sq][d]
                    if n >= 0 and board[n] == 0:
                        out.append(((sq, n), ()))
            else:
                for d in KING_DIRS:
                    for n in RAYS[sq][d]:
                        if board[n]:
                            break
                        out.append(((sq, n), ()))
        return out

    def legal_moves(self):
        return self.captures() or self.quiet_moves()

    # ----- making and unmaking moves -----

    def make(self, move):
        path, caps = move
        board = self.board
        frm, to = path[0], path[-1]
        p = board[frm]
        board[frm] = 0
        h = self.hash ^ ZOB[p][frm] ^ ZOB_SIDE
        s = self.score - PST[p][frm]
        taken = []
        for c in caps:
            v = board[c]
            taken.append(v)
            board[c] = 0
            h ^= ZOB[v][c]
            s -= PST[v][c]
        q = p
        if abs(p) == 1 and to // 8 == LAST_ROW[self.side]:
            q = 2 * p  # crowned at the end of the move
        board[to] = q
        h ^= ZOB[q][to]
        s += PST[q][to]
        self.hash = h
        self.score = s
        self.count[-self.side] -= len(caps)
        self.side = -self.side
        return (p, taken)

    def unmake(self, move, undo):
        path, caps = move
        p, taken = undo
        board = self.board
        self.side = -self.side
        self.count[-self.side] += len(caps)
        frm, to = path[0], path[-1]
        q = board[to]
        board[to] = 0
        h = self.hash ^ ZOB[q][to] ^ ZOB_SIDE
        s = self.score - PST[q][to]
        for c, v in zip(caps, taken):
            board[c] = v
            h ^= ZOB[v][c]
            s += PST[v][c]
        board[frm] = p
        h ^= ZOB[p][frm]
        s += PST[p][frm]
        self.hash = h
        self.score = s


def effect(move):
    path, caps = move
    return (path[0], path[-1], frozenset(caps))


def dedupe(moves):
    seen = set()
    out = []
    for m in moves:
        e = effect(m)
        if e not in seen:
            seen.add(e)
            out.append(m)
    return out


def parse_move(pos, text):
    """The legal move that `text` names, or raise ValueError.

    A capture may be written with every landing square of any of its paths,
    or shortened to some of them (at least the first and the last) when that
    names one move."""
    legal = pos.captures(all_paths=True) or pos.quiet_moves()
    t = text.strip().lower()
    if t.endswith("=k"):
        t = t[:-2]
    is_cap = "x" in t
    try:
        if is_cap:
            sqs = tuple(parse_sq(s) for s in t.split("x"))
        else:
            sqs = tuple(parse_sq(s) for s in t.split("-"))
    except ValueError:
        raise ValueError("malformed move `%s`" % text)
    if len(sqs) < 2:
        raise ValueError("malformed move `%s`" % text)
    cands = []
    for m in legal:
        path = m[0]
        if bool(m[1]) != is_cap:
            continue
        if path == sqs:
            return m
        if is_cap and path[0] == sqs[0] and path[-1] == sqs[-1]:
            it = iter(path)
            if all(s in it for s in sqs):
                cands.append(m)
    cands = dedupe(cands)
    if len(cands) == 1:
        return cands[0]
    names = " ".join(move_str(m) for m in dedupe(legal))
    if len(cands) > 1:
        raise ValueError("ambiguous move `%s`: %s" % (text, " ".join(move_str(m) for m in cands)))
    raise ValueError("illegal move `%s`; legal: %s" % (text, names))


# ----------------------------------------------------------------------------
# perft


def perft(pos, depth, table=None, all_paths=False):
    """Leaf nodes of the legal-move tree, depth in plies (whole moves).

    Draw rules are not applied (a perft counts moves only); with all_paths
    every capture path counts, even one that leaves the same position as
    another (see Position.captures)."""
    if depth == 0:
        return 1
    moves = pos.captures(all_paths) or pos.quiet_moves()
    if depth == 1:
        return len(moves)
    if table is None:
        table = {}
    key = (tuple(pos.board), pos.side, depth)
    hit = table.get(key)
    if hit is not None:
        return hit
    total = 0
    for m in moves:
        u = pos.make(m)
        total += perft(pos, depth - 1, table, all_paths)
        pos.unmake(m, u)
    table[key] = total
    return total


# ----------------------------------------------------------------------------
# search


class Timeout(Exception):
    pass


class Search:
    def __init__(self, pos, history, halfmove):
        self.pos = pos
        # hashes of the positions before the current one, oldest first
        self.hist = list(history)
        self.halfmove = halfmove
        self.tt = {}
        self.nodes = 0
        self.deadline = None
        self.killers = {}

    def evaluate(self):
        return self.pos.score * self.pos.side

    def is_draw(self, ply):
        pos = self.pos
        if pos.count[WHITE] == 1 and pos.count[BLACK] == 1:
            return True
        if self.halfmove >= NO_CAPTURE_LIMIT:
            return True
        if ply > 0:
            h = pos.hash
            hist = self.hist
            i = len(hist) - 2
            stop = len(hist) - self.halfmove
            while i >= stop and i >= 0:
                if hist[i] == h:
                    return True
                i -= 2
        return False

    def no_moves_score(self, ply):
        # the side to move is blocked: a loss, unless the opponent is blocked too
        pos = self.pos
        if pos.count[pos.side] > 0:
            pos.side = -pos.side
            other = pos.legal_moves()
            pos.side = -pos.side
            if not other:
                return 0
        return -MATE + ply

    def negamax(self, depth, alpha, beta, ply):
        self.nodes += 1
        if (self.nodes & 63) == 0 and self.deadline is not None and time.time() > self.deadline:
            raise Timeout()
        pos = self.pos
        if self.is_draw(ply):
            return 0
        caps = pos.captures()
        if caps:
            moves = caps
        else:
            if depth <= 0:
                return self.evaluate()  # quiescence: quiet position
            moves = pos.quiet_moves()
            if not moves:
                return self.no_moves_score(ply)
        # transposition table
        key = pos.hash
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_score, e_flag, e_move = entry
            tt_move = e_move
            if e_depth >= depth and ply > 0:
                if e_flag == 0:
                    return e_score
                if e_flag == 1 and e_score >= beta:
                    return e_score
                if e_flag == -1 and e_score <= alpha:
                    return e_score
        if len(moves) > 1:
            killer = self.killers.get(ply)

            def order(m):
                if m == tt_move:
                    return -1000
                if m == killer:
                    return -500
                if caps:
                    return 0
                frm, to = m[0]
                p = pos.board[frm]
                if abs(p) == 1:
                    # crowning first, then forward steps
                    if to // 8 == LAST_ROW[pos.side]:
                        return -400
                    return -10 if (to - frm) * pos.side == 8 else 0
                return 5
            moves = sorted(moves, key=order)
        alpha0 = alpha
        best = -MATE - 1
        best_move = moves[0]
        hist = self.hist
        saved_half = self.halfmove
        for m in moves:
            hist.append(pos.hash)
            u = pos.make(m)
            self.halfmove = 0 if m[1] else saved_half + 1
            try:
                score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                pos.unmake(m, u)
                hist.pop()
                self.halfmove = saved_half
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not m[1]:
                            self.killers[ply] = m
                        break
        if best <= alpha0:
            flag = -1
        elif best >= beta:
            flag = 1
        else:
            flag = 0
        if len(self.tt) > 2000000:
            self.tt.clear()
        self.tt[key] = (depth, best, flag, best_move)
        return best

    def pv(self, first, limit):
        pos = self.pos
        line = [first]
        done = []
        u = pos.make(first)
        done.append((first, u))
        seen = {pos.hash}
        while len(line) < limit:
            entry = self.tt.get(pos.hash)
            if entry is None:
                break
            m = entry[3]
            if m not in pos.legal_moves():
                break
            line.append(m)
            done.append((m, pos.make(m)))
            if pos.hash in seen:
                break
            seen.add(pos.hash)
        for m, u in reversed(done):
            pos.unmake(m, u)
        return line

    def go(self, ms):
        """Iterative deepening within ms milliseconds: (move, score, depth, pv)."""
        t0 = time.time()
        budget = ms / 1000.0 * 0.85
        self.deadline = t0 + budget
        pos = self.pos
        moves = pos.legal_moves()
        if not moves:
            return None
        if len(moves) == 1:
            return moves[0], self.evaluate(), 1, [moves[0]]
        best_move, best_score, best_depth = moves[0], 0, 0
        root_moves = list(moves)
        saved_half = self.halfmove
        depth = 1
        while depth <= 64:
            alpha, beta = -MATE - 1, MATE + 1
            cur_best, cur_score = None, None
            try:
                for m in root_moves:
                    self.nodes += 1
                    self.hist.append(pos.hash)
                    u = pos.make(m)
                    self.halfmove = 0 if m[1] else saved_half + 1
                    try:
                        score = -self.negamax(depth - 1, -beta, -alpha, 1)
                    finally:
                        pos.unmake(m, u)
                        self.hist.pop()
                        self.halfmove = saved_half
                    if cur_score is None or score > cur_score:
                        cur_best, cur_score = m, score
                        if score > alpha:
                            alpha = score
            except Timeout:
                # a move that beat the previous best (searched first) is sound
                if cur_best is not None and cur_best != best_move and cur_score > best_score:
                    best_move, best_score = cur_best, cur_score
                break
            best_move, best_score, best_depth = cur_best, cur_score, depth
            root_moves.remove(best_move)
            root_moves.insert(0, best_move)
            if abs(best_score) >= MATE - 200:
                break
            if time.time() - t0 > budget * 0.45:
                break  # the next iteration would probably not finish
            depth += 1
        self.deadline = None
        try:
            line = self.pv(best_move, max(best_depth, 1))
        except Exception:
            line = [best_move]
        return best_move, best_score, max(best_depth, 1), line


# ----------------------------------------------------------------------------
# the line protocol


class Session:
    def __init__(self, out):
        self.out = out
        self.new_game(Position.start())

    def new_game(self, pos, moves=()):
        """Set up pos then play moves (all or none): raises ValueError."""
        pos = pos.copy()
        history = []
        halfmove = 0
        for t in moves:
            m = parse_move(pos, t)
            history.append(pos.hash)
            pos.make(m)
            halfmove = 0 if m[1] else halfmove + 1
        self.pos, self.history, self.halfmove = pos, history, halfmove

    def play(self, moves):
        pos = self.pos.copy()
        history = list(self.history)
        halfmove = self.halfmove
        for t in moves:
            m = parse_move(pos, t)
            history.append(pos.hash)
            pos.make(m)
            halfmove = 0 if m[1] else halfmove + 1
        self.pos, self.history, self.halfmove = pos, history, halfmove

    def say(self, *lines):
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()

    def handle(self, line):
        words = line.split()
        if not words or words[0].startswith("#"):
            return True
        cmd, args = words[0], words[1:]
        try:
            if cmd == "hello":
                self.say("id dama-independent 0.1 protocol 1", "id game draughts",
                         "rules " + RULES, "ok")
            elif cmd == "isready":
                self.say("readyok")
            elif cmd == "quit":
                self.say("bye")
                return False
            elif cmd == "rules":
                if not args:
                    self.say("rules " + RULES, "ok")
                    return True
                items = [x for a in args for x in a.split(",") if x]
                for it in items:
                    if it == "default":
                        continue
                    k, eq, v = it.partition("=")
                    if not eq or k not in RULES_MAP:
                        raise ValueError("unknown rule `%s`" % it)
                    if RULES_MAP[k] != v:
                        raise ValueError("unsupported rule `%s`: only %s" % (it, RULES))
                self.say("ok")
            elif cmd == "newgame":
                if args:
                    raise ValueError("newgame takes no arguments")
                self.new_game(Position.start())
                self.say("ok")
            elif cmd == "position":
                if not args:
                    raise ValueError("position needs startpos or a position")
                pos = Position.parse(args[0])
                rest = args[1:]
                if rest and rest[0] != "moves":
                    raise ValueError("expected `moves` after the position")
                self.new_game(pos, rest[1:])
                self.say("ok")
            elif cmd in ("moves", "play"):
                self.play(args)
                self.say("ok")
            elif cmd == "legal":
                if args:
                    raise ValueError("legal takes no arguments")
                self.say(" ".join(["legal"] + [move_str(m) for m in self.pos.legal_moves()]), "ok")
            elif cmd == "go":
                ms = 1000
                if args:
                    if len(args) != 2 or args[0] not in ("time", "sims"):
                        raise ValueError("usage: go [time MS]")
                    try:
                        n = int(args[1])
                    except ValueError:
                        raise ValueError("bad number `%s`" % args[1])
                    if n <= 0:
                        raise ValueError("bad number `%s`" % args[1])
                    if args[0] == "time":
                        if n > 3600000:
                            raise ValueError("go time above an hour")
                        ms = n
                self.go(ms)
            else:
                raise ValueError("unknown command `%s`" % cmd)
        except ValueError as e:
            self.say("error " + str(e).replace("\n", " "))
        return True

    def go(self, ms):
        t0 = time.time()
        pos = self.pos.copy()
        if not pos.legal_moves():
            result = "draw" if pos.count[pos.side] and not (
                Position(list(pos.board), -pos.side).legal_moves()) else (
                "black wins" if pos.side == WHITE else "white wins")
            raise ValueError("the game is over: %s (no legal move)" % result)
        s = Search(pos, self.history, self.halfmove)
        move, score, depth, line = s.go(ms)
        t = int((time.time() - t0) * 1000)
        self.say("info time_ms %d nodes %d score_cm %d depth %d pv %s"
                 % (t, s.nodes, score, depth, " ".join(move_str(m) for m in line)),
                 "bestmove " + move_str(move))


def serve():
    session = Session(sys.stdout)
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            return 0
        if len(raw) > 65536:
            session.say("error line longer than 64 KiB")
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            session.say("error the line is not UTF-8")
            continue
        if not session.handle(line.strip()):
            return 0


def main(argv):
    if "--perft" in argv:
        try:
            i = argv.index("--perft")
            depth = int(argv[i + 1])
            pos_text = "startpos"
            if "--position" in argv:
                pos_text = argv[argv.index("--position") + 1]
            pos = Position.parse(pos_text)
        except (IndexError, ValueError) as e:
            sys.stderr.write("usage: independent_engine.py --perft N [--position POS] [--all-paths] (%s)\n" % e)
            return 2
        print(perft(pos, depth, all_paths="--all-paths" in argv))
        return 0
    if len(argv) > 1:
        sys.stderr.write("usage: independent_engine.py [--perft N [--position POS] [--all-paths]]\n")
        return 2
    return serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
