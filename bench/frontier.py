"""The exact frontier: how large an instance each exact backend proves.

    python -m bench.frontier [--instances 10] [--first-seed 0] [--time-limit 10]
        [--workers 2] [--line NAME ...] [--results bench/logs/frontier.jsonl] [--out docs/results/frontier.md]

Each line of ``bench/frontiers.toml`` (a generator, its fixed parameters,
an objective, a variant's options) grows one parameter step by step. At
each step ``--instances`` seeded instances are solved by CP-SAT and by the
MILP (or by the one backend a line names); a backend stops growing once fewer than half of a step's
instances are proven (optimal or infeasible, under the engine's rule: a
checkable bound, or a refutation a second method repeats). The table
gives, per line, step and backend, the mean jobs and machines, the share
proven and the median time; the summary, per line, the largest mean size
with at least 90% proven, backends side by side. Every schedule is
validated, and two backends that both prove an instance must agree (a
disagreement is printed and counted). Resumable with ``--results``: a
rerun with the same ``--time-limit`` reuses every finished solve (of seeds
up to the run's last seed; a run of some ``--line`` keeps the others' rows).
Choices of model and parameters are made on training seeds
(``--first-seed 10``), apart from the table's 0 to 9. A line may name its
backends (``backends``), MOSP's ``cpsat+milp`` among them: it runs CP-SAT
and CBC side by side, so its lines are measured with ``--workers 1``.
"""

import argparse
import statistics
import time
import tomllib
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from schedbench import families
from schedbench.solvers.mosp import RACE
from schedbench.harness.experiment import InstanceSpec, build_instance
from bench.optimality_stress import BACKENDS, settled, disagreement, solve_once
from bench.results_log import append_row, resume, write_generated

LINES = Path(__file__).with_name("frontiers.toml")
PROVEN_ENOUGH = 0.9   # the frontier: the largest step with this share proven
GIVE_UP = 0.5         # a backend stops growing below this share
#: The summary table's header, up to its explanations (``bench.frontier_compare`` finds the table by it).
SUMMARY_HEADER = "| line | backend | largest mean jobs with >= 90% proven"


def lines(path: Path = LINES) -> list[dict]:
    """The frontier lines, in file order."""
    return tomllib.loads(path.read_text())["line"]


def params_at(line: dict, step: int) -> dict:
    """The generator's parameters at ``step``: the fixed ones and the grown one."""
    return {**line["params"], line["grow"]: line["steps"][step]}


def seed_at(step: int, index: int) -> int:
    """The generator seed of the index-th instance of a step (steps never share one)."""
    return 1000 * step + index


def instance(line: dict, step: int, seed: int):
    """The seed-th instance of ``line`` at ``step`` (the same for every backend)."""
    return build_instance(InstanceSpec("", line["generator"], params_at(line, step), seed_at(step, seed)))


def solve_task(task: tuple[dict, int, int, str, float, int]) -> dict:
    """One backend on one instance of a step (CP-SAT on ``cpsat_workers``
    threads): the answer and the instance's size."""
    line, step, seed, backend, limit, cpsat_workers = task
    inst = instance(line, step, seed)
    size = families.size(inst)
    answer = solve_once(inst, line["objective"], backend, limit, line.get("options"),
                        name=f"{line['name']} step {step} seed {seed}", cpsat_workers=cpsat_workers)
    return {"line": line["name"], "step": step, "seed": seed, "backend": backend, "time_limit": limit,
            "cpsat_workers": cpsat_workers, "family": inst.family, "jobs": size.jobs, "machines": size.machines,
            **answer}


def _cell(row: dict) -> tuple:
    """One solve of a run: line, step, seed, backend."""
    return row["line"], row["step"], row["seed"], row["backend"]


def _key(row: dict) -> tuple:
    """One solve across runs: its cell, time limit, solves at a time and CP-SAT
    threads (logs written before they were recorded: 2 and 1, as their tables were run)."""
    return *_cell(row), row["time_limit"], row.get("workers", 2), row.get("cpsat_workers", 1)


def run(chosen: list[dict], count: int, limit: float, workers: int, results: Path | None,
        kept: list[dict] | None = None, first_seed: int = 0, cpsat_workers: int = 1) -> list[dict]:
    """Every line grown by each of its backends until that one gives up, on
    seeds ``first_seed`` to ``first_seed + count - 1`` of each step.
    Rows of earlier runs with the same time limit and threads are reused;
    the results file keeps those of ``kept`` (default: the chosen lines), of
    every backend, of every seed up to the run's last, so a run of one line
    or backend does not drop the others', nor a training run (``first_seed``
    10) the table's seeds 0 to 9."""
    seeds = range(first_seed, first_seed + count)
    wanted = {(line["name"], step, seed, backend, limit, workers, cpsat_workers) for line in kept or chosen
              for backend in every_backend()
              for step in range(len(line["steps"])) for seed in range(first_seed + count)}
    rows = resume(results, wanted, key=_key)
    names = {line["name"] for line in chosen}
    done = {_cell(row): row for row in rows if row["line"] in names and row["seed"] in seeds}
    with Pool(workers) as pool:
        for line in chosen:
            for backend in _backends(line):
                for step in range(len(line["steps"])):
                    todo = [(line, step, seed, backend, limit, cpsat_workers) for seed in seeds
                            if (line["name"], step, seed, backend) not in done]
                    for row in tqdm(pool.imap_unordered(solve_task, todo), total=len(todo), disable=None,
                                    desc=f"{line['name']} {backend} step {step}"):
                        row["workers"] = workers
                        done[_cell(row)] = row
                        append_row(results, row)
                    answers = [done[line["name"], step, seed, backend] for seed in seeds]
                    if sum(settled(a) for a in answers if a["status"] != "refused") < GIVE_UP * count:
                        break
    return list(done.values())


def every_backend() -> set[str]:
    """Every backend some family takes: what a line or ``--backend`` may name."""
    return {backend for family in families.names() for backend in families.backends(family)}


def _backends(line: dict) -> tuple[str, ...]:
    """The line's backends: both unless it names one (a formulation only one backend has)."""
    return tuple(line.get("backends", BACKENDS))


def disagreements(rows: list[dict]) -> list[str]:
    """Instances two backends both answered in contradiction (must be none)."""
    by_instance: dict[tuple, dict] = {}
    for row in rows:
        entry = by_instance.setdefault((row["line"], row["step"], row["seed"]), {"family": row["family"]})
        entry[row["backend"]] = row
    out = []
    for (name, step, seed), entry in sorted(by_instance.items()):
        backends = tuple(b for b in entry if b != "family")
        if len(backends) > 1:
            why = disagreement(entry, backends)
            if why:
                out.append(f"{name} step {step} seed {seed}: {why}")
    return out


def table(chosen: list[dict], rows: list[dict], count: int) -> str:
    """The frontier summary and, below it, every step measured."""
    cells: dict[tuple, list[dict]] = {}
    for row in rows:
        cells.setdefault((row["line"], row["backend"], row["step"]), []).append(row)
    summary = [f"{SUMMARY_HEADER} (>=: the line's last step) | last step measured (mean jobs, proven) |",
               "|---|---|---:|---|"]
    detail = ["| line | backend | step | mean jobs | mean machines | proven | median s |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for line in chosen:
        backends = sorted({b for (name, b, _) in cells if name == line["name"]})
        for backend in backends:
            frontier, last = "-", "-"
            for step in range(len(line["steps"])):
                group = cells.get((line["name"], backend, step))
                if not group or len(group) < count:
                    continue
                jobs = statistics.fmean(r["jobs"] for r in group)
                proven = sum(settled(r) for r in group if r["status"] != "refused")
                seconds = [r["seconds"] for r in group if "seconds" in r]
                median = f"{statistics.median(seconds):.2f}" if seconds else "refused"
                detail.append(f"| {line['name']} | {backend} | {line['steps'][step]} | {jobs:.1f} "
                              f"| {statistics.fmean(r['machines'] for r in group):.1f} | {proven}/{count} | {median} |")
                if proven >= PROVEN_ENOUGH * count:
                    frontier = f"{jobs:.1f}"
                    if step == len(line["steps"]) - 1:  # the line ran out of steps before the backend gave up
                        frontier = f">= {frontier}"
                last = f"{jobs:.1f}, {proven}/{count}"
            summary.append(f"| {line['name']} | {backend} | {frontier} | {last} |")
    return "\n".join(summary) + "\n\nEvery step measured:\n\n" + "\n".join(detail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=10, help="instances per step")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per solve")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seeds of each step start here (the docs' table: 0; training runs: 10 and up)")
    parser.add_argument("--workers", type=int, default=2, help="solves at a time")
    parser.add_argument("--cpsat-workers", type=int, default=1,
                        help="CP-SAT threads in each solve (2 with --workers 1: one solve at a time, "
                             "as a user runs it)")
    parser.add_argument("--line", action="append", help="only this line (repeatable; default: all)")
    parser.add_argument("--backend", action="append",
                        help="these backends on every chosen line (repeatable; default: each line's own)")
    parser.add_argument("--lines", type=Path, default=LINES,
                        help="the lines' file (default: bench/frontiers.toml; bench/frontier_shapes.toml: the "
                             "held-out shape families)")
    parser.add_argument("--results", type=Path, help="JSON lines of finished solves; resumed from if present")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    every = lines(args.lines)
    unknown = set(args.line or ()) - {line["name"] for line in every}
    if unknown:
        parser.error(f"--line: unknown {sorted(unknown)} (known: {', '.join(line['name'] for line in every)})")
    chosen = [dict(line, backends=args.backend) if args.backend else line
              for line in every if not args.line or line["name"] in args.line]
    if args.first_seed < 0:
        parser.error(f"--first-seed: must be >= 0, got {args.first_seed}")
    if min(args.workers, args.cpsat_workers) < 1:
        parser.error(f"--workers and --cpsat-workers: must be >= 1, got {args.workers} and {args.cpsat_workers}")
    known = every_backend()
    if set(args.backend or ()) - known:
        parser.error(f"--backend: unknown {sorted(set(args.backend) - known)} (known: {', '.join(sorted(known))})")
    began = time.perf_counter()
    rows = run(chosen, args.instances, args.time_limit, args.workers, args.results, kept=every,
               first_seed=args.first_seed, cpsat_workers=args.cpsat_workers)
    wrong = disagreements(rows)
    for why in wrong:
        print("DISAGREEMENT", why)
    header = _header(args, chosen, len(wrong), time.perf_counter() - began)
    text = f"{header}\n\n{table(chosen, rows, args.instances)}\n"
    print(text, end="")
    if args.out:
        chosen_lines = "".join(f" --line '{name}'" for name in args.line or ())
        first = f" --first-seed {args.first_seed}" if args.first_seed else ""
        other = f" --lines {args.lines.relative_to(Path.cwd()) if args.lines.is_absolute() else args.lines}" \
            if args.lines != LINES else ""
        threads = f" --workers {args.workers}" + (f" --cpsat-workers {args.cpsat_workers}" if args.cpsat_workers != 1
                                                   else "")
        backends = "".join(f" --backend {name}" for name in args.backend or ())
        write_generated(args.out, f"python -m bench.frontier --instances {args.instances}{first}{other} "
                                  f"--time-limit {args.time_limit:g}{threads}{chosen_lines}{backends} --results FILE",
                        text)


def _header(args: argparse.Namespace, chosen: list[dict], wrong: int, seconds: float) -> str:
    """The table's first line: what was run, on how many threads, and the disagreements."""
    seeds = f"seeds {args.first_seed} to {args.first_seed + args.instances - 1}"
    threads = f"{args.cpsat_workers} CP-SAT thread{'s' if args.cpsat_workers > 1 else ''}"
    if any(RACE in _backends(line) for line in chosen):
        threads += " (cpsat+milp: one, beside CBC)"
    solves = f"{args.workers} solve{'s' if args.workers > 1 else ''} at a time"
    return (f"{args.instances} instances per step ({seeds}), {args.time_limit:g} s per solve, {solves} x {threads}, "
            f"{seconds:.0f} s wall (this run); disagreements between backends: {wrong}")


if __name__ == "__main__":
    main()
