"""Experiments at full scale, timed: the whole run, or batches of it.

``--full`` runs ``schedbench run EXPERIMENT --workers W`` once, as a user
runs it. ``--of N --batches K ...`` times batches instead, where the whole
run is too long:
batch ``K/N`` is ``schedbench run EXPERIMENT --batch K/N --workers W`` (a
fresh process and a fresh store, start-up included), and the full run is
estimated at N times the batches' mean. A batch is every N-th task in a
fixed order, so it samples every size of the grid; pick N so that it
divides the seeds, and a batch keeps whole seeds (the seed bundles that
let one process prove a seed's optima once). The experiment file is read
whole by every batch, so its start-up counts in each. ``--store`` keeps the
cells for the figures: the full run's store, or the batches' stores merged.

    python -m bench.experiment_timing EXPERIMENT.toml (--full | --of N --batches K [K ...])
        [--store STORE] [--workers W (default: the CPU count)] [--out FILE]
"""

import argparse
import json
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


def run_batch(experiment: Path, batch: int, of: int, workers: int, store: Path) -> dict:
    """One batch through the command, in its own process and a fresh ``store``."""
    return {"batch": f"{batch}/{of}", **timed_run(experiment, ["--batch", f"{batch}/{of}"], workers, store)}


def timed_batches(experiment: Path, of: int, ks: list[int], workers: int, store: Path | None) -> list[dict]:
    """Batches ``ks`` of ``of``, each timed in its own process and store; with
    ``store``, every batch's cells merged into it afterwards (for the figures)."""
    batches = []
    with tempfile.TemporaryDirectory() as folder:
        for k in ks:
            batches.append(run_batch(experiment, k, of, workers, Path(folder) / f"batch-{k}.sqlite"))
            print(f"batch {k}/{of}: {batches[-1]['seconds']:.1f} s", file=sys.stderr, flush=True)
            if store:
                with Store(store) as db:
                    db.merge(Path(folder) / f"batch-{k}.sqlite")
    return batches


def timed_run(experiment: Path, options: list[str], workers: int, store: Path | None = None,
              cluster: str | None = None) -> dict:
    """``schedbench run`` on ``workers`` local processes, or on the Dask
    scheduler at ``cluster``, into ``store`` (or a temporary one)."""
    runner = ["--cluster", cluster] if cluster else ["--workers", str(workers)]
    with tempfile.TemporaryDirectory() as folder:
        return _timed(experiment, [*options, *runner], store or Path(folder) / "run.sqlite")


def _timed(experiment: Path, options: list[str], store: Path) -> dict:
    """``schedbench run`` in its own process: seconds, cells, their statuses
    and how many have no value (a failed cell, or a reference not proven)."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from schedbench.cli import main; main()", "run", str(experiment), *options,
                    "--store", str(store), "--no-progress"],
                   check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - began
    statuses, cells, no_value = Counter(), 0, 0
    with Store(store, create=False) as db:
        for row in db.rows():
            statuses[row["status"]] += 1
            cells += 1
            no_value += row["value"] is None or _no_metric(row)
    return {"cells": cells, "seconds": seconds, "statuses": statuses, "no_value": no_value}


def _no_metric(row: dict) -> bool:
    """A cell whose metrics have a missing one (Fig. 8's Stretch, undecided)."""
    return any(value is None for value in json.loads(row.get("metrics") or "{}").values())


def _rows(runs: list[dict]) -> str:
    lines = ["| run | cells | seconds | cells/s | statuses | cells without a value |", "|---|---:|---:|---:|---|---:|"]
    for r in runs:
        statuses = ", ".join(f"{n:,} {s}" for s, n in sorted(r["statuses"].items()))
        lines.append(f"| {r['batch']} | {r['cells']:,} | {r['seconds']:,.1f} | {r['cells'] / r['seconds']:,.1f} "
                     f"| {statuses} | {r['no_value']:,} |")
    return "\n".join(lines)


def table(experiment: Path, of: int, workers: int, batches: list[dict]) -> str:
    mean = statistics.mean(b["seconds"] for b in batches)
    return (f"`schedbench run {experiment.as_posix()} --batch K/{of} --workers {workers}` on {os.cpu_count()} cores, "
            f"each batch a fresh process and store:\n\n" + _rows(batches)
            + f"\n\nFull run, estimated as {of} x the mean batch ({mean:.1f} s): "
              f"**{of * mean / 60:,.1f} minutes** ({of * mean / 3600:,.2f} hours).\n")


def full_table(experiment: Path, workers: int, run: dict) -> str:
    return (f"`schedbench run {experiment.as_posix()} --workers {workers}` on {os.cpu_count()} cores, the whole "
            f"experiment in one process:\n\n" + _rows([run])
            + f"\n\nFull run: **{run['seconds'] / 60:,.1f} minutes** ({run['seconds'] / 3600:,.2f} hours).\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("experiment", type=Path)
    parser.add_argument("--full", action="store_true", help="run the whole experiment once")
    parser.add_argument("--store", type=Path, help="keep the cells here: the full run's, or the batches' merged")
    parser.add_argument("--of", type=int, help="N: the grid cut into N batches")
    parser.add_argument("--batches", type=int, nargs="+", help="the batches K to run and time")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="write the table here, headed by the command")
    args = parser.parse_args()
    if args.full == bool(args.of or args.batches) or (not args.full and not (args.of and args.batches)):
        parser.error("give --full, or --of N --batches K ...")
    if args.full:
        run = {"batch": "full", **timed_run(args.experiment, [], args.workers, args.store)}
        text = full_table(args.experiment, args.workers, run)
    else:
        batches = timed_batches(args.experiment, args.of, args.batches, args.workers, args.store)
        text = table(args.experiment, args.of, args.workers, batches)
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text)


if __name__ == "__main__":
    main()
