"""The campaign solvers before and after the P||Cmax engine.

    python -m schedbench.bench.campaign_optima [--seeds 1] [--time-limit 10]

Every campaign objective's denominator (F_u*, the campaign optima of the
single-user decomposition, the claims' optima) is a set of P||Cmax optima,
one per campaign. This script computes all of them for the FAIRCAMP §VII
workload (Fig. 4's instances) and the OStrich §6 workload, twice:

- before: the route the campaign solvers took before the engine existed:
  L0/L1 and LPT, then one CP-SAT assignment model (x[j][q], jobs sorted,
  job j only on machines 0..j) minimising the makespan, the model the
  engine's CP-SAT step still uses for mostly distinct lengths;
- after: ``pcmax_optimum(..., "portfolio")``, the engine every family calls.

Printed per workload: campaigns, how many need more than cheap bounds,
how many each route proves, and the total time.
"""

import argparse
import time
from collections.abc import Sequence

from schedbench.heuristics.pcmax import lpt
from schedbench.instances.campaign import faircamp_paper, ostrich_paper
from schedbench.solvers import settings
from schedbench.solvers.cpsat.pcmax import assignment
from schedbench.solvers.pcmax import pcmax_optimum
from schedbench.metrics.pcmax_bounds import l0, l1


def cheap_bounds(lengths: Sequence[int], machines: int) -> tuple[int, int]:
    """The pre-engine bounds: max(L0, L1) and the LPT makespan."""
    lower = max(l0(lengths, machines), l1(lengths, machines) if len(lengths) > machines else 0)
    _, start = lpt(lengths, [0] * machines)
    return lower, max(s + p for s, p in zip(start, lengths))


def before(lengths: Sequence[int], machines: int, time_limit: float) -> bool:
    """The pre-engine route; True when it proves the optimum."""
    lower, upper = cheap_bounds(lengths, machines)
    if lower == upper:
        return True
    status, _, _ = assignment(lengths, machines, lower, upper, time.monotonic() + time_limit)
    return status == "optimal"


def after(lengths: Sequence[int], machines: int, time_limit: float) -> bool:
    return pcmax_optimum(tuple(lengths), machines, "portfolio", time_limit).optimal


def measure(campaigns: list[tuple[int, ...]], machines: int, route, time_limit: float) -> tuple[int, float]:
    began = time.perf_counter()
    proven = sum(route(jobs, machines, time_limit) for jobs in campaigns)
    return proven, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=1, help="workloads of each kind")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per campaign")
    args = parser.parse_args()
    print(f"CP-SAT workers: {settings.CPSAT_WORKERS}; {args.time_limit} s per campaign")
    print("| workload | m | campaigns | not closed by L0/L1 + LPT | before: proven | before: s | "
          "after: proven | after: s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for seed in range(1, args.seeds + 1):
        for label, inst in ((f"FAIRCAMP §VII (Fig. 4), seed {seed}", faircamp_paper(10, seed)),
                            (f"OStrich §6, seed {seed}", ostrich_paper(5, seed))):
            campaigns = [c.jobs for u in inst.users for c in u.campaigns]
            hard = sum(1 for jobs in campaigns if len(set(cheap_bounds(jobs, inst.machines))) > 1)
            old, old_s = measure(campaigns, inst.machines, before, args.time_limit)
            new, new_s = measure(campaigns, inst.machines, after, args.time_limit)
            print(f"| {label} | {inst.machines} | {len(campaigns)} | {hard} | {old} | {old_s:.1f} | "
                  f"{new} | {new_s:.1f} |", flush=True)


if __name__ == "__main__":
    main()
