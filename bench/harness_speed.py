"""Harness throughput: cells per second for a pure-heuristic grid and an
exact-solver grid, with 1 and 2 workers, each into a fresh store: local
processes, and a Dask cluster of that many single-threaded worker processes
on this machine (``LocalCluster``, started before the clock), which is how a
cluster run (``--cluster ADDRESS``) spreads the cells.

``python -m bench.harness_speed [--seeds N] [--out FILE]``. The time includes
building each instance, validating every schedule, the exact metrics and
one store transaction per instance, which is what a user's grid pays.
"""

import argparse
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from schedbench.harness.experiment import parse
from bench.results_log import rerun_command, write_generated
from schedbench.harness.runner import run_experiment
from schedbench.harness.store import Store


def grids(seeds: int) -> dict[str, dict]:
    heuristic = {"name": "speed-heuristic", "grid": [
        {"family": "pcmax", "generator": "pcmax-uniform", "params": {"jobs": 30, "machines": 4}, "seeds": seeds,
         "heuristics": "all"},
        {"family": "campaign", "generator": "small", "seeds": seeds, "heuristics": ["fcfs", "faircamp", "ostrich"],
         "objectives": ["sum-user-flow", "max-campaign-stretch"]},
        {"family": "mosp", "generator": "mosp-small", "seeds": seeds, "heuristics": "all"},
    ]}
    both = [{"name": "cpsat", "time_limit": 10}, {"name": "milp", "time_limit": 10}]
    exact = {"name": "speed-exact", "grid": [
        {"family": "campaign", "generator": "small", "seeds": max(1, seeds // 4), "objectives": ["sum-user-flow"],
         "solvers": both},
        {"family": "mosp", "generator": "mosp-small", "seeds": max(1, seeds // 4), "solvers": both},
        {"family": "workflow", "generator": "workflow-small", "seeds": max(1, seeds // 4),
         "solvers": [{"name": "cpsat", "time_limit": 10}]},
    ]}
    return {"pure heuristic": heuristic, "exact solver (CP-SAT with 1 search worker, MILP)": exact}


def measure(data: dict, workers: int, cluster: Any = None) -> tuple[int, float]:
    experiment = parse(data, "", Path.cwd(), False, data["name"])
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "speed.sqlite") as store:
        began = time.perf_counter()
        summary = run_experiment(experiment, store, workers, cluster)
        elapsed = time.perf_counter() - began
    bad = {s: n for s, n in summary.statuses.items() if s in ("error", "invalid")}
    if bad:
        raise SystemExit(f"{data['name']}: cells ended {bad}")
    return summary.ran, elapsed


def _measure_with(runner: str, data: dict, workers: int) -> tuple[int, float]:
    """``measure`` through local processes, or a Dask cluster of ``workers`` processes started beforehand."""
    if runner == "local":
        return measure(data, workers)
    with dask_cluster(workers) as cluster:
        return measure(data, workers, cluster)


@contextmanager
def dask_cluster(workers: int) -> Iterator[Any]:
    """A Dask ``LocalCluster`` of ``workers`` single-threaded worker processes
    on this machine: how a ``--cluster`` run spreads the cells, one worker a core."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=200, help="instances per heuristic grid (exact: a quarter)")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    lines = ["| grid | runner | workers | cells | seconds | cells/s |", "|---|---|---:|---:|---:|---:|"]
    for data in grids(2).values():   # imports and first solves paid before any clock starts
        measure({**data, "name": "warm-up"}, 1)
    for label, data in grids(args.seeds).items():
        for workers in (1, 2):
            for runner in ("local", "dask"):
                cells, elapsed = _measure_with(runner, data, workers)
                lines.append(f"| {label} | {runner} | {workers} | {cells} | {elapsed:.1f} | {cells / elapsed:,.1f} |")
                print(lines[-1], flush=True)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name),
                        f"{args.seeds} instances a heuristic grid, {max(1, args.seeds // 4)} an exact one, on "
                        f"{os.cpu_count()} cores:\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
