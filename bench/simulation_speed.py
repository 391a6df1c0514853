"""Simulation speed of FCFS, FAIRCAMP and OStrich, and the FAIRCAMP paper's
Fig. 4 experiment (FCFS vs FAIRCAMP max-stretch for k = 2, 3, 5, 10, 20).

    python -m schedbench.bench.simulation_speed            # full: 10^3 instances per k
    python -m schedbench.bench.simulation_speed --quick    # 20 instances per k

Fig. 4's stretch D^(u) = F_u / F_u* needs the P||Cmax optimum of every
campaign; about one campaign in eight of these workloads is not closed by
cheap bounds, too many for exact optima at this scale in 10 minutes, so
the full experiment divides by F_u^LB, the sum of the campaigns' lower
bounds (L0, the L1 family, Martello-Toth L2): the printed stretches are
exact upper bounds on D^(u) ("D_ub"), the same denominator for every
algorithm.
"""

import argparse
import math
import statistics
import time
from fractions import Fraction
from multiprocessing import Pool

from schedbench.heuristics.faircamp import faircamp, faircamp_nondelay
from schedbench.heuristics.fcfs import fcfs
from schedbench.heuristics.ostrich import ostrich
from schedbench.instances.campaign import faircamp_paper, ostrich_paper
from schedbench.metrics.campaign import user_flows
from schedbench.metrics.pcmax_bounds import lower_bound

USERS = (2, 3, 5, 10, 20)
PAPER_IMPROVEMENT = {5: 1.35, 10: 2.24, 20: 3.4}


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


ALGORITHMS = (("FCFS", fcfs), ("FAIRCAMP", faircamp), ("FAIRCAMP non-delay", faircamp_nondelay),
              ("OStrich", ostrich))


def fig4_cell(args: tuple[int, int]) -> tuple[int, list[float], float]:
    """One instance of Fig. 4: (k, D_ub per algorithm, seconds inside FCFS and FAIRCAMP)."""
    users, seed = args
    inst = faircamp_paper(users, seed)
    flows_lb = [sum(lower_bound(c.jobs, inst.machines)[0] for c in u.campaigns) for u in inst.users]
    stretches, simulated = [], 0.0
    for name, run in ALGORITHMS:
        began = time.perf_counter()
        schedule = run(inst)
        if name in ("FCFS", "FAIRCAMP"):
            simulated += time.perf_counter() - began
        stretches.append(float(max(Fraction(f, lb) for f, lb in zip(user_flows(inst, schedule), flows_lb))))
    return users, stretches, simulated


def mean_ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=1000, help="instances per k (paper: 10^3)")
    parser.add_argument("--quick", action="store_true", help="20 instances per k")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--speed-only", action="store_true", help="only the jobs/s table")
    args = parser.parse_args()
    count = 20 if args.quick else args.instances

    print("Simulation speed (best of 5 runs, one core, 10^4 jobs, schedule included)")
    print("| workload | algorithm | jobs/s |\n|---|---|---:|")
    for label, name, rate in speed():
        print(f"| {label} | {name} | {rate:,.0f} |")
    if args.speed_only:
        return

    began = time.perf_counter()
    cells = [(k, seed) for k in USERS for seed in range(count)]
    with Pool(args.workers) as pool:
        results = pool.map(fig4_cell, cells, chunksize=8)
    wall = time.perf_counter() - began
    print(f"\nFAIRCAMP paper Fig. 4: {count} instances of 10^4 jobs per k, m = 10, four algorithms, "
          f"{args.workers} workers: {wall:.1f} s wall; {sum(r[2] for r in results):.1f} CPU-s inside FCFS and "
          f"FAIRCAMP (the paper's two)")
    names = [name for name, _ in ALGORITHMS]
    print("| k | " + " | ".join(f"{n} D_ub (95% CI)" for n in names) + " | FCFS / FAIRCAMP | paper |")
    print("|---:|" + "---:|" * (len(names) + 2))
    for k in USERS:
        cells = []
        means = []
        for a in range(len(names)):
            mean, half = mean_ci([r[1][a] for r in results if r[0] == k])
            means.append(mean)
            cells.append(f"{mean:.2f} ± {half:.2f}")
        paper = PAPER_IMPROVEMENT.get(k, "-")
        print(f"| {k} | " + " | ".join(cells) + f" | {means[0] / means[1]:.2f} | {paper} |")
    print("\nD_ub = max_u F_u / F_u^LB with F_u^LB the sum of the campaigns' lower bounds: an exact upper "
          "bound on FAIRCAMP's D^(u) (Fig. 4 plots D^(u) itself). Paper: FAIRCAMP stays below k, "
          "FCFS/FAIRCAMP about 1.35, 2.24 and 3.4 for k = 5, 10, 20.")


if __name__ == "__main__":
    main()
