"""Boards drawn with matplotlib: pieces, coordinates, and arrows for the
steps a policy likes (width by probability)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

from .position import WHITE, Position, square_name

LIGHT, DARK = "#f0d9b5", "#d9b48c"


def draw_board(pos: Position, ax=None, steps=None, top: int = 4, title: str | None = None):
    """Draws `pos` (White at the bottom) on `ax`. `steps` is a list of
    (Step, probability), best first; the `top` best get arrows and labels."""
    ax = ax or plt.figure(figsize=(4.5, 4.5)).gca()
    for r in range(8):
        for f in range(8):
            ax.add_patch(Rectangle((f, r), 1, 1, color=LIGHT if (f + r) % 2 else DARK, zorder=0))
    for sq, (color, king) in pos.pieces.items():
        f, r = sq % 8 + 0.5, sq // 8 + 0.5
        face, edge = ("white", "black") if color == WHITE else ("#222222", "black")
        ax.add_patch(Circle((f, r), 0.38, facecolor=face, edgecolor=edge, lw=1.5, zorder=2))
        if king:
            ax.add_patch(Circle((f, r), 0.24, facecolor="none", edgecolor="#c8a000", lw=2.5, zorder=3))
            ax.text(f, r, "K", ha="center", va="center", fontsize=9, weight="bold",
                    color="#c8a000", zorder=4)
    for k, (step, p) in enumerate((steps or [])[:top]):
        a = (step.frm % 8 + 0.5, step.frm // 8 + 0.5)
        b = (step.to % 8 + 0.5, step.to // 8 + 0.5)
        color = "#d62728" if k == 0 else "#1f77b4"
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=14,
                                     lw=1 + 5 * p, color=color, alpha=0.85, zorder=5))
        ax.text(b[0] + 0.28, b[1] + 0.3, f"{100 * p:.0f}%", fontsize=8, color=color,
                weight="bold", zorder=6, ha="center")
    ax.set_xlim(0, 8)
    ax.set_ylim(0, 8)
    ax.set_aspect("equal")
    ax.set_xticks([i + 0.5 for i in range(8)], list("abcdefgh"))
    ax.set_yticks([i + 0.5 for i in range(8)], [str(i + 1) for i in range(8)])
    ax.tick_params(length=0)
    if title is None:
        title = f"{'White' if pos.turn == WHITE else 'Black'} to move"
    ax.set_title(title, fontsize=10)
    return ax


def step_table(steps, top: int = 8) -> str:
    return ", ".join(f"{s} {100 * p:.1f}%" for s, p in steps[:top])


__all__ = ["draw_board", "step_table", "square_name"]
