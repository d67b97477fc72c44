#!/usr/bin/env python3
"""Runs a distributed dama run on Ray: one learner and N self-play workers.

Ray does the scheduling, the placement and the restarts: the learner is an
actor that asks for a GPU when the cluster has one, each worker is an actor
that runs `dama worker` as a subprocess, and an actor whose process dies
(kill -9, a lost node) is restarted by Ray (`max_restarts`); a restarted
learner continues with `--resume`, a restarted worker gets a new id. The
number of workers follows the file `desired-workers` in the run directory
(`ray_driver.py scale --store DIR N`) while the run goes on. Every few
seconds the driver prints games/h per worker and in total.

    scripts/ray_driver.py run --store checkpoints/dist --config configs/smoke.toml --workers 2
    scripts/ray_driver.py run --address auto --store /nfs/runs/dist --config ... --workers 64
    scripts/ray_driver.py scale --store checkpoints/dist 8

See docs/distributed.md (a Ray cluster with `ray up`, KubeRay, SLURM).
Ray comes from scripts/setup-ray.sh (into the project's venv).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

MAX_WORKERS = 1024
DESIRED = "desired-workers"
CHUNK_LINE = re.compile(
    r"worker (?P<id>\S+): uploaded (?P<chunk>\S+) \(generation (?P<gen>\d+)\): "
    r"(?P<chunks>\d+) chunks, (?P<games>\d+) games, (?P<gph>[\d.]+) games/h"
)


def is_local(store: str) -> bool:
    return "://" not in store or store.startswith("file://")


def local_dir(store: str) -> Path:
    return Path(store[len("file://"):] if store.startswith("file://") else store)


def find_dama(given: str | None) -> str:
    if given:
        return str(Path(given).resolve())
    root = Path(__file__).resolve().parent.parent
    targets = [os.environ.get("CARGO_TARGET_DIR"), str(root / "target")]
    for t in targets:
        for profile in ("release", "debug"):
            if t and (Path(t) / profile / "dama").is_file():
                return str(Path(t) / profile / "dama")
    found = shutil.which("dama")
    if found:
        return found
    sys.exit("ray_driver: no dama binary: build it (cargo build --release -p dama-cli) or pass --dama")


def bounded_workers(n: int) -> int:
    if not 0 <= n <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"workers must be in 0..={MAX_WORKERS}")
    return n


def workers_arg(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a number of workers") from None
    return bounded_workers(n)


def read_desired(store: str, current: int) -> int:
    """The number of workers wanted: the file `desired-workers` of a local
    store (one integer), else `current`."""
    if not is_local(store):
        return current
    path = local_dir(store) / DESIRED
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return current
    try:
        return bounded_workers(int(text))
    except (ValueError, argparse.ArgumentTypeError):
        print(f"ray_driver: {path}: `{text[:40]}` is not a number of workers in 0..={MAX_WORKERS}; keeping {current}",
              file=sys.stderr, flush=True)
        return current


def write_desired(store: str, n: int) -> None:
    path = local_dir(store) / DESIRED
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(DESIRED + ".tmp")
    tmp.write_text(f"{n}\n")
    os.replace(tmp, path)


def make_actor_class(ray):
    @ray.remote
    class DamaProcess:
        """Runs one `dama` process; exits (so that Ray restarts the actor)
        when the process dies with an error."""

        def __init__(self, role: str, argv: list[str], resume_argv: list[str] | None,
                     env: dict[str, str], env_once: dict[str, str]):
            ctx = ray.get_runtime_context()
            self.restarted = bool(ctx.was_current_actor_reconstructed)
            self.role = role
            # A restarted learner continues its run; faults injected for
            # the tests apply to the first incarnation only.
            args = resume_argv if (self.restarted and resume_argv) else argv
            full_env = dict(os.environ)
            full_env.update(env)
            if not self.restarted:
                full_env.update(env_once)
            else:
                for k in env_once:
                    full_env.pop(k, None)
            self.lines: list[str] = []
            self.last_chunk: dict | None = None
            self.stopping = False
            self.proc = subprocess.Popen(
                args, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, bufsize=1,
                preexec_fn=_die_with_parent)
            threading.Thread(target=self._read, daemon=True).start()

        def _read(self):
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                line = line.rstrip("\n")
                self.lines.append(line)
                m = CHUNK_LINE.search(line)
                if m:
                    self.last_chunk = {
                        "worker": m["id"], "generation": int(m["gen"]), "chunks": int(m["chunks"]),
                        "games": int(m["games"]), "games_per_hour": float(m["gph"]), "time": time.time(),
                    }
            rc = self.proc.wait()
            if rc != 0 and not self.stopping:
                # The process died (kill -9, a crash): let Ray restart us.
                print(f"dama {self.role} (pid {self.proc.pid}) died with status {rc}: restarting",
                      flush=True)
                os._exit(1)

        def status(self, since: int = 0) -> dict:
            if since > len(self.lines):
                since = 0
            return {
                "role": self.role, "pid": self.proc.pid, "returncode": self.proc.poll(),
                "restarted": self.restarted, "last_chunk": self.last_chunk,
                "lines": self.lines[since:], "line_count": len(self.lines),
            }

        def stop(self) -> int | None:
            self.stopping = True
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            return self.proc.wait()

    return DamaProcess


def _die_with_parent():
    """The `dama` child dies with its actor (PR_SET_PDEATHSIG), so an actor
    killed by Ray leaves no orphan playing on."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except OSError:
        pass


def parse_env(pairs: list[str]) -> dict[str, str]:
    out = {}
    for p in pairs:
        if "=" not in p:
            sys.exit(f"ray_driver: `{p}` is not KEY=VALUE")
        k, v = p.split("=", 1)
        out[k] = v
    return out


def run(args: argparse.Namespace) -> int:
    import ray

    dama = find_dama(args.dama)
    store = args.store
    if is_local(store):
        store = str(local_dir(store).resolve())
    if args.address:
        ray.init(address=args.address, log_to_driver=args.verbose)
    else:
        ray.init(num_cpus=args.num_cpus, log_to_driver=args.verbose, include_dashboard=False)
    resources = ray.cluster_resources()
    gpu = resources.get("GPU", 0) >= 1 and not args.no_gpu
    print(f"ray_driver: cluster {int(resources.get('CPU', 0))} CPUs, {int(resources.get('GPU', 0))} GPUs; "
          f"learner on {'a GPU' if gpu else 'a CPU'}; dama {dama}", flush=True)
    DamaProcess = make_actor_class(ray)
    env = {k: v for k, v in os.environ.items() if k.startswith("DAMA_") and k not in ("DAMA_VENV",)}

    learner_argv = [dama, "learner", "--store", store, "--quiet"]
    if args.local_dir:
        learner_argv += ["--local-dir", args.local_dir]
    if args.generations:
        learner_argv += ["--generations", str(args.generations)]
    learner_argv += ["--device", "cuda" if gpu else "cpu"]
    learner_argv += args.learner_arg
    resume_argv = [a for a in learner_argv] + ["--resume"]
    first_argv = learner_argv + (["--resume"] if args.resume else ["--config", str(Path(args.config).resolve())])
    if not args.resume and not args.config:
        sys.exit("ray_driver: --config is required (or --resume)")
    learner = DamaProcess.options(
        num_cpus=args.learner_cpus, num_gpus=1 if gpu else 0, max_restarts=args.learner_max_restarts,
        max_task_retries=-1, name=None,
    ).remote("learner", first_argv, resume_argv, env, parse_env(args.learner_fault_env_once))

    worker_argv = [dama, "worker", "--store", store, "--quiet",
                   "--torch-threads", str(args.worker_torch_threads), "--device", "cpu"]
    if args.games_per_chunk:
        worker_argv += ["--games-per-chunk", str(args.games_per_chunk)]
    worker_argv += args.worker_arg
    fault_once = parse_env(args.worker_fault_env_once)

    workers: list = []
    started = 0

    def start_worker():
        nonlocal started
        once = fault_once if started == 0 else {}
        started += 1
        return DamaProcess.options(
            num_cpus=args.worker_cpus, max_restarts=args.max_restarts, max_task_retries=-1,
        ).remote("worker", worker_argv, None, env, once)

    desired = args.workers
    if is_local(store):
        write_desired(store, desired)
    learner_seen = 0
    learner_lost_since = None
    t0 = time.time()
    last_print = 0.0
    first_games: dict[str, tuple[float, int]] = {}
    try:
        while True:
            want = read_desired(store, desired)
            if want != desired or len(workers) != want:
                while len(workers) < want:
                    workers.append(start_worker())
                while len(workers) > want:
                    w = workers.pop()
                    try:
                        ray.get(w.stop.remote(), timeout=30)
                    except Exception:  # noqa: BLE001 (a dead actor is fine here)
                        pass
                    ray.kill(w, no_restart=True)
                if want != desired:
                    print(f"ray_driver: scaled to {want} workers", flush=True)
                desired = want
            try:
                st = ray.get(learner.status.remote(learner_seen), timeout=args.status_timeout)
            except (ray.exceptions.GetTimeoutError, ray.exceptions.RayActorError) as e:
                st = None
                learner_lost_since = learner_lost_since or time.time()
                if time.time() - learner_lost_since > args.learner_lost_secs:
                    print(f"ray_driver: the learner has been unreachable for {args.learner_lost_secs:.0f} s "
                          f"({type(e).__name__}): giving up", file=sys.stderr, flush=True)
                    return 1
            if st is not None:
                for line in st["lines"]:
                    print(f"learner: {line}", flush=True)
                learner_seen = st["line_count"]
                learner_lost_since = None
                if st["returncode"] is not None and st["returncode"] == 0:
                    print("ray_driver: the learner finished", flush=True)
                    break
            if time.time() - last_print >= args.status_every:
                last_print = time.time()
                report(ray, workers, t0, first_games)
            time.sleep(0.5)
    finally:
        report(ray, workers, t0, first_games)
        for w in workers:
            try:
                ray.get(w.stop.remote(), timeout=30)
            except Exception:  # noqa: BLE001
                pass
        ray.shutdown()
    return 0


def report(ray, workers, t0, first_games) -> None:
    """One line per worker and the total: games/h from each worker's own
    figures (its chunk lines)."""
    total = 0.0
    rows = []
    for w in workers:
        try:
            st = ray.get(w.status.remote(1 << 30), timeout=5)
        except Exception:  # noqa: BLE001 (restarting)
            rows.append("  (restarting)")
            continue
        c = st["last_chunk"]
        if c is None:
            rows.append(f"  pid {st['pid']}: no chunk yet{' (restarted)' if st['restarted'] else ''}")
            continue
        total += c["games_per_hour"]
        rows.append(f"  worker {c['worker']}: {c['games']} games, {c['games_per_hour']:.0f} games/h, "
                    f"generation {c['generation']}{' (restarted)' if st['restarted'] else ''}")
    print(f"ray_driver: {len(workers)} workers, {total:.0f} games/h in total, {time.time() - t0:.0f} s", flush=True)
    for r in rows:
        print(r, flush=True)


def scale(args: argparse.Namespace) -> int:
    if not is_local(args.store):
        sys.exit("ray_driver scale: the store must be a directory (write desired-workers yourself otherwise)")
    write_desired(args.store, args.workers)
    print(f"desired workers: {args.workers}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="start the learner and the workers, and watch them")
    r.add_argument("--store", required=True, help="the run's store: a directory (shared by every node) or a URL")
    r.add_argument("--local-dir", help="the learner's run directory when the store is an object store")
    r.add_argument("--config", help="the run's config (new runs)")
    r.add_argument("--resume", action="store_true", help="continue the run")
    r.add_argument("--generations", type=int, help="override run.generations")
    r.add_argument("--workers", type=workers_arg, default=2, help=f"workers to start (0..={MAX_WORKERS})")
    r.add_argument("--address", help="an existing Ray cluster (`auto` on a node of one); default: a local one")
    r.add_argument("--num-cpus", type=int, help="CPUs of the local Ray cluster (default: all)")
    r.add_argument("--learner-cpus", type=float, default=1.0, help="CPUs the learner asks for")
    r.add_argument("--worker-cpus", type=float, default=1.0, help="CPUs each worker asks for")
    r.add_argument("--no-gpu", action="store_true", help="keep the learner on a CPU even where there is a GPU")
    r.add_argument("--worker-torch-threads", type=int, default=1, help="libtorch threads of each worker")
    r.add_argument("--games-per-chunk", type=int, help="override [distributed] games_per_chunk")
    r.add_argument("--max-restarts", type=int, default=-1, help="restarts of a dying worker (-1: always)")
    r.add_argument("--learner-max-restarts", type=int, default=5,
                   help="restarts of the learner (each resumes the run); a learner that cannot start fails the run")
    r.add_argument("--learner-lost-secs", type=float, default=120.0, help=argparse.SUPPRESS)
    r.add_argument("--status-every", type=float, default=10.0, help="seconds between progress reports")
    r.add_argument("--status-timeout", type=float, default=5.0, help=argparse.SUPPRESS)
    r.add_argument("--dama", help="the dama binary (the same path on every node)")
    r.add_argument("--learner-arg", action="append", default=[], help="an extra argument of `dama learner`")
    r.add_argument("--worker-arg", action="append", default=[], help="an extra argument of `dama worker`")
    r.add_argument("--learner-fault-env-once", action="append", default=[], help=argparse.SUPPRESS)
    r.add_argument("--worker-fault-env-once", action="append", default=[], help=argparse.SUPPRESS)
    r.add_argument("--verbose", action="store_true", help="show the actors' own output")
    s = sub.add_parser("scale", help="change the number of workers of a running driver")
    s.add_argument("--store", required=True)
    s.add_argument("workers", type=workers_arg)
    args = p.parse_args()
    return run(args) if args.cmd == "run" else scale(args)


if __name__ == "__main__":
    sys.exit(main())
