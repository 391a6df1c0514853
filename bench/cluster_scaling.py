"""What more workers give an experiment: one batch of it timed on 1 and 2
local processes (``--workers``) and on a Dask cluster of 1 and 2
single-threaded worker processes on this machine (``LocalCluster``, started
before the clock and reached the way a cluster run reaches its scheduler,
``schedbench run --cluster ADDRESS``), each run a fresh process and store.

The speed-up is against the same runner with one worker, and per worker
that speed-up over the workers: what a core added gives. From the batch the
table projects the whole experiment (N batches): its core-hours, and its
hours on W cluster workers if each keeps the per-worker efficiency measured
here (a projection, not a measurement: its assumptions are written
under the table).

    python -m bench.cluster_scaling EXPERIMENT.toml --of N --batch K [--out FILE]
"""

import argparse
import os
import sys
from pathlib import Path

from bench.experiment_timing import timed_run
from bench.harness_speed import dask_cluster
from bench.results_log import rerun_command, write_generated

#: The cluster sizes the projection lists.
PROJECTED_WORKERS = (8, 32, 128)


def measure(experiment: Path, batch: str, runner: str, workers: int) -> dict:
    """One timed run of the batch on ``workers`` local processes or Dask workers."""
    options = ["--batch", batch]
    if runner == "local":
        return timed_run(experiment, options, workers)
    with dask_cluster(workers) as cluster:
        return timed_run(experiment, options, workers, cluster=cluster.scheduler_address)


def table(experiment: Path, batch: str, of: int, runs: dict[tuple[str, int], dict]) -> str:
    """The runs (by runner and workers) as a Markdown table, with the projection under it."""
    lines = [f"`schedbench run {experiment.as_posix()} --batch {batch}` on {os.cpu_count()} cores, each run a "
             f"fresh process and store:", "",
             "| runner | workers | cells | seconds | cells/s | speed-up | per worker |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for (runner, workers), run in runs.items():
        speedup = runs[runner, 1]["seconds"] / run["seconds"]
        lines.append(f"| {runner} | {workers} | {run['cells']:,} | {run['seconds']:,.1f} "
                     f"| {run['cells'] / run['seconds']:,.1f} | {speedup:.2f} | {speedup / workers:.2f} |")
    return "\n".join(lines) + "\n\n" + projection(of, runs) + "\n"


def projection(of: int, runs: dict[tuple[str, int], dict]) -> str:
    """The whole experiment's core-hours from the one-worker Dask run, and
    its hours on larger clusters at the two-worker efficiency."""
    core_hours = of * runs["dask", 1]["seconds"] / 3600
    efficiency = runs["dask", 1]["seconds"] / runs["dask", 2]["seconds"] / 2
    hours = ", ".join(f"{w} workers {core_hours / (w * efficiency):,.2f} h" for w in PROJECTED_WORKERS)
    return (f"The whole experiment ({of} such batches): about {core_hours:,.1f} core-hours on one Dask worker; "
            f"at the per-worker efficiency of 2 workers here ({efficiency:.2f}), projected: {hours}. "
            f"The projection assumes that the cells, independent, keep each worker busy, and that the "
            f"efficiency measured on 2 workers holds on more. Each timed run includes its start-up (the "
            f"interpreter, reading the file and dealing the batch, starting the workers), counted here {of} "
            f"times where a single run pays it once, and the run's one process that writes the store is "
            f"not measured at more than 2 workers.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("experiment", type=Path)
    parser.add_argument("--of", type=int, required=True, help="N: the grid cut into N batches")
    parser.add_argument("--batch", type=int, required=True, help="K: the batch timed")
    parser.add_argument("--out", type=Path, help="write the table here, headed by the command")
    args = parser.parse_args()
    if not 1 <= args.batch <= args.of:
        parser.error(f"--batch must be in 1..{args.of}")
    batch, runs = f"{args.batch}/{args.of}", {}
    for runner in ("local", "dask"):
        for workers in (1, 2):
            runs[runner, workers] = measure(args.experiment, batch, runner, workers)
            print(f"{runner} {workers}: {runs[runner, workers]['seconds']:.1f} s", file=sys.stderr, flush=True)
    text = table(args.experiment, batch, args.of, runs)
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text)


if __name__ == "__main__":
    main()
