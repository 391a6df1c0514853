"""What MOSP Fig. 8's cell costs beyond the heuristics: the Stretch
references of every workload, timed one workload at a time.

For each N and each workload of the figure's grid (n = 100, 200, ...,
1000; the seeds given), the four heuristics' schedules, then the bounds of
C^(k)alone that decide each schedule's Stretch
(``solvers.mosp.stretch.stretch_references``, sharing the P||Cmax answers
between the four schedules as a run does). Prints per N the workloads,
the references' seconds per workload (mean, the slowest), how many
workloads took over a second, and how many schedules' Stretch was left
undecided in the time limit. A run's cost is about the figures 5, 7 and
9 cost (``timing_mosp_figs5_7_9.md``) plus this per workload, on one core.
Seeds apart from the figure's first ones (its quick run) are the held-out
shapes the engine was not tuned on.

    python -m bench.mosp_fig8_references [--organizations 5 10 20] [--seeds FIRST LAST]
        [--time-limit 10] [--out FILE]
"""

import argparse
import statistics
import time
from pathlib import Path

from bench.results_log import rerun_command, write_generated
from schedbench.heuristics.mosp import PAPER_HEURISTICS
from schedbench.instances.mosp import paper_workload
from schedbench.solvers.mosp.stretch import stretch_references
from schedbench.solvers.pcmax import clear_cache

JOBS = range(100, 1001, 100)


def workload_seconds(organizations: int, jobs: int, seed: int, time_limit: float) -> tuple[float, int]:
    """(seconds of the references, schedules whose Stretch they leave undecided) of one workload."""
    instance = paper_workload(organizations, jobs, seed)
    schedules = [heuristic(instance) for heuristic in PAPER_HEURISTICS.values()]
    began = time.perf_counter()
    undecided = sum("alone_unproven" in stretch_references(instance, schedule, time_limit) for schedule in schedules)
    return time.perf_counter() - began, undecided


def row(organizations: int, seeds: range, time_limit: float) -> str:
    seconds, undecided = [], 0
    for jobs in JOBS:
        for seed in seeds:
            clear_cache()  # a run's process holds many workloads, but no two share an organization
            spent, left = workload_seconds(organizations, jobs, seed, time_limit)
            seconds.append(spent)
            undecided += left
    return (f"| {organizations} | {len(seconds):,} | {statistics.mean(seconds):.3f} | {max(seconds):.2f} | "
            f"{sum(s > 1 for s in seconds)} | {undecided} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--organizations", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--seeds", type=int, nargs=2, default=[100, 130], metavar=("FIRST", "LAST"),
                        help="seeds FIRST..LAST-1 of every (N, n)")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    seeds = range(*args.seeds)
    lines = [f"MOSP Fig. 8's Stretch references, one core, seeds {seeds.start} to {seeds.stop - 1} of every "
             f"n = 100, ..., 1000, {args.time_limit:g} s limit:", "",
             "| N | workloads | seconds a workload | slowest | over 1 s | schedules undecided |",
             "|---:|---:|---:|---:|---:|---:|"]
    for organizations in args.organizations:
        lines.append(row(organizations, seeds, args.time_limit))
        print(lines[-1], flush=True)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
