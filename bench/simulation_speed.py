"""Simulation speed of FCFS, FAIRCAMP and OStrich: jobs per second on one
core, schedule included (FAIRCAMP §VII and OStrich §6 workloads of 10^4
jobs). The FAIRCAMP Fig. 4 experiment itself is bench/experiments/faircamp_fig4.toml.

    python -m bench.simulation_speed [--out FILE]
"""

import argparse
import math
import time
from pathlib import Path

from bench.results_log import rerun_command, write_generated
from schedbench.heuristics.faircamp import faircamp
from schedbench.heuristics.fcfs import fcfs
from schedbench.heuristics.ostrich import ostrich
from schedbench.instances.campaign import faircamp_paper, ostrich_paper


def speed(repeats: int = 5) -> list[tuple[str, str, float]]:
    """Best-of-``repeats`` jobs per second of each simulator on one core."""
    rows = []
    workloads = [(f"FAIRCAMP §VII k={k}", faircamp_paper(k, seed=1)) for k in (2, 10, 20)]
    workloads += [("OStrich §6 k=10", ostrich_paper(10, seed=1))]
    for label, inst in workloads:
        for name, run in (("fcfs", fcfs), ("faircamp", faircamp), ("ostrich", ostrich)):
            best = math.inf
            for _ in range(repeats):
                began = time.perf_counter()
                run(inst)
                best = min(best, time.perf_counter() - began)
            rows.append((label, name, len(inst.lengths) / best))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    lines = ["Best of 5 runs, one core, 10^4 jobs, schedule included:", "",
             "| workload | algorithm | jobs/s |", "|---|---|---:|"]
    lines += [f"| {label} | {name} | {rate:,.0f} |" for label, name, rate in speed()]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text)


if __name__ == "__main__":
    main()
