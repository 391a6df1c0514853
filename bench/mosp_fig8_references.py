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

A second table says where that time goes: every P||Cmax problem the
references ask the engine beyond the cheap bounds, by the organization's
jobs a machine and by the method that closed it (or "open"), with its CPU
seconds. It is the profile to read before changing the engine for Fig. 8.
``--record FILE`` keeps those problems as P||Cmax instances, one a line,
for ``bench.pcmax_ab``, which compares two revisions of the engine on them.

    python -m bench.mosp_fig8_references [--organizations 5 10 20] [--seeds FIRST LAST [STEP]]
        [--time-limit 10] [--out FILE] [--record FILE]
"""

import argparse
import json
import statistics
import time
from pathlib import Path

from bench.results_log import rerun_command, write_generated
from schedbench.heuristics.mosp import PAPER_HEURISTICS
from schedbench.instances.mosp import paper_workload
from schedbench.model import instance_to_json
from schedbench.model.pcmax import PcmaxInstance
from schedbench.solvers.exact import settings
from schedbench.solvers.mosp import stretch
from schedbench.solvers.mosp.stretch import stretch_references
from schedbench.solvers.pcmax import clear_cache, pcmax_optima

#: Jobs a machine of the problems asked, as the second table groups them ([low, high)).
DENSITIES = ((0, 2), (2, 3), (3, 4), (4, 5), (5, None))

#: Every problem the references asked beyond the cheap bounds, by (workload,
#: lengths, machines): its (jobs a machine, what closed it or "open", CPU
#: seconds), filled by ``_recorded``.
ASKED: dict[tuple[tuple[int, int, int] | None, tuple[int, ...], int], list] = {}
#: The workload (N, n, seed) whose references are asked now (``workload_seconds``).
WORKLOAD: list[tuple[int, int, int] | None] = [None]


def _recorded(problems, solver: str, time_limit: float):
    """``pcmax_optima`` timed (CPU) per problem: the references ask one
    organization at a time, through this name in their module, and an
    organization asked again by a workload's next schedule adds its time
    (another workload's same organization is another problem)."""
    began = time.process_time()
    found = pcmax_optima(problems, solver, time_limit)
    (lengths, machines), = problems
    entry = ASKED.setdefault((WORKLOAD[0], lengths, machines), [_density(len(lengths), machines), "", 0.0])
    entry[1] = found[0].method if found[0].optimal else "open"
    entry[2] += time.process_time() - began
    return found


def _density(jobs: int, machines: int) -> str:
    return _label(*next((low, high) for low, high in DENSITIES if high is None or jobs < high * machines))


def _label(low: int, high: int | None) -> str:
    return f"{low} and more" if high is None else f"below {high}" if low == 0 else f"{low} to {high}"


def asked_table() -> list[str]:
    """The problems asked per jobs a machine and closing method: count, CPU seconds, the slowest."""
    groups: dict[tuple[str, str], list[float]] = {}
    for density, method, seconds in ASKED.values():
        groups.setdefault((density, method), []).append(seconds)
    order = [_label(low, high) for low, high in DENSITIES]
    lines = ["| jobs a machine | closed by | problems | CPU s | slowest s |", "|---|---|---:|---:|---:|"]
    for (density, method), seconds in sorted(groups.items(), key=lambda g: (order.index(g[0][0]), -sum(g[1]))):
        lines.append(f"| {density} | {method} | {len(seconds):,} | {sum(seconds):.1f} | {max(seconds):.2f} |")
    total = [s for *_, s in ASKED.values()]
    lines.append(f"| all | | {len(total):,} | {sum(total):.1f} | {max(total, default=0):.2f} |")
    return lines


def recorded_problems() -> list[str]:
    """The problems asked (``ASKED``), each a P||Cmax instance in the format
    (one JSON line, named after its workload), in the order asked."""
    lines = []
    for (workload, lengths, machines), (density, _, _) in ASKED.items():
        name = "fig8-N{}-n{}-seed{}".format(*workload) if workload else "fig8"
        problem = PcmaxInstance(machines, lengths, name, {"jobs_a_machine": density})
        lines.append(json.dumps(instance_to_json(problem)))
    return lines


JOBS = range(100, 1001, 100)


def workload_seconds(organizations: int, jobs: int, seed: int, time_limit: float) -> tuple[float, int]:
    """(seconds of the references, schedules whose Stretch they leave undecided) of one workload."""
    WORKLOAD[0] = (organizations, jobs, seed)
    instance = paper_workload(organizations, jobs, seed)
    schedules = [heuristic(instance) for heuristic in PAPER_HEURISTICS.values()]
    began = time.perf_counter()
    undecided = sum("alone_unproven" in stretch_references(instance, schedule, time_limit) for schedule in schedules)
    return time.perf_counter() - began, undecided


def row(organizations: int, seeds: range, time_limit: float) -> str:
    seconds, undecided = [], 0
    for jobs in JOBS:
        for seed in seeds:
            clear_cache()  # each workload alone (one seed's workloads of neighbouring n can share an organization)
            spent, left = workload_seconds(organizations, jobs, seed, time_limit)
            seconds.append(spent)
            undecided += left
    return (f"| {organizations} | {len(seconds):,} | {statistics.mean(seconds):.3f} | {max(seconds):.2f} | "
            f"{sum(s > 1 for s in seconds)} | {undecided} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--organizations", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--seeds", type=int, nargs="+", default=[100, 130], metavar="SEED",
                        help="FIRST LAST [STEP]: seeds FIRST, FIRST + STEP, ... below LAST of every (N, n) "
                             "(STEP 1 if left out; a large one spreads them over the paper's 20,000)")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="also write the P||Cmax problems asked, one instance a line (for bench.pcmax_ab)")
    args = parser.parse_args()
    seeds = range(*args.seeds) if len(args.seeds) in (2, 3) and args.seeds[2:] != [0] else range(0)
    if not seeds:
        parser.error("--seeds takes FIRST LAST [STEP] with LAST above FIRST and STEP at least 1")
    if args.record:
        try:
            args.record.write_text("")  # before the run: a path it cannot write is said at once
        except OSError as exc:
            parser.error(f"--record: cannot write {args.record}: {exc.strerror}")
    settings.use_cpsat_workers(1)  # one core: CP-SAT's CPU seconds are then the call's
    step = f" in steps of {seeds.step:,}" if seeds.step > 1 else ""
    lines = [f"MOSP Fig. 8's Stretch references, one core, seeds {seeds.start:,} to {seeds[-1]:,}{step} of every "
             f"n = 100, ..., 1000, {args.time_limit:g} s limit:", "",
             "| N | workloads | seconds a workload | slowest | over 1 s | schedules undecided |",
             "|---:|---:|---:|---:|---:|---:|"]
    stretch.pcmax_optima = _recorded
    for organizations in args.organizations:
        lines.append(row(organizations, seeds, args.time_limit))
        print(lines[-1], flush=True)
    table = asked_table()
    print("\n".join(table), flush=True)
    lines += ["", "The P||Cmax problems those references asked beyond the cheap bounds (one line per jobs a "
              "machine n_k / N and what closed the problem; CPU seconds, an organization asked again by the "
              "workload's next schedule counted once with both times):", "", *table]
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name, ("--record",)), "\n".join(lines) + "\n")
    if args.record:
        args.record.write_text("".join(line + "\n" for line in recorded_problems()))


if __name__ == "__main__":
    main()
