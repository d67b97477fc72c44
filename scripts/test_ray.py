#!/usr/bin/env python3
"""Issue 18: a distributed run on a real local Ray cluster, with faults.

scripts/ray_driver.py starts a local Ray (2 CPUs), a learner and two
workers on a tiny config. While the run goes on:

- worker 0 aborts at its third write, just before renaming its second chunk
  into place (DAMA_FAULT_ABORT_AT_WRITE, like a kill -9 mid-upload: the
  temporary file stays);
- the learner aborts at its eighth write (DAMA_FAULT_ABORT_AT_WRITE: in its
  first generation's checkpoint, after its training steps);
- the test kills -9 another worker while it plays (mid-game) and, later,
  the learner again (pid from the run's lock file) while it is in a
  generation;
- the test scales the workers to 3 and back to 2 (`ray_driver.py scale`).

Ray restarts every dead actor: a worker comes back with a new id, the
learner with --resume. Then the run directory must hold every chunk
(each decodes: `dama games`), every chunk consumed at most once and every
consumed chunk whole (the ledgers), the games counted once (the ledgers,
the `learner` and `selfplay` lines agree), every generation committed once,
every checkpoint loads (`dama analyse`), and the metrics parse with the
notebooks' reader.

Usage: scripts/test_ray.py DAMA_BINARY     (scripts/test-ray.sh runs it)
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATIONS = 6

CONFIG = """
[run]
generations = %d
seed = 7
device = "cpu"
torch_threads = 1

[model]
blocks = 1
channels = 8
se_channels = 0
policy_channels = 4
value_channels = 2
value_hidden = 8

[search]
algorithm = "gumbel"
simulations = 8
gumbel_considered_actions = 4

[selfplay]
games_per_generation = 8
parallel_games = 4
max_plies = 40
random_opening_plies = 2

[buffer]
max_positions = 5000
max_generations = 2

[train]
batch_size = 16
warmup_steps = 0

[schedule]
steps_per_generation = 20
min_positions = 1

[eval]
games = 2
baselines = ["random"]
sims = 2

[distributed]
games_per_chunk = 2
max_staleness = 2
poll_secs = 0.2
""" % GENERATIONS


def fail(msg: str) -> None:
    sys.exit(f"test_ray: FAILED: {msg}")


def metrics(run: Path) -> list[dict]:
    p = run / "metrics.jsonl"
    if not p.exists():
        return []
    out = []
    for line in p.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def main() -> int:
    dama = str(Path(sys.argv[1]).resolve())
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="dama-ray-") as tmp:
        tmp = Path(tmp)
        run = tmp / "run"
        config = tmp / "tiny.toml"
        config.write_text(CONFIG)
        log = open(tmp / "driver.log", "w+")
        driver = subprocess.Popen(
            [sys.executable, str(ROOT / "scripts/ray_driver.py"), "run", "--store", str(run),
             "--config", str(config), "--workers", "2", "--num-cpus", "2",
             "--learner-cpus", "0.5", "--worker-cpus", "0.5", "--status-every", "5",
             "--dama", dama,
             "--worker-fault-env-once", "DAMA_FAULT_ABORT_AT_WRITE=3",
             "--learner-fault-env-once", "DAMA_FAULT_ABORT_AT_WRITE=8"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        killed_worker = None
        killed_learner = None
        scaled = 0
        deadline = time.time() + 400
        try:
            while driver.poll() is None:
                if time.time() > deadline:
                    fail("the run did not finish in 400 s")
                time.sleep(0.2)
                statuses = []
                for f in (run / "workers").glob("*.json"):
                    try:
                        statuses.append(json.loads(f.read_text()))
                    except (OSError, json.JSONDecodeError):
                        pass
                # kill -9 a worker mid-game: one that has uploaded two
                # chunks (so not worker 0, which aborts uploading its
                # second) and is alive (so it is playing its next).
                if killed_worker is None:
                    for s in statuses:
                        if s.get("chunks", 0) >= 2 and alive(s["pid"]):
                            os.kill(s["pid"], signal.SIGKILL)
                            killed_worker = s
                            print(f"test_ray: killed worker {s['worker']} (pid {s['pid']}) mid-game", flush=True)
                            break
                lines = metrics(run)
                done_gens = {m["generation"] for m in lines if m.get("kind") == "generation"}
                started = {m["generation"] for m in lines if m.get("kind") == "selfplay"}
                # kill -9 the learner inside generation 3 (its games are in,
                # its training, checkpoint or evaluation is under way).
                if killed_learner is None and 3 in started and 3 not in done_gens:
                    try:
                        pid = int((run / "lock").read_text().strip())
                        os.kill(pid, signal.SIGKILL)
                        killed_learner = pid
                        print(f"test_ray: killed the learner (pid {pid}) in generation 3", flush=True)
                    except (OSError, ValueError):
                        pass
                if killed_worker is not None and scaled == 0:
                    subprocess.run([sys.executable, str(ROOT / "scripts/ray_driver.py"), "scale",
                                    "--store", str(run), "3"], check=True, capture_output=True)
                    scaled = 1
                if scaled == 1 and len(done_gens) >= 4:
                    subprocess.run([sys.executable, str(ROOT / "scripts/ray_driver.py"), "scale",
                                    "--store", str(run), "2"], check=True, capture_output=True)
                    scaled = 2
        finally:
            if driver.poll() is None:
                os.killpg(driver.pid, signal.SIGKILL)
            log.seek(0)
            out = log.read()
        if driver.returncode != 0:
            print(out)
            fail(f"the driver exited with {driver.returncode}")
        print(f"test_ray: the run finished in {time.time() - start:.0f} s", flush=True)
        check(run, out, dama, killed_worker, killed_learner, scaled)
    print(f"test_ray: passed in {time.time() - start:.0f} s")
    return 0


def check(run: Path, out: str, dama: str, killed_worker, killed_learner, scaled) -> None:
    def need(cond, msg):
        if not cond:
            print(out[-6000:])
            fail(msg)

    need(killed_worker is not None, "no worker was killed")
    need(killed_learner is not None, "the learner was not killed in generation 3")
    need("scaled to 3 workers" in out, "the driver did not scale up")
    need(scaled < 2 or "scaled to 2 workers" in out, "the driver did not scale down")
    state = json.loads((run / "state.json").read_text())
    need(state["generation"] == GENERATIONS, f"state.json: {state}")
    pointer = json.loads((run / "models/latest.json").read_text())
    need(pointer["done"] and pointer["learner_generation"] == GENERATIONS, f"pointer {pointer}")

    # Every chunk written is there and decodes.
    chunks = sorted(p.name for p in (run / "games").glob("*.games"))
    temps = sorted(p.name for p in (run / "games").glob("*.tmp"))
    r = subprocess.run([dama, "games", str(run / "games")], capture_output=True, text=True)
    need(r.returncode == 0, f"dama games: {r.stderr}")
    need(len(r.stdout.splitlines()) == 2 * len(chunks), f"{len(r.stdout.splitlines())} games in {len(chunks)} chunks")
    # The worker aborted mid-upload left its unfinished chunk as a temporary file.
    need(temps, "no temporary file of the worker killed mid-upload")
    workers = {re.match(r"w-(.+)-g\d{4,}-\d{6}\.games$", c).group(1) for c in chunks}
    # Two workers, each of the two killed ones restarted with a new id, and
    # one more while scaled up.
    need(len(workers) >= 4, f"workers seen: {workers}")
    need(killed_worker["worker"] in workers, "the killed worker wrote nothing")
    killed_chunks = [c for c in chunks if c.startswith(f"w-{killed_worker['worker']}-")]
    need(len(killed_chunks) >= killed_worker["chunks"],
         f"the killed worker's chunks: {killed_chunks} (it had reported {killed_worker['chunks']})")

    # Every chunk consumed once, whole; the games counted once.
    consumed: dict[str, int] = {}
    used_games = 0
    for g in range(1, GENERATIONS + 1):
        ledger = json.loads((run / f"learner/gen-{g:04d}.json").read_text())
        need(ledger["generation"] == g, f"ledger {g}")
        for e in ledger["chunks"]:
            need(e["chunk"] not in consumed, f"{e['chunk']} consumed in generations {consumed.get(e['chunk'])} and {g}")
            need(e["chunk"] in chunks, f"ledger {g} names {e['chunk']}, which is not a whole chunk")
            need(e["use"] in ("used", "stale"), f"{e}")
            consumed[e["chunk"]] = g
            if e["use"] == "used":
                used_games += e["games"]
    need(not (run / f"learner/gen-{GENERATIONS + 1:04d}.json").exists(), "a ledger past the last generation")

    sys.path.insert(0, str(ROOT / "notebooks"))
    import dama_plots  # noqa: E402 (the notebooks' reader)

    rows, skipped = dama_plots.read_metrics(run / "metrics.jsonl")
    need(skipped == 0, f"{skipped} metrics lines did not parse")
    kinds = {}
    for row in rows:
        kinds.setdefault(row["kind"], []).append(row)
    for k in ("session", "selfplay", "train", "eval", "generation", "learner", "worker"):
        need(k in kinds, f"no `{k}` line")
    gens = [row["generation"] for row in kinds["generation"]]
    need(gens == list(range(1, GENERATIONS + 1)), f"generation lines {gens}")
    need(sum(row["games"] for row in kinds["learner"]) == used_games,
         "the learner lines and the ledgers count different games")
    need(sum(row["games"] for row in kinds["selfplay"]) == used_games,
         "the selfplay lines and the ledgers count different games")
    need(len(kinds["session"]) >= 3, f"{len(kinds['session'])} sessions: the learner was not resumed twice")
    # Rates are over the time since the previous ingest: not a number
    # (null) in a learner session's first generation, positive after.
    rates = [row["games_per_hour"] for row in kinds["learner"]]
    need(1 <= sum(r is None for r in rates) <= len(kinds["session"]), f"games/h {rates}")
    for row in kinds["learner"]:
        need(0 <= row["stale_share"] <= 1 and row["games_per_hour"] in (None,) or row["games_per_hour"] > 0,
             f"{row}")
    for row in kinds["worker"]:
        need(row["games"] > 0 and row["reported_games_per_hour"] is None or row["reported_games_per_hour"] > 0,
             f"{row}")

    # Every checkpoint loads, through dama itself.
    for g in range(GENERATIONS + 1):
        ck = run / f"models/gen-{g:04d}.safetensors"
        r = subprocess.run([dama, "analyse", "--checkpoint", str(ck), "--sims", "1", "--top", "1",
                            "--tablebase", ""], capture_output=True, text=True)
        need(r.returncode == 0, f"{ck} does not load: {r.stderr}")
    print(f"test_ray: {len(chunks)} chunks from {len(workers)} workers, {len(consumed)} consumed "
          f"({used_games} games trained on), {len(temps)} unfinished upload(s) ignored, "
          f"{GENERATIONS + 1} checkpoints load, {len(rows)} metrics lines parse", flush=True)


if __name__ == "__main__":
    sys.exit(main())
