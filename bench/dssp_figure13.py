"""The DSSP paper's Figure 13, and the paper's upper bound against true optima.

    python -m schedbench.bench.dssp_figure13 [--workloads 20] [--exact 40] [--time-limit 20]

Figure 13 (§4.2): §4.1's standard workloads at full scale (P = 100, D = 4680
units of 10 s, so T_inf^max is within a few percent of D, as the paper's
"at least 97%"; size rewards R_j = T_1), seeds 0..K-1; the two-phase method
with DP-by-profits selection at r = 0.70, 0.71, ..., 1.00 and the LCPF,
STCPU and RANDOM dispatchers. The performance ratio is the paper's: reward
over the knapsack value at r = 1 (its upper bound). Prints the mean curve,
LCPF's best r, the paper's statement to compare, and the dispatch speed
(tasks dispatched per second).

``--exact N``: on N scaled-down workloads (the same procedure divided by 50
and by 25, and the small ones of ``small_workload``; size and unit rewards), where
CP-SAT proves the optimum, how far the paper's bound and its LP relaxation
sit above it, and LCPF (tuned r) against both.
"""

import argparse
import statistics
import time
from fractions import Fraction

from tqdm import tqdm

from schedbench.heuristics.dssp import dispatch, selections, two_phase
from schedbench.instances.dssp import scaled_workload, small_workload, standard_workload
from schedbench.metrics.dssp import reward
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.metrics.dssp import knapsack_bound, lp_bound
from schedbench.validator import validate

POLICIES = ("lcpf", "stcpu", "random")
R_VALUES = [Fraction(r, 100) for r in range(70, 101)]
PAPER = "paper (Fig. 13): LCPF dominates STCPU and RANDOM at every r; LCPF peaks at about 0.84 at r = 0.87"


def figure13(workloads: int) -> tuple[dict[str, list[list[Fraction]]], int, float]:
    """ratios[policy][r index][workload], tasks dispatched and seconds spent dispatching."""
    ratios = {policy: [[] for _ in R_VALUES] for policy in POLICIES}
    tasks, seconds = 0, 0.0
    for seed in tqdm(range(workloads), desc="workloads", disable=None):
        inst = standard_workload(seed)
        bound = knapsack_bound(inst)
        for i, jobs in enumerate(selections(inst, R_VALUES)):
            for policy in POLICIES:
                began = time.perf_counter()
                schedule = dispatch(inst, jobs, policy, seed)
                seconds += time.perf_counter() - began
                tasks += sum(s is not None for s in schedule.start)
                ratios[policy][i].append(Fraction(reward(inst, schedule), bound))
    return ratios, tasks, seconds


def curve_table(ratios: dict[str, list[list[Fraction]]]) -> str:
    lines = ["| r | " + " | ".join(POLICIES) + " |", "|---:|" + "---:|" * len(POLICIES)]
    for i, r in enumerate(R_VALUES):
        means = [float(statistics.mean(ratios[p][i])) for p in POLICIES]
        lines.append(f"| {float(r):.2f} | " + " | ".join(f"{m:.4f}" for m in means) + " |")
    return "\n".join(lines)


def exact_table(count: int, time_limit: float) -> str:
    """Per kind of scaled-down workload: bound / OPT and LCPF / OPT vs LCPF / bound."""
    kinds = {f"{name}, {rewards} rewards": (lambda s, make=make, rewards=rewards: make(s, rewards))
             for rewards in ("size", "unit")
             for name, make in (("§4.1 / 50", lambda s, r: scaled_workload(s, 50, reward=r)),
                                ("§4.1 / 25", lambda s, r: scaled_workload(s, 25, reward=r)),
                                ("small", lambda s, r: small_workload(s, reward=r)))}
    lines = ["| workloads | proven | knapsack bound / OPT (mean, max) | LP bound / OPT (mean) | "
             "LCPF / OPT (mean) | LCPF / bound (mean) |", "|---|---:|---:|---:|---:|---:|"]
    for kind, make in kinds.items():
        rows = []
        for seed in tqdm(range(count), desc=kind, disable=None):
            inst = make(seed)
            result = solve(inst, None, "cpsat", time_limit)
            if validate(inst, result.schedule):
                raise AssertionError(f"{inst.name}: invalid optimal schedule")
            if result.status != OPTIMAL or not result.objective:
                continue
            optimum, bound = result.objective, knapsack_bound(inst)
            lcpf = reward(inst, two_phase(inst, "lcpf"))
            rows.append((bound / optimum, lp_bound(inst) / optimum, lcpf / optimum, Fraction(lcpf, bound)))
        if not rows:
            continue
        columns = list(zip(*rows))
        lines.append(f"| {kind} | {len(rows)}/{count} | {float(statistics.mean(columns[0])):.4f}, "
                     f"{float(max(columns[0])):.4f} | {float(statistics.mean(columns[1])):.4f} | "
                     f"{float(statistics.mean(columns[2])):.4f} | {float(statistics.mean(columns[3])):.4f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workloads", type=int, default=20, help="full-scale workloads per point (the paper: 20)")
    parser.add_argument("--exact", type=int, default=40, help="scaled-down workloads per kind for the second table")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds per exact solve")
    args = parser.parse_args()
    began = time.perf_counter()
    ratios, tasks, seconds = figure13(args.workloads)
    print(f"Figure 13: {args.workloads} standard workloads (P = 100, D = 4680, size rewards), DP selection, "
          f"mean reward / knapsack bound at r = 1, {time.perf_counter() - began:.0f} s")
    print(curve_table(ratios))
    lcpf = [statistics.mean(column) for column in ratios["lcpf"]]
    best = max(range(len(R_VALUES)), key=lcpf.__getitem__)
    print(f"LCPF's best r: {float(R_VALUES[best]):.2f} (mean ratio {float(lcpf[best]):.4f})")
    print(PAPER)
    print(f"dispatch speed: {tasks / seconds:,.0f} tasks dispatched per second ({tasks:,} tasks in {seconds:.1f} s)")
    if args.exact:
        print(f"\nThe paper's bound against true optima (CP-SAT, {args.time_limit} s per solve; "
              "instances with optimum 0 left out):")
        print(exact_table(args.exact, args.time_limit))


if __name__ == "__main__":
    main()
