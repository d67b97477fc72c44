#!/usr/bin/env python3
"""Writes the plots of a training run as PNG files and a short Markdown
summary (report.md) into the run directory: what `dama report` runs.

    python scripts/report.py checkpoints/<run> [--out DIR] [--dpi N]

The plotting code is notebooks/dama_plots.py, the same the run notebook
(notebooks/run.ipynb) uses. Needs matplotlib and pandas
(scripts/setup-notebooks.sh installs them into the project's venv).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "notebooks"))

import dama_plots  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", help="the run directory (checkpoints/<run>)")
    ap.add_argument("--out", help="where to write (default: the run directory)")
    ap.add_argument("--dpi", type=int, default=110)
    args = ap.parse_args()
    try:
        run = dama_plots.load_run(args.run_dir)
    except FileNotFoundError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    written = dama_plots.write_report(run, args.out or args.run_dir, dpi=args.dpi)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
