"""Experiments at full scale, timed on batches: batch ``K/N`` is
``schedbench run EXPERIMENT --batch K/N --workers W`` as a user runs it (a
fresh process and a fresh store, start-up included), and the full run is
estimated at N times the batches' mean. A batch is every N-th task in a
fixed order, so it samples every size of the grid; pick N so that it
divides the seeds, and a batch keeps whole seeds (the seed bundles that
let one process prove a seed's optima once).

    python -m bench.experiment_timing EXPERIMENT.toml --of N --batches K [K ...]
        [--workers W (default: the CPU count)] [--out FILE]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.results_log import rerun_command, write_generated
from schedbench.harness.store import Store


def run_batch(experiment: Path, batch: int, of: int, workers: int) -> dict:
    """One batch through the command, in its own process and store."""
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "batch.sqlite"
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from schedbench.cli import main; main()", "run", str(experiment),
                        "--batch", f"{batch}/{of}", "--store", str(store), "--workers", str(workers),
                        "--no-progress"], check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - began
        with Store(store, create=False) as db:
            rows = list(db.rows())
    return {"batch": batch, "cells": len(rows), "seconds": seconds, "statuses": Counter(row["status"] for row in rows),
            "no_value": sum(row["value"] is None for row in rows)}


def table(experiment: Path, of: int, workers: int, batches: list[dict]) -> str:
    lines = ["| batch | cells | seconds | cells/s | statuses | cells without a value |", "|---|---:|---:|---:|---|---:|"]
    for b in batches:
        statuses = ", ".join(f"{n} {s}" for s, n in sorted(b["statuses"].items()))
        lines.append(f"| {b['batch']}/{of} | {b['cells']} | {b['seconds']:.1f} | {b['cells'] / b['seconds']:,.1f} "
                     f"| {statuses} | {b['no_value']} |")
    mean = statistics.mean(b["seconds"] for b in batches)
    return (f"`schedbench run {experiment.as_posix()} --batch K/{of} --workers {workers}` on {os.cpu_count()} cores, "
            f"each batch a fresh process and store:\n\n" + "\n".join(lines)
            + f"\n\nFull run, estimated as {of} x the mean batch ({mean:.1f} s): "
              f"**{of * mean / 60:,.1f} minutes** ({of * mean / 3600:,.2f} hours).\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("experiment", type=Path)
    parser.add_argument("--of", type=int, required=True, help="N: the grid cut into N batches")
    parser.add_argument("--batches", type=int, nargs="+", required=True, help="the batches K to run and time")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="write the table here, headed by the command")
    args = parser.parse_args()
    batches = []
    for k in args.batches:
        batches.append(run_batch(args.experiment, k, args.of, args.workers))
        print(f"batch {k}/{args.of}: {batches[-1]['seconds']:.1f} s", file=sys.stderr, flush=True)
    text = table(args.experiment, args.of, args.workers, batches)
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text)


if __name__ == "__main__":
    main()
