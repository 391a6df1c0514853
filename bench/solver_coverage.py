"""Exact-solver coverage on campaign instances: CP-SAT vs MILP, and each
model against its plain alternative.

    python -m schedbench.bench.solver_coverage [--per-cell 10] [--time-limit 10]

For a grid of sizes, prints per (objective, solver, formulation) the share
of instances proven optimal within the time limit and the median time.
Formulations: CP-SAT ``cumulative`` (default) vs ``machines`` (optional
interval per machine); MILP ``time-indexed`` (default) vs ``big-m``.
"""

import argparse
import statistics
import time

from schedbench.instances.campaign import random_small
from schedbench.result import OPTIMAL
from schedbench.solvers import settings, solve
from schedbench.solvers.pcmax import pcmax_optimum

GRID = [  # (users, campaigns per user, jobs per campaign, machines)
    ((2, 2), (2, 2), (2, 3), (2, 2)),
    ((3, 3), (2, 2), (2, 3), (2, 3)),
    ((3, 3), (3, 3), (3, 4), (3, 3)),
    ((4, 4), (3, 3), (3, 4), (3, 4)),
]
CONFIGS = [("cpsat", "cumulative"), ("cpsat", "machines"), ("milp", "time-indexed"), ("milp", "big-m")]
OBJECTIVES = ("sum-user-flow", "max-user-stretch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-cell", type=int, default=10)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--configs", default=",".join(f"{s}:{f}" for s, f in CONFIGS))
    args = parser.parse_args()
    configs = [tuple(c.split(":")) for c in args.configs.split(",")]
    print(f"CP-SAT workers: {settings.CPSAT_WORKERS}; time limit {args.time_limit} s per solve; "
          f"{args.per_cell} instances per size; lengths U[1,9], no release/think times")
    print("| size (users x campaigns x jobs, m) | jobs | objective | solver:formulation | proven optimal | median s |")
    print("|---|---:|---|---|---:|---:|")
    for g, (users, campaigns, jobs, machines) in enumerate(GRID):
        instances = [random_small(10_000 * g + s, users=users, campaigns=campaigns, jobs=jobs, length=(1, 9),
                                  machines=machines) for s in range(args.per_cell)]
        for inst in instances:  # the campaigns' P||Cmax optima are shared by all configurations
            for user in inst.users:
                for c in user.campaigns:
                    for solver in ("cpsat", "milp"):
                        pcmax_optimum(c.jobs, inst.machines, solver, args.time_limit)
        size = f"{users[0]} x {campaigns[0]} x {jobs[0]}-{jobs[1]}, m={machines[0]}-{machines[1]}"
        mean_jobs = statistics.fmean(len(i.lengths) for i in instances)
        for objective in OBJECTIVES:
            for solver, formulation in configs:
                times, proven = [], 0
                for inst in instances:
                    began = time.perf_counter()
                    result = solve(inst, objective, solver, args.time_limit, formulation=formulation)
                    times.append(time.perf_counter() - began)
                    proven += result.status == OPTIMAL
                print(f"| {size} | {mean_jobs:.1f} | {objective} | {solver}:{formulation} | "
                      f"{proven}/{len(instances)} | {statistics.median(times):.2f} |", flush=True)


if __name__ == "__main__":
    main()
