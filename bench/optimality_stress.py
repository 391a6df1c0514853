"""Optimality stress: every instance solved twice, by CP-SAT and by the MILP.

    python -m bench.optimality_stress [--instances 1000] [--time-limit 10] [--workers 2]
        [--family mosp ...] [--results bench/logs/optimality_stress.jsonl] [--out docs/results/optimality_stress.md]

Per family, ``--instances`` random instances at the sizes the exact solvers
reach in about 10 s (MOSP with and without selfishness, both local
objectives, up to about 50 jobs; campaigns up to 45 jobs and every
multi-user objective; workflows; DSSP; knapsack; P||Cmax; 3-PARTITION).
Both answers are validated; a disagreement is two optima that differ, or
an optimum beyond the other backend's certified bound, and must never
happen. It also prints how often an optimum needed a confirmed refutation
(``proof`` of two methods, not a bound formula) and the confirmation's
median cost. Resumable: with ``--results`` each finished instance is a
JSON line, and a rerun solves only the missing ones. ``--out`` writes the
table as Markdown for the docs.
"""

import argparse
import statistics
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

from tqdm import tqdm

from bench.results_log import append_row, resume, write_generated
from schedbench.errors import ModelTooLarge
from schedbench.families import violations
from schedbench.harness.runner import map_unordered
from schedbench.instances import campaign, dssp, knapsack, mosp, pcmax, workflow
from schedbench.solvers import solve
from schedbench.solvers.exact import settings
from schedbench.solvers.pcmax import clear_cache

FAMILIES = ("pcmax", "mosp", "campaign", "workflow", "dssp", "knapsack", "three_partition")
BACKENDS = ("cpsat", "milp")
MAXIMISED = ("dssp", "knapsack")


def instance(family: str, seed: int) -> tuple[object, str]:
    """The seed-th stress instance of ``family`` and the objective it is solved for."""
    if family == "pcmax":
        return pcmax.uniform(seed, jobs=20 + seed % 31, machines=3 + seed % 6, high=(100, 1000)[seed % 2]), "makespan"
    if family == "mosp":
        local = ("cmax", "sum_ci")[seed % 2]
        return mosp.random_small(seed, organizations=(4, 8), machines=(1, 2), jobs=(2, 7), length=(1, 9),
                                 local_objective=local, selfish=seed % 4 >= 2), "makespan"
    if family == "campaign":
        objective = ("max-user-stretch", "max-campaign-stretch", "sum-user-flow")[seed % 3]
        return campaign.random_small(seed, users=(2, 4), campaigns=(1, 3), jobs=(2, 5), length=(1, 9),
                                     machines=(2, 4)), objective
    if family == "workflow":
        return workflow.small_workload(seed, jobs=(2, 5), tasks=(2, 5), colocate=seed % 4 != 3), "max-slr"
    if family == "dssp":
        return dssp.small_workload(seed, jobs=(4, 10)), "reward"
    if family == "knapsack":
        return knapsack.random_knapsack(seed, items=20 + seed % 41, weight=(1, 1000), profit=(1, 1000)), "profit"
    return mosp.random_three_partition(3 + seed % 3, 60 + seed % 41, seed), "decision"


def solve_twice(task: tuple[str, int, float]) -> dict:
    """Both backends on one instance: their statuses, values, bounds and proofs."""
    family, seed, limit = task
    inst, objective = instance(family, seed)
    row = {"name": f"{family}-{seed}", "family": family, "seed": seed, "objective": objective}
    for backend in BACKENDS:
        row[backend] = solve_once(inst, objective, backend, limit, name=row["name"])
    return row


def solve_once(inst, objective: str, backend: str, limit: float, options: dict | None = None, name: str = "",
               cpsat_workers: int = 1) -> dict:
    """One backend's answer, its schedule validated: status, exact value and
    bound, proof, seconds; ``{"status": "refused"}`` for a model too large.
    CP-SAT runs on ``cpsat_workers`` threads (1: solves run side by side)."""
    clear_cache()  # no backend reuses the other's P||Cmax answers (MOSP's relaxation)
    began = time.perf_counter()
    with settings.cpsat_workers(cpsat_workers):  # the solve and the references its check needs
        try:
            result = solve(inst, objective, backend, limit, **(options or {}))
        except ModelTooLarge:
            return {"status": "refused"}
        if result.schedule is not None and inst.family not in ("knapsack", "three_partition"):
            broken = violations(inst, result.schedule, objective)
            if broken:
                raise AssertionError(f"{name} {backend}: invalid schedule: {broken[0]}")
    return {"status": result.status, "value": _text(result.objective), "bound": _text(result.bound),
            "proof": list(result.proof), "seconds": time.perf_counter() - began,
            "confirmation": result.details.get("confirmation_seconds"),
            "unconfirmed": "unconfirmed" in result.details}


def _text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def disagreement(row: dict, backends: tuple[str, ...] = BACKENDS) -> str | None:
    """Why the backends' answers contradict each other, or None."""
    maximise = row["family"] in MAXIMISED
    answers = [row[b] for b in backends if row[b]["status"] != "refused"]
    optima = {a["value"] for a in answers if a["status"] == "optimal"}
    if len(optima) > 1:
        return f"two optima {sorted(optima)}"
    if any(a["status"] == "infeasible" for a in answers) and any(
            a["status"] != "infeasible" and a["value"] is not None for a in answers):
        return "one proves infeasible, the other finds a solution"
    for optimum in optima:
        for other in answers:
            if other["bound"] is None or other["status"] == "infeasible":
                continue
            bound, value = Fraction(other["bound"]), Fraction(optimum)
            if (bound < value) if maximise else (bound > value):
                return f"optimum {value} beyond a certified bound {bound}"
    return None


def settled(answer: dict) -> bool:
    """Proven: an optimum, an infeasibility, or a 3-PARTITION yes with its triples."""
    return answer["status"] in ("optimal", "infeasible") or answer.get("proof") == ["certificate"]


def table(rows: list[dict]) -> str:
    lines = ["| family | instances | proven by both | by one | disagreements | needed a confirmed refutation "
             "| unconfirmed claims | median confirmation s | median solve s (cpsat / milp) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for family in FAMILIES:
        group = [r for r in rows if r["family"] == family]
        if not group:
            continue
        answers = [r[b] for r in group for b in BACKENDS if r[b]["status"] != "refused"]
        both = sum(all(settled(r[b]) for b in BACKENDS) for r in group)
        one = sum(sum(settled(r[b]) for b in BACKENDS) == 1 for r in group)
        refuted = [a for a in answers if settled(a) and len(a["proof"]) == 2]
        costs = [a["confirmation"] for a in answers if a["confirmation"] is not None]
        unconfirmed = sum(a["unconfirmed"] for a in answers)
        times = ["{:.2f}".format(statistics.median(r[b]["seconds"] for r in group if "seconds" in r[b]))
                 if any("seconds" in r[b] for r in group) else "-" for b in BACKENDS]
        lines.append(f"| {family} | {len(group)} | {both} | {one} | {sum(disagreement(r) is not None for r in group)} "
                     f"| {len(refuted)} of {sum(settled(a) for a in answers)} | {unconfirmed} "
                     f"| {statistics.median(costs) if costs else 0:.3f} | {' / '.join(times)} |")
    return "\n".join(lines)


def tasks(families: list[str], count: int, limit: float) -> Iterator[tuple[str, int, float]]:
    for seed in range(count):
        for family in families:
            yield family, seed, limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=1000, help="instances per family")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per solve")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--family", action="append", choices=FAMILIES, help="only these families (repeatable)")
    parser.add_argument("--results", type=Path, help="JSON lines of finished instances; resumed from if present")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    wanted = list(tasks(args.family or list(FAMILIES), args.instances, args.time_limit))
    rows = resume(args.results, {f"{family}-{seed}" for family, seed, _ in wanted})
    done = {row["name"] for row in rows}
    todo = [task for task in wanted if f"{task[0]}-{task[1]}" not in done]
    began = time.perf_counter()
    for row in tqdm(map_unordered(solve_twice, todo, args.workers), total=len(todo), disable=None):
        rows.append(row)
        append_row(args.results, row)
    for row in rows:
        why = disagreement(row)
        if why:
            print(f"DISAGREEMENT {row['name']} ({row['objective']}): {why}")
    text = (f"{len(rows)} instances ({len(rows) - len(todo)} resumed), {args.time_limit} s per solve, "
            f"{args.workers} workers x 1 CP-SAT thread, {time.perf_counter() - began:.0f} s wall\n\n{table(rows)}\n")
    print(text, end="")
    if args.out:
        write_generated(args.out, f"python -m bench.optimality_stress --instances {args.instances} "
                                  f"--time-limit {args.time_limit} --results FILE", text)


if __name__ == "__main__":
    main()
