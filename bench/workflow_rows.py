"""What the workflow model's energy rows cost: rows, terms and seconds per question.

    python -m bench.workflow_rows [--out docs/results/workflow_rows.md]

``solvers.workflow.energy_rows`` runs once per question of the max-SLR
bisection, outside CP-SAT's time limit, so its cost must stay well under a
second at any size. Per instance (the frontier's workflow steps, the
paper's synthetic workloads, and many identical clusters with every task
placed alone, the shape that multiplies its work) the question is the
bisection's first: max-SLR halfway between 1 and the best heuristic's;
the table gives tasks, clusters, rows, terms and the best of three
timings.
"""

import argparse
import random
import time
from pathlib import Path

from bench.frontier import instance, lines
from bench.results_log import write_generated
from schedbench.instances.workflow import synthetic_workload
from schedbench.model import parse_instance
from schedbench.solvers.workflow import deadlines_at, incumbent
from schedbench.solvers.workflow.structure import domains, eligible_clusters, energy_rows


def cases() -> list[tuple[str, object]]:
    """(label, instance) from small to large."""
    line = next(line for line in lines() if line["name"] == "workflow max-slr")
    out = [(f"frontier step {step} seed 0", instance(line, step, 0)) for step in (4, 6, 7)]
    out += [(f"synthetic, {jobs} jobs", synthetic_workload(1, jobs=jobs)) for jobs in (100, 300, 1000)]
    rng = random.Random(1)
    for clusters, jobs in ((10, 1000), (100, 2000), (200, 2000)):
        out.append((f"{clusters} identical clusters, {jobs} single tasks", parse_instance(
            {"family": "workflow", "format_version": 1, "colocate": False,
             "clusters": [{"cores": 1, "kind": "K"}] * clusters,
             "jobs": [{"arrival": rng.randint(0, 50),
                       "tasks": [{"exec": rng.randint(1, 9), "cores": 1, "kind": "K", "succ": []}]}
                      for _ in range(jobs)]})))
    return out


def measure(inst) -> tuple[int, int, float]:
    """Rows, terms and the best of three timings of one question's rows."""
    value, _, _ = incumbent(inst)
    target = (1 + value) / 2
    window = domains(inst, deadlines_at(inst, target))
    seconds = []
    for _ in range(3):
        began = time.perf_counter()
        rows = energy_rows(inst, window, eligible_clusters(inst))
        seconds.append(time.perf_counter() - began)
    return len(rows), sum(len(terms) for _, terms in rows), min(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    lines = ["| instance | tasks | clusters | rows | terms | seconds |", "|---|---:|---:|---:|---:|---:|"]
    for label, inst in cases():
        rows, terms, seconds = measure(inst)
        lines.append(f"| {label} | {len(inst.tasks)} | {len(inst.clusters)} | {rows} | {terms} | {seconds:.3f} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.out:
        write_generated(args.out, "python -m bench.workflow_rows --out FILE", text)


if __name__ == "__main__":
    main()
