"""The P||Cmax engine on the Lawrinenko benchmark and on other distributions.

    python -m bench.pcmax_engine [--solver portfolio] [--time-limit 10] [--sample K] [--workers 2]
    python -m bench.pcmax_engine --generated    # U[1,1000], U[100,200], n/m 2..5, n <= 500
    python -m bench.pcmax_engine --planted      # machines full by construction, n <= 10,000
    ... --results run.jsonl    # one line per instance as it finishes; a rerun skips the ones done

Per instance class and n/m range: closed by bounds alone, proven within 1 s,
within 10 s, unsolved, median time; every proven optimum is compared with the
known one (a mismatch aborts). A second table places each unsolved instance
against its known optimum: the bound there and the schedule above it (a
schedule missing), the schedule there and the bound below it (a refutation
missing), both short, or no optimum known. Instances are solved in parallel,
one per worker, with one CP-SAT worker each.
"""

import argparse
import re
import statistics
import time
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from bench.results_log import append_row, resume, write_generated
from schedbench.instances.pcmax import planted, read_pcmax_text, uniform
from schedbench.solvers.exact import settings
from schedbench.solvers.pcmax import BACKENDS, pcmax_optimum

#: Where the public P||Cmax benchmark set is got, said when --set is missing.
SET_SOURCE = ("the folder of the public P||Cmax benchmark set of Lawrinenko (opt-known-instances-lawrinenko.txt "
              "and lawrinenko/), from the P||Cmax benchmark libraries")
PAPER = "published (their machine, commercial MIP): bounds 55.2%, arc-flow ILP 75.7% within 10 s, best B&B 67.5% within 10 s"


def _solve(task):
    settings.use_cpsat_workers(1)

    name, label, lengths, machines, solver, limit, known = task
    began = time.perf_counter()
    found = pcmax_optimum(tuple(lengths), machines, solver, limit)
    elapsed = time.perf_counter() - began
    if known is not None and (found.bound > known or found.makespan < known or
                              (found.optimal and found.makespan != known)):
        raise AssertionError(f"{name}: bound {found.bound}, makespan {found.makespan} ({found.status}) "
                             f"but the known optimum is {known}")
    return {"name": name, "label": label, "n": len(lengths), "m": machines, "optimal": found.optimal,
            "method": found.method, "makespan": found.makespan, "bound": found.bound, "known": known,
            "seconds": elapsed}


def lawrinenko_tasks(folder: Path, sample: int, solver: str, limit: float):
    known = {}
    for line in (folder / "opt-known-instances-lawrinenko.txt").read_text().splitlines():
        name, value = line.split()
        known[name] = int(value)
    files = sorted((folder / "lawrinenko").iterdir())[::sample]
    for path in files:
        inst = read_pcmax_text(path)
        klass = re.search(r"class(\d+)", path.name)
        yield (path.name, f"class{klass.group(1) if klass else '?'}", inst.jobs, inst.machines, solver, limit, known.get(path.name))


def generated_tasks(solver: str, limit: float, per_cell: int):
    for low, high in ((1, 1000), (100, 200)):
        for ratio in (2, 3, 4, 5):
            for n in (50, 100, 200, 500):
                for seed in range(per_cell):
                    inst = uniform(seed, n, max(1, n // ratio), low, high)
                    yield (f"U[{low},{high}]-n{n}-r{ratio}-s{seed}", f"U[{low},{high}]", inst.jobs, inst.machines, solver, limit, None)


PLANTED_SIZES = ((1000, 200), (2500, 300), (5000, 1000), (8000, 2000), (10000, 2000), (10000, 1000))


def planted_tasks(solver: str, limit: float, per_cell: int):
    """Planted instances (``instances.pcmax.planted``): the optimum is known by construction."""
    for high in (100, 1000, 10000):
        for n, m in PLANTED_SIZES:
            for seed in range(per_cell):
                inst = planted(seed, n, m, 1, high)
                yield (f"planted-U[1,{high}]-n{n}-m{m}-s{seed}", f"planted U[1,{high}]", inst.jobs, inst.machines,
                       solver, limit, inst.meta["optimum"])


def ratio_range(n: int, m: int) -> str:
    r = n / m
    return "n/m<=2" if r <= 2 else "2<n/m<=3" if r <= 3 else "3<n/m<=4" if r <= 4 else "n/m>4"


def by_class(rows: list[dict]) -> list[tuple[tuple[str, str], list[dict]]]:
    """``rows`` grouped by class and n/m range, in the tables' order, the group of all of them last."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["label"], ratio_range(row["n"], row["m"])), []).append(row)
        groups.setdefault(("all", "all"), []).append(row)
    return sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0]))


def table(results: list[dict]) -> str:
    """Per class and n/m range: closed by bounds alone, proven within 1 s and 10 s, unsolved, median time."""
    lines = ["| class | n/m | instances | bounds alone | proven <= 1 s | proven <= 10 s | unsolved | median s |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (label, rng), grouped in by_class(results):
        rows = [(row["optimal"], row["method"], row["seconds"]) for row in grouped]
        total = len(rows)
        bounds = sum(1 for o, m, _ in rows if o and m == "bounds")
        within1 = sum(1 for o, _, t in rows if o and t <= 1)
        within10 = sum(1 for o, _, t in rows if o and t <= 10)
        unsolved = sum(1 for o, _, _ in rows if not o)
        median = statistics.median(t for _, _, t in rows)

        def pct(x):
            return f"{x} ({100 * x / total:.1f}%)"

        lines.append(f"| {label} | {rng} | {total} | {pct(bounds)} | {pct(within1)} | {pct(within10)} | "
                     f"{pct(unsolved)} | {median:.2f} |")
    return "\n".join(lines)


#: Where an unsolved instance stands against its known optimum, in the
#: second table's column order (``unsolved_table``).
SHORT_OF_KNOWN = ("bound at it, schedule above", "schedule at it, bound below", "both short", "no known optimum")


def short_of_known(row: dict) -> str:
    """What an unsolved ``row`` misses of its known optimum (``SHORT_OF_KNOWN``)."""
    known = row.get("known")
    if known is None:
        return SHORT_OF_KNOWN[3]
    if row["bound"] >= known:
        return SHORT_OF_KNOWN[0]
    return SHORT_OF_KNOWN[1] if row["makespan"] <= known else SHORT_OF_KNOWN[2]


def unsolved_table(results: list[dict]) -> str:
    """The unsolved instances per class and n/m range, by what they miss of
    the known optimum (a row of its own only where some are unsolved)."""
    lines = ["| class | n/m | unsolved | " + " | ".join(SHORT_OF_KNOWN) + " |",
             "|---|---|---:|" + "---:|" * len(SHORT_OF_KNOWN)]
    for (label, rng), rows in by_class([row for row in results if not row["optimal"]]):
        standings = [short_of_known(row) for row in rows]
        counts = " | ".join(str(standings.count(standing)) for standing in SHORT_OF_KNOWN)
        lines.append(f"| {label} | {rng} | {len(standings)} | {counts} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, help=f"the Lawrinenko set: {SET_SOURCE}")
    parser.add_argument("--solver", default="portfolio", choices=BACKENDS)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--sample", type=int, default=1, help="every K-th Lawrinenko instance")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--generated", action="store_true", help="the other distributions instead")
    parser.add_argument("--planted", action="store_true", help="planted instances (known optima) instead")
    parser.add_argument("--per-cell", type=int, default=3, help="generated instances per (distribution, n/m, n)")
    parser.add_argument("--results", type=Path, help="JSON lines of finished instances; resumed from if present")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    if not (args.generated or args.planted) and (args.set is None or not (args.set / "lawrinenko").is_dir()):
        parser.exit(2, f"pcmax_engine: --set names {SET_SOURCE}\n")
    tasks = list(generated_tasks(args.solver, args.time_limit, args.per_cell) if args.generated else
                 planted_tasks(args.solver, args.time_limit, args.per_cell) if args.planted else
                 lawrinenko_tasks(args.set, args.sample, args.solver, args.time_limit))
    known = {task[0]: task[6] for task in tasks}
    results = [{"known": known[row["name"]], **row} for row in resume(args.results, set(known))]  # older logs lack it
    todo = [task for task in tasks if task[0] not in {row["name"] for row in results}]
    began = time.perf_counter()
    with Pool(args.workers) as pool:
        for row in tqdm(pool.imap_unordered(_solve, todo), total=len(todo), disable=None):
            results.append(row)
            append_row(args.results, row)
    text = (f"{len(tasks)} instances ({len(tasks) - len(todo)} resumed), solver {args.solver}, "
            f"{args.time_limit} s per instance, {args.workers} workers x 1 thread, "
            f"{time.perf_counter() - began:.0f} s wall\n\n{table(results)}\n")
    if not (args.generated or args.planted):
        text += f"\n{PAPER}\n"
    if any(not row["optimal"] for row in results):
        text += ("\nThe unsolved instances against their known optima (a known optimum within the bound and the "
                 f"makespan):\n\n{unsolved_table(results)}\n")
    print(text, end="")
    if args.out:
        chosen = (f"--generated --per-cell {args.per_cell}" if args.generated else
                  f"--planted --per-cell {args.per_cell}" if args.planted else f"--set SET --sample {args.sample}")
        write_generated(args.out, f"python -m bench.pcmax_engine {chosen} --solver {args.solver} "
                                  f"--time-limit {args.time_limit} --workers {args.workers}"
                                  + (" --results FILE" if args.results else ""), text)


if __name__ == "__main__":
    main()
