"""Plots of a dama training run, shared by notebooks/run.ipynb and
scripts/report.py (`dama report`).

A run directory (`checkpoints/<run>/`) holds `metrics.jsonl`, one JSON object
per line with a `"kind"` (`session`, `selfplay`, `train`, `eval`,
`generation`) and a `"generation"`: every file and key is documented in
docs/run-directory.md (the Rust types are `dama_run::MetricsEvent`, and
crates/selfplay/tests/selfplay/python_reader.rs checks that this reader sees the same
keys on a real run), and, after
`dama ladder --run NAME`, `eval/ladder.csv` (`rank,name,elo,se,lo95,hi95,
games,points,score`, written by crates/eval/src/rating.rs), and after
`dama curve --run NAME`, `curve.csv` (`generation,name,hours,positions,
selfplay_games,elo,lo95,hi95,games,points,settings`, one line per checkpoint
then one per anchor with an empty generation, written by
crates/selfplay/src/curve.rs).

    run = load_run("checkpoints/smoke")
    figs = run_figures(run)            # {name: matplotlib Figure}
    write_report(run, "checkpoints/smoke")   # PNGs + report.md

Every plot tolerates missing data (a run without evaluations, a ladder not
yet computed, a run killed mid-line): it says so on the axes instead of
failing.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

if "MPLBACKEND" not in os.environ and "ipykernel" not in sys.modules:
    # Headless by default (dama report, CI); Jupyter picks its own backend.
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

__all__ = [
    "Run",
    "load_run",
    "read_metrics",
    "run_figures",
    "plot_losses",
    "plot_learning_rate",
    "plot_policy_entropy",
    "plot_value_accuracy",
    "plot_elo",
    "plot_ladder",
    "plot_curve",
    "curve_figure",
    "plot_selfplay",
    "summary_markdown",
    "write_report",
    "ELO_CLIP",
]

#: Elo shown for a perfect or zero score (the estimate is infinite; the JSON
#: has null there). Such points are drawn at +-ELO_CLIP with a triangle.
ELO_CLIP = 800.0

#: The kinds of metrics lines (docs/run-directory.md); lines of other kinds
#: (from a newer trainer) are read by read_metrics and left out of the frames.
KINDS = ("session", "selfplay", "train", "eval", "generation")


@dataclass
class Run:
    """Everything read from one run directory."""

    path: Path
    name: str
    session: pd.DataFrame
    selfplay: pd.DataFrame
    train: pd.DataFrame
    eval: pd.DataFrame
    generation: pd.DataFrame
    ladder: pd.DataFrame | None = None
    curve: pd.DataFrame | None = None
    state: dict = field(default_factory=dict)
    config_text: str = ""
    skipped_lines: int = 0


def read_metrics(path: str | os.PathLike) -> tuple[list[dict], int]:
    """The JSON objects of a metrics file and the number of lines skipped
    (a partial last line of a killed run, or any line that is not an object)."""
    rows, skipped = [], 0
    p = Path(path)
    if not p.exists():
        return rows, skipped
    for line in p.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            skipped += 1
            continue
        if isinstance(obj, dict):
            rows.append(obj)
        else:
            skipped += 1
    return rows, skipped


def _frame(rows: list[dict], kind: str) -> pd.DataFrame:
    df = pd.DataFrame([r for r in rows if r.get("kind") == kind])
    if df.empty:
        return df
    if "generation" in df:
        df = df.sort_values("generation", kind="stable").reset_index(drop=True)
    return df


def load_run(run_dir: str | os.PathLike) -> Run:
    """Reads `metrics.jsonl`, `state.json`, `config.toml` and
    `eval/ladder.csv` of a run directory.

    Raises FileNotFoundError if the directory has no metrics.jsonl."""
    path = Path(run_dir)
    metrics = path / "metrics.jsonl"
    if not metrics.exists():
        raise FileNotFoundError(f"{metrics} does not exist: is {path} a dama run directory?")
    rows, skipped = read_metrics(metrics)
    frames = {k: _frame(rows, k) for k in KINDS}
    ladder = None
    csv = path / "eval" / "ladder.csv"
    if csv.exists():
        ladder = pd.read_csv(csv)
    curve = None
    if (path / "curve.csv").exists():
        curve = pd.read_csv(path / "curve.csv")
    state = {}
    if (path / "state.json").exists():
        state = json.loads((path / "state.json").read_text(encoding="utf-8"))
    config_text = ""
    if (path / "config.toml").exists():
        config_text = (path / "config.toml").read_text(encoding="utf-8")
    return Run(
        path=path,
        name=path.resolve().name,
        ladder=ladder,
        curve=curve,
        state=state,
        config_text=config_text,
        skipped_lines=skipped,
        **frames,
    )


# --------------------------------------------------------------------------
# Helpers


def _empty(ax, what: str, hint: str = ""):
    ax.text(0.5, 0.5, f"no {what} yet" + (f"\n{hint}" if hint else ""), ha="center", va="center", transform=ax.transAxes, color="gray")
    ax.set_xticks([])
    ax.set_yticks([])


def _has(df: pd.DataFrame, *cols: str) -> bool:
    return not df.empty and all(c in df.columns and df[c].notna().any() for c in cols)


def _num(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce")


def _gen_axis(ax):
    ax.set_xlabel("generation")
    ax.xaxis.get_major_locator().set_params(integer=True)


def elo_with_bounds(df: pd.DataFrame) -> pd.DataFrame:
    """Adds columns `elo_plot`, `err_lo`, `err_hi`, `clipped` to eval lines:
    a null (infinite) Elo becomes +-ELO_CLIP by the sign of score - 0.5, and
    missing or infinite interval ends are clipped the same way."""
    out = df.copy()
    score = _num(out.get("score", pd.Series(0.5, index=out.index))).fillna(0.5)
    sign = (score - 0.5).apply(lambda s: 1.0 if s > 0 else (-1.0 if s < 0 else 0.0))
    elo = _num(out["elo"]) if "elo" in out else pd.Series(math.nan, index=out.index)
    clipped = elo.isna() | ~elo.between(-ELO_CLIP, ELO_CLIP)
    elo = elo.where(~elo.isna(), sign * ELO_CLIP).clip(-ELO_CLIP, ELO_CLIP)
    lo = _num(out["elo_lo"]) if "elo_lo" in out else pd.Series(math.nan, index=out.index)
    hi = _num(out["elo_hi"]) if "elo_hi" in out else pd.Series(math.nan, index=out.index)
    # A missing end is infinite: on the clipped side it collapses onto the
    # point (the triangle marks it), elsewhere it runs to the clip.
    lo = lo.where(lo.notna(), elo.where(clipped & (sign > 0), -ELO_CLIP))
    hi = hi.where(hi.notna(), elo.where(clipped & (sign < 0), ELO_CLIP))
    lo = lo.clip(-ELO_CLIP, ELO_CLIP)
    hi = hi.clip(-ELO_CLIP, ELO_CLIP)
    out["elo_plot"] = elo
    out["err_lo"] = (elo - lo).clip(lower=0)
    out["err_hi"] = (hi - elo).clip(lower=0)
    out["clipped"] = clipped
    return out


_GEN_RE = re.compile(r"gen-(\d+)")


def ladder_generation(name: str) -> int | None:
    """The generation of a ladder player named after a checkpoint
    (`ckpt:.../gen-0003.safetensors,sims=32` -> 3), else None."""
    m = _GEN_RE.search(str(name))
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------
# Training


def plot_losses(run: Run, ax=None):
    """Total, policy and value loss against the training step."""
    ax = ax or plt.figure(figsize=(6, 4)).gca()
    t = run.train
    if not _has(t, "step", "loss"):
        _empty(ax, "training metrics")
        return ax
    for col, label in [("loss", "total"), ("policy_loss", "policy"), ("value_loss", "value")]:
        if _has(t, col):
            ax.plot(t["step"], _num(t[col]), marker="." if len(t) < 40 else None, label=label)
    ax.set_xlabel("training step")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("loss")
    ax.set_title("Losses")
    ax.legend()
    ax.grid(alpha=0.3)
    return ax


def _train_line(run: Run, ax, col: str, title: str, ylabel: str, logy: bool = False):
    t = run.train
    if not _has(t, "step", col):
        _empty(ax, title.lower())
        return ax
    ax.plot(t["step"], _num(t[col]), marker="." if len(t) < 40 else None)
    ax.set_xlabel("training step")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if logy and (_num(t[col]) > 0).all():
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    return ax


def plot_learning_rate(run: Run, ax=None):
    """The learning rate against the training step."""
    ax = ax or plt.figure(figsize=(6, 4)).gca()
    return _train_line(run, ax, "lr", "Learning rate", "lr")


def plot_policy_entropy(run: Run, ax=None):
    """Entropy of the network's policy on training batches (nats)."""
    ax = ax or plt.figure(figsize=(6, 4)).gca()
    return _train_line(run, ax, "policy_entropy", "Policy entropy", "nats")


def plot_value_accuracy(run: Run, ax=None):
    """Share of training positions whose most likely W/D/L is the outcome."""
    ax = ax or plt.figure(figsize=(6, 4)).gca()
    ax = _train_line(run, ax, "value_accuracy", "Value accuracy", "accuracy")
    if _has(run.train, "value_accuracy"):
        ax.set_ylim(0, 1)
    return ax


def training_figure(run: Run):
    """Losses, learning rate, policy entropy and value accuracy, 2x2."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    plot_losses(run, axes[0, 0])
    plot_learning_rate(run, axes[0, 1])
    plot_policy_entropy(run, axes[1, 0])
    plot_value_accuracy(run, axes[1, 1])
    fig.suptitle(f"{run.name}: training")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# Evaluation


def plot_elo(run: Run, ax=None):
    """Elo of each generation against each evaluation opponent (baselines and
    the previous generation), with 95% confidence bars. A perfect or zero
    score (infinite Elo) is drawn at +-ELO_CLIP as a triangle."""
    ax = ax or plt.figure(figsize=(7, 4.5)).gca()
    e = run.eval
    if e.empty or "opponent" not in e:
        _empty(ax, "evaluations")
        return ax
    e = elo_with_bounds(e)
    opponents = list(dict.fromkeys(e["opponent"]))
    width = 0.08 * (len(opponents) - 1)
    for k, opp in enumerate(opponents):
        d = e[e["opponent"] == opp]
        x = d["generation"] + (k * 0.08 - width / 2 if len(opponents) > 1 else 0)
        label = "previous generation" if opp == "previous" else f"vs {opp}"
        line = ax.errorbar(
            x,
            d["elo_plot"],
            yerr=[d["err_lo"], d["err_hi"]],
            marker="o",
            capsize=3,
            label=label,
        )
        c = d["clipped"]
        if c.any():
            color = line[0].get_color()
            up = c & (d["elo_plot"] > 0)
            down = c & (d["elo_plot"] < 0)
            ax.scatter(x[up], d["elo_plot"][up], marker="^", s=80, color=color, zorder=3)
            ax.scatter(x[down], d["elo_plot"][down], marker="v", s=80, color=color, zorder=3)
    ax.axhline(0, color="black", lw=0.8)
    _gen_axis(ax)
    ax.set_ylabel("Elo difference (95% CI)")
    ax.set_title("Elo vs baselines and the previous generation")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def plot_ladder(run: Run, ax=None):
    """The ladder (`dama ladder`): every rated player on one scale (random =
    0) with 95% intervals, checkpoints by generation, baselines as bands."""
    ax = ax or plt.figure(figsize=(7, 4.5)).gca()
    lad = run.ladder
    if lad is None or lad.empty:
        _empty(ax, "ladder", "(run `dama ladder --run NAME`)")
        return ax
    lad = lad.copy()
    lad["gen"] = lad["name"].map(ladder_generation)
    ck = lad[lad["gen"].notna()].sort_values("gen")
    base = lad[lad["gen"].isna()]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (_, r) in enumerate(base.iterrows()):
        c = colors[(i + 1) % len(colors)]
        ax.axhline(r["elo"], color=c, ls="--", lw=1, label=str(r["name"]))
        if r["hi95"] > r["lo95"]:
            ax.axhspan(r["lo95"], r["hi95"], color=c, alpha=0.08)
    if not ck.empty:
        ax.errorbar(
            ck["gen"],
            ck["elo"],
            yerr=[ck["elo"] - ck["lo95"], ck["hi95"] - ck["elo"]],
            marker="o",
            capsize=3,
            color=colors[0],
            label="checkpoints",
        )
        _gen_axis(ax)
    else:
        ax.set_xlabel("")
    ax.set_ylabel("Elo (random = 0, 95% CI)")
    ax.set_title("Ladder")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def _curve_parts(run: Run):
    c = run.curve
    if c is None or c.empty:
        return None, None
    is_anchor = c["generation"].isna()
    return c[~is_anchor].sort_values("generation"), c[is_anchor]


def plot_curve(run: Run, ax=None, x: str = "hours"):
    """The learning curve (`dama curve`): each checkpoint's Elo on the
    anchors' scale (random = 0) with 95% bars, against `x` = "hours" (time
    spent in generations) or "positions" (self-play positions so far); the
    anchors are dashed lines with their interval as a band."""
    ax = ax or plt.figure(figsize=(7, 4.5)).gca()
    ck, anchors = _curve_parts(run)
    if ck is None:
        _empty(ax, "learning curve", "(run `dama curve --run NAME`)")
        return ax
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (_, r) in enumerate(anchors.iterrows()):
        c = colors[(i + 1) % len(colors)]
        ax.axhline(r["elo"], color=c, ls="--", lw=1, label=str(r["name"]))
        if r["hi95"] > r["lo95"]:
            ax.axhspan(r["lo95"], r["hi95"], color=c, alpha=0.08)
    settings = str(ck["settings"].iloc[0]) if "settings" in ck and len(ck) else ""
    ax.errorbar(
        _num(ck[x]),
        _num(ck["elo"]),
        yerr=[_num(ck["elo"]) - _num(ck["lo95"]), _num(ck["hi95"]) - _num(ck["elo"])],
        marker="o",
        capsize=3,
        color=colors[0],
        label=f"checkpoints ({settings})" if settings else "checkpoints",
    )
    ax.set_xlabel("hours of training" if x == "hours" else "self-play positions")
    ax.set_ylabel("Elo (random = 0, 95% CI)")
    ax.set_title(f"Learning curve vs {'hours' if x == 'hours' else 'positions'}")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def curve_figure(run: Run):
    """The learning curve against hours and against self-play positions."""
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    plot_curve(run, axes[0], "hours")
    plot_curve(run, axes[1], "positions")
    fig.suptitle(f"{run.name}: learning curve")
    fig.tight_layout()
    return fig


def evaluation_figure(run: Run):
    """Elo over generations and, if computed, the ladder, side by side."""
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    plot_elo(run, axes[0])
    plot_ladder(run, axes[1])
    fig.suptitle(f"{run.name}: evaluation")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# Self-play

SELFPLAY_PANELS = [
    ("games_per_hour", "Games per hour", "games/h"),
    ("evals_per_sec", "Network evaluations per second", "evals/s"),
    ("avg_batch", "Average batch", "positions"),
    ("avg_game_length", "Game length", "plies (moves)"),
    ("draw_rate", "Draw rate", "share"),
    ("first_player_score", "First player's score", "score"),
    ("false_resignation_rate", "False resignations", "share of playthrough games"),
]


def plot_selfplay(run: Run, axes=None):
    """Self-play figures per generation: throughput (games/h, evals/s,
    average batch), game length, draw rate, first player's score and the
    false-resignation rate (of games played through to check resignation)."""
    if axes is None:
        fig, grid = plt.subplots(2, 4, figsize=(16, 7))
        axes = grid.ravel()
    s = run.selfplay
    for ax, (col, title, ylabel) in zip(axes, SELFPLAY_PANELS):
        if not _has(s, "generation", col):
            _empty(ax, title.lower())
            ax.set_title(title)
            continue
        ax.plot(s["generation"], _num(s[col]), marker="o")
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        _gen_axis(ax)
        ax.grid(alpha=0.3)
        if col in ("draw_rate", "first_player_score", "false_resignation_rate"):
            ax.set_ylim(-0.02, 1.02)
        if col == "first_player_score":
            ax.axhline(0.5, color="black", lw=0.8, ls=":")
        if col == "false_resignation_rate" and _has(s, "false_resignations"):
            for g, n in zip(s["generation"], s["false_resignations"]):
                if n:
                    ax.annotate(str(int(n)), (g, 0), fontsize="small")
    for ax in list(axes)[len(SELFPLAY_PANELS):]:
        # Spare panel: seconds per generation split into self-play/training.
        g = run.generation
        if _has(g, "generation", "selfplay_seconds", "train_seconds"):
            ax.bar(g["generation"], _num(g["selfplay_seconds"]), label="self-play")
            ax.bar(
                g["generation"],
                _num(g["train_seconds"]),
                bottom=_num(g["selfplay_seconds"]),
                label="training",
            )
            if "seconds" in g:
                ax.plot(g["generation"], _num(g["seconds"]), "k.", label="whole generation")
            ax.set_title("Seconds per generation")
            ax.set_ylabel("s")
            _gen_axis(ax)
            ax.legend(fontsize="small", loc="best", framealpha=0.6)
        else:
            _empty(ax, "generation timings")
    return axes


def selfplay_figure(run: Run):
    """The self-play panels of plot_selfplay in one 2x4 figure."""
    fig, grid = plt.subplots(2, 4, figsize=(16, 7))
    plot_selfplay(run, grid.ravel())
    fig.suptitle(f"{run.name}: self-play")
    fig.tight_layout()
    return fig


def run_figures(run: Run) -> dict:
    """The report's figures by file stem: training, evaluation, curve,
    selfplay."""
    return {
        "training": training_figure(run),
        "evaluation": evaluation_figure(run),
        "curve": curve_figure(run),
        "selfplay": selfplay_figure(run),
    }


# --------------------------------------------------------------------------
# Summary


def _fmt(x, spec=".3g"):
    try:
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "–"
        return format(x, spec)
    except (TypeError, ValueError):
        return str(x)


def _elo_text(r) -> str:
    if pd.isna(r.get("elo")):
        return "+inf" if r.get("score", 0.5) > 0.5 else "-inf"
    lo, hi = r.get("elo_lo"), r.get("elo_hi")
    lo_t = "-inf" if pd.isna(lo) else f"{lo:+.0f}"
    hi_t = "+inf" if pd.isna(hi) else f"{hi:+.0f}"
    return f"{r['elo']:+.0f} [{lo_t}, {hi_t}]"


def summary_markdown(run: Run, images: list[str] | None = None) -> str:
    """A short Markdown summary: where the run stands, the last generation's
    training, self-play and evaluation figures, the ladder, and the images."""
    lines = [f"# Run `{run.name}`", ""]
    gens = run.generation
    last_gen = int(gens["generation"].max()) if _has(gens, "generation") else 0
    step = run.state.get("step", gens["step"].iloc[-1] if _has(gens, "step") else 0)
    lines.append(f"- Generations finished: **{last_gen}** (training step {step})")
    if _has(gens, "best_generation"):
        lines.append(f"- Best (self-play) generation: {int(gens['best_generation'].iloc[-1])}")
    if _has(gens, "seconds"):
        total = _num(gens["seconds"]).sum()
        lines.append(f"- Time in generations: {total / 3600:.2f} h ({total:.0f} s)")
    if run.skipped_lines:
        lines.append(f"- Metrics lines skipped (partial or unreadable): {run.skipped_lines}")
    lines.append("")
    t = run.train
    if _has(t, "loss"):
        r = t.iloc[-1]
        lines += [
            "## Training (last logged step)",
            "",
            "| step | loss | policy | value | lr | policy entropy | value accuracy |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {int(r['step'])} | {_fmt(r.get('loss'), '.4f')} | {_fmt(r.get('policy_loss'), '.4f')} "
            f"| {_fmt(r.get('value_loss'), '.4f')} | {_fmt(r.get('lr'), '.3g')} "
            f"| {_fmt(r.get('policy_entropy'), '.3f')} | {_fmt(r.get('value_accuracy'), '.3f')} |",
            "",
        ]
    s = run.selfplay
    if _has(s, "games"):
        r = s.iloc[-1]
        lines += [
            f"## Self-play (generation {int(r['generation'])})",
            "",
            "| games | games/h | evals/s | avg batch | game length | draw rate | first player | false resignations |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {int(r['games'])} | {_fmt(r.get('games_per_hour'), '.0f')} | {_fmt(r.get('evals_per_sec'), '.0f')} "
            f"| {_fmt(r.get('avg_batch'), '.1f')} | {_fmt(r.get('avg_game_length'), '.1f')} "
            f"| {_fmt(r.get('draw_rate'), '.1%')} | {_fmt(r.get('first_player_score'), '.3f')} "
            f"| {int(r.get('false_resignations', 0) or 0)} |",
            f"",
            f"Self-play games in all: {int(_num(s['games']).sum())}.",
            "",
        ]
    e = run.eval
    if not e.empty and "opponent" in e:
        g = int(e["generation"].max())
        last = e[e["generation"] == g]
        # An asymmetric game (Turkish Tafl) reports the network's W/D/L per side.
        sided = "by_side" in last and any(isinstance(x, list) and x for x in last["by_side"])
        lines += [
            f"## Evaluation (generation {g})",
            "",
            "| opponent | games | W/D/L | score | Elo (95% CI) |" + (" per side (W/D/L) |" if sided else ""),
            "|---|---:|---:|---:|---:|" + ("---|" if sided else ""),
        ]
        for _, r in last.iterrows():
            row = (
                f"| {r['opponent']} | {int(r['games'])} | {int(r['wins'])}/{int(r['draws'])}/{int(r['losses'])} "
                f"| {_fmt(r.get('score'), '.1%')} | {_elo_text(r)} |"
            )
            if sided:
                sides = r.get("by_side") if isinstance(r.get("by_side"), list) else []
                row += " " + ", ".join(
                    f"as {x.get('side')} {x.get('wins', 0)}/{x.get('draws', 0)}/{x.get('losses', 0)}" for x in sides
                ) + " |"
            lines.append(row)
        lines.append("")
    if run.ladder is not None and not run.ladder.empty:
        lines += [
            "## Ladder (`eval/ladder.csv`)",
            "",
            "| rank | player | Elo | 95% CI | games | score |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        for _, r in run.ladder.iterrows():
            name = str(r["name"])
            gen = ladder_generation(name)
            short = f"gen {gen}" if gen is not None else name
            lines.append(
                f"| {int(r['rank'])} | {short} | {r['elo']:+.0f} | [{r['lo95']:+.0f}, {r['hi95']:+.0f}] "
                f"| {int(r['games'])} | {_fmt(r.get('score'), '.1%')} |"
            )
        lines.append("")
    ck, anchors = _curve_parts(run)
    if ck is not None:
        settings = str(ck["settings"].iloc[0]) if "settings" in ck and len(ck) else ""
        lines += [
            f"## Learning curve (`curve.csv`, checkpoints at {settings})",
            "",
            "| generation | hours | positions | Elo | 95% CI |",
            "|---:|---:|---:|---:|---:|",
        ]
        for _, r in ck.iterrows():
            lines.append(
                f"| {int(r['generation'])} | {r['hours']:.2f} | {int(r['positions'])} "
                f"| {r['elo']:+.0f} | [{r['lo95']:+.0f}, {r['hi95']:+.0f}] |"
            )
        for _, r in anchors.iterrows():
            lines.append(f"| {r['name']} (anchor) | | | {r['elo']:+.0f} | [{r['lo95']:+.0f}, {r['hi95']:+.0f}] |")
        lines.append("")
    if images:
        lines += ["## Plots", ""]
        for img in images:
            lines.append(f"![{Path(img).stem}]({img})")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_report(run: Run, out_dir: str | os.PathLike, dpi: int = 110) -> list[Path]:
    """Writes `<out_dir>/report-<name>.png` for each figure of run_figures and
    `<out_dir>/report.md`; returns the files written. Each file is written to
    a temporary name and renamed into place."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, fig in run_figures(run).items():
        path = out / f"report-{stem}.png"
        tmp = path.with_suffix(".png.tmp")
        fig.savefig(tmp, dpi=dpi, format="png")
        plt.close(fig)
        os.replace(tmp, path)
        written.append(path)
    md = out / "report.md"
    tmp = md.with_suffix(".md.tmp")
    tmp.write_text(summary_markdown(run, [p.name for p in written]), encoding="utf-8")
    os.replace(tmp, md)
    written.append(md)
    return written
