"""Exact-solver coverage on MOSP instances: CP-SAT vs MILP.

    python -m bench.mosp_solvers [--per-cell 8] [--time-limit 10]
    ... --organizations 3 --jobs 10    # a smaller grid
    ... --results run.jsonl    # one line per (instance, solver) as it finishes; a rerun skips the ones done
    ... --out FILE             # also write the table, headed by the command

For N organizations (one machine each) and n jobs, the paper's §6 workload
(Zipf(1.4267) owners) but with lengths U[1,20] instead of U[1,1000], so the
time-indexed MILP (one binary per job, start time and, under selfishness,
machine) stays small enough to solve. The instances of a cell cycle through the four variants:
local objective cmax / sum_ci, not selfish / selfish. Prints per cell and
solver the share closed by bounds and heuristics alone (the same for both:
no model runs), the share proven optimal within the time limit and the
median time.
A MILP past its size cap is counted as such, not solved.
Every schedule is validated, and wherever a solver proves optimality the
other must agree: the same optimum, no better schedule, no higher bound
(any failure aborts with the instance name).
"""

import argparse
import statistics
from fractions import Fraction
from operator import itemgetter
from pathlib import Path

from tqdm import tqdm

from bench.results_log import append_row, rerun_command, resume, write_generated
from schedbench.errors import ModelTooLarge
from schedbench.families import violations
from schedbench.instances.mosp import paper_workload
from schedbench.model.mosp import MospInstance
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.exact import settings

VARIANTS = [("cmax", False), ("sum_ci", False), ("cmax", True), ("sum_ci", True)]
SOLVERS = ("cpsat", "milp")
KEY = itemgetter("instance", "solver")
TOO_LARGE = "too-large"


def cell_instances(organizations: int, jobs: int, count: int, high: int) -> list[tuple[str, MospInstance]]:
    """(label, instance) for seeds 0..count-1; the label names the variant,
    which the generator's instance name leaves out."""
    out = []
    for seed in range(count):
        local_objective, selfish = VARIANTS[seed % len(VARIANTS)]
        inst = paper_workload(organizations, jobs, seed, high=high, local_objective=local_objective, selfish=selfish)
        out.append((f"{inst.name}-{local_objective}{'-selfish' if selfish else ''}", inst))
    return out


def solve_row(label: str, inst: MospInstance, solver: str, time_limit: float) -> dict:
    """One solve; a model past the MILP's size cap is a row of its own (status ``too-large``)."""
    try:
        result = solve(inst, "makespan", solver, time_limit)
    except ModelTooLarge:
        return {"instance": label, "N": inst.n_organizations, "n": len(inst.lengths), "solver": solver,
                "status": TOO_LARGE, "objective": None, "bound": None, "method": None, "seconds": 0.0}
    if result.schedule is not None and (broken := violations(inst, result.schedule, "makespan")):
        raise AssertionError(f"{label}: {solver} returned an invalid schedule: {broken[0]}")
    return {"instance": label, "N": inst.n_organizations, "n": len(inst.lengths), "solver": solver,
            "status": result.status, "objective": None if result.objective is None else str(result.objective),
            "bound": None if result.bound is None else str(result.bound), "method": result.method,
            "seconds": result.wall_time}


def check_agreement(rows: list[dict]) -> int:
    """Abort unless the solvers agree on every instance one of them proved
    optimal: one optimum, no schedule below it, no bound above it. Returns
    the number of instances that both proved optimal."""
    by_instance: dict[str, list[dict]] = {}
    for row in rows:
        by_instance.setdefault(row["instance"], []).append(row)
    both = 0
    for label, group in by_instance.items():
        optima = {row["objective"] for row in group if row["status"] == OPTIMAL}
        if not optima:
            continue
        optimum = Fraction(optima.pop()) if len(optima) == 1 else None
        if optimum is None or any(row["objective"] is not None and Fraction(row["objective"]) < optimum
                                  or row["bound"] is not None and Fraction(row["bound"]) > optimum
                                  for row in group):
            found = {row["solver"]: (row["status"], row["objective"], row["bound"]) for row in group}
            raise SystemExit(f"{label}: the solvers disagree, (status, makespan, bound) = {found}")
        both += sum(row["status"] == OPTIMAL for row in group) == len(SOLVERS)
    return both


def table(rows: list[dict]) -> str:
    groups: dict[tuple[int, int, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["N"], row["n"], row["solver"]), []).append(row)
    lines = ["| N | n | solver | closed by bounds | proven optimal | model too large | median s |",
             "|---:|---:|---|---:|---:|---:|---:|"]
    for (organizations, jobs, solver), cell in sorted(groups.items()):
        bounds = sum(row["method"] == "bounds" for row in cell)
        proven = sum(row["status"] == OPTIMAL for row in cell)
        large = sum(row["status"] == TOO_LARGE for row in cell)
        solved = [row["seconds"] for row in cell if row["status"] != TOO_LARGE]
        median = f"{statistics.median(solved):.2f}" if solved else "-"
        lines.append(f"| {organizations} | {jobs} | {solver} | {bounds}/{len(cell)} | {proven}/{len(cell)} | "
                     f"{large}/{len(cell)} | {median} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-cell", type=int, default=8, help="instances per (N, n), cycling through the variants")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--organizations", default="3,5,8", help="values of N")
    parser.add_argument("--jobs", default="10,20,30", help="values of n (cells with n < N are skipped)")
    parser.add_argument("--high", type=int, default=20, help="lengths U[1, HIGH]")
    parser.add_argument("--results", type=Path, help="JSON lines of finished solves; resumed from if present")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    instances = [item for organizations in map(int, args.organizations.split(","))
                 for jobs in map(int, args.jobs.split(",")) if jobs >= organizations
                 for item in cell_instances(organizations, jobs, args.per_cell, args.high)]
    tasks = [(label, inst, solver) for label, inst in instances for solver in SOLVERS]
    rows = resume(args.results, {(label, solver) for label, _, solver in tasks}, KEY)
    done = {KEY(row) for row in rows}
    todo = [task for task in tasks if (task[0], task[2]) not in done]
    for label, inst, solver in tqdm(todo, disable=None):
        row = solve_row(label, inst, solver, args.time_limit)
        rows.append(row)
        append_row(args.results, row)
        check_agreement(rows)  # abort at the first disagreement, not after the whole grid
    agreed = check_agreement(rows)
    text = (f"{len(tasks)} solves; CP-SAT workers: {settings.CPSAT_WORKERS}; "
            f"time limit {args.time_limit:g} s per solve; {args.per_cell} instances per cell; lengths U[1,{args.high}], "
            f"Zipf(1.4267) owners, one machine per organization; objective makespan under the local constraints.\n\n"
            f"{table(rows)}\n\nCP-SAT and MILP agree on all {agreed} instances both proved optimal.\n")
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text)


if __name__ == "__main__":
    main()
