"""F_u*: every campaign's P||Cmax optimum of a workload, by each engine backend.

    python -m bench.campaign_optima [--seeds 2] [--budget 60] [--out FILE.md]

Every campaign metric against exact optima (FAIRCAMP Fig. 4's D^(u), the
claims' F_u*) needs the P||Cmax optimum of each campaign alone on the
machines. The harness proves them per workload with
``solvers.campaign.optimal_user_flows`` within one budget (the cell's time
limit, 60 s by default); a workload with one campaign unproven has no
value. This script computes the same optima (``campaign_optima``, which
``optimal_user_flows`` sums) with each backend of the engine (``cpsat``,
``milp``, ``portfolio``) on FAIRCAMP §VII workloads
(Fig. 4's, at the quick and the paper's size) and OStrich §6 workloads,
and prints per workload how many campaigns need more than cheap bounds,
how many each backend leaves unproven, and its time.
"""

import argparse
import time
from pathlib import Path

from bench.results_log import write_generated
from schedbench.heuristics.pcmax import lpt
from schedbench.instances.campaign import faircamp_paper, ostrich_paper
from schedbench.metrics.pcmax.bounds import lower_bound
from schedbench.solvers.exact import settings
from schedbench.solvers.campaign import campaign_optima
from schedbench.solvers.pcmax import BACKENDS, clear_cache


def needs_search(lengths: tuple[int, ...], machines: int) -> bool:
    """Whether the certified lower bound and LPT's makespan differ (the engine
    then goes on with MULTIFIT, local search and its models)."""
    _, start = lpt(lengths, [0] * machines)
    return lower_bound(lengths, machines)[0] < max(s + p for s, p in zip(start, lengths))


def workloads(seeds: int):
    for seed in range(1, seeds + 1):
        yield f"FAIRCAMP §VII, quick size (10^3 jobs, k = 5), seed {seed}", faircamp_paper(5, seed, n_jobs=1000)
        yield f"FAIRCAMP §VII, Fig. 4 (10^4 jobs, k = 5), seed {seed}", faircamp_paper(5, seed)
        yield f"OStrich §6 (10^4 jobs, k = 5), seed {seed}", ostrich_paper(5, seed)


def measure(instance, backend: str, budget: float) -> tuple[int, float]:
    """(campaigns left unproven, seconds) of one workload's F_u* by ``backend``."""
    clear_cache()  # nothing proven by an earlier backend or workload is reused
    began = time.perf_counter()
    optima = campaign_optima(instance, backend, budget)
    return sum(not s.optimal for row in optima for s in row), time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="workloads of each kind")
    parser.add_argument("--budget", type=float, default=settings.DEFAULT_TIME_LIMIT,
                        help="seconds per workload, as the harness gives a cell")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    settings.CPSAT_WORKERS = 1
    lines = [f"{args.budget:g} s per workload (all its campaigns), CP-SAT with 1 worker",
             "", "| workload | m | campaigns | need a search | "
             + " | ".join(f"{b}: unproven | {b}: s" for b in BACKENDS) + " |",
             "|---|---:|---:|---:|" + "---:|---:|" * len(BACKENDS)]
    print("\n".join(lines), flush=True)
    for label, inst in workloads(args.seeds):
        campaigns = [c.jobs for u in inst.users for c in u.campaigns]
        hard = sum(needs_search(jobs, inst.machines) for jobs in campaigns)
        cells = []
        for backend in BACKENDS:
            unproven, seconds = measure(inst, backend, args.budget)
            cells += [str(unproven), f"{seconds:.1f}"]
        lines.append(f"| {label} | {inst.machines} | {len(campaigns)} | {hard} | {' | '.join(cells)} |")
        print(lines[-1], flush=True)
    if args.out:
        write_generated(args.out, f"python -m bench.campaign_optima --seeds {args.seeds} "
                                  f"--budget {args.budget:g}", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
