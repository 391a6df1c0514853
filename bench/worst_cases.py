"""The worst-case search measured: tight bounds it must reach, and the
ledgers' claims it must push harder than random sampling.

    python -m bench.worst_cases [--calibration] [--ledgers [--families F ...]] [--budget 30]
        [--seeds 5] [--workers 2] [--results bench/logs/worst_cases.jsonl] [--out FILE] [--instances DIR]

``--calibration``: ``worst lpt --family pcmax --machines M`` for M = 2..5
must reach 4/3 - 1/(3M) (Graham's bound, tight) and ``worst list`` for
M = 2..4 must reach 2 - 1/M, each within 120 s; the row gives the ratio
reached and when, for each strategy (``anneal``, ``climb``, ``random``:
how the default was chosen), the search stopping at the bound. ``--ledgers``: for every claim of every built-in ledger,
the worst observed / bound found by the search (``anneal``) and by random
sampling from the same starts (``random``), each given the same
``--budget`` seconds, on ``--seeds`` seeds: a single run's best is one
draw of a heavy-tailed maximum, so the table compares the medians over the
seeds and counts the seeds on which the search is ahead or equal. The
search's best instance is saved under ``--instances``.
"""

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial
from fractions import Fraction
from pathlib import Path

from schedbench import families
from bench.results_log import append_row, rerun_command, resume, write_generated
from schedbench.harness.runner import map_unordered
from schedbench.claim_files import claim_score, claim_start
from schedbench.search import STRATEGIES, Limits, search
from schedbench.worst import worst

#: (heuristic, machines) -> the tight bound the search must reach.
CALIBRATION = {**{("lpt", m): Fraction(4, 3) - Fraction(1, 3 * m) for m in (2, 3, 4, 5)},
               **{("list", m): 2 - Fraction(1, m) for m in (2, 3, 4)}}
CALIBRATION_BUDGET = 120.0
#: The ledgers: the default search against the baseline.
LEDGER_STRATEGIES = ("anneal", "random")
LEDGER_LIMITS = Limits(None, 10, 9)


def calibration_row(heuristic: str, machines: int, strategy: str) -> dict:
    """``schedbench worst``'s limits and 5 s solves, stopped at the tight bound, no shrinking."""
    target = CALIBRATION[heuristic, machines]
    began = time.monotonic()
    found = worst(heuristic, "pcmax", limits=Limits((machines, machines)), strategy=strategy,
                  budget=CALIBRATION_BUDGET, stop_at=target, shrink=False)
    reached = next((t for e, t, r in found.trajectory if Fraction(r) >= target), None)
    return {"kind": "calibration", "heuristic": heuristic, "machines": machines, "strategy": strategy,
            "target": str(target), "ratio": None if found.scored is None else str(found.scored.ratio),
            "reached_after_s": reached, "evaluated": found.evaluated,
            "seconds": round(time.monotonic() - began, 1), "instance": found.data}


def ledger_row(family: str, key: str, strategy: str, seed: int, budget: float) -> dict:
    ledger = families.ledger(family)
    claim = next(c for c in ledger.CLAIMS if c.key == key)
    row = {"kind": "ledger", "family": family, "claim": key, "source": claim.source, "strategy": strategy,
           "seed": seed, "budget": budget, "worst": None, "evaluated": 0, "skipped": 0, "data": None}
    start = claim_start(family, claim, LEDGER_LIMITS)
    if start is None:
        return {**row, "reached": False}
    score = claim_score(claim, lambda inst: ledger.case(inst, "cpsat", 5.0))
    found = search(start, score, families.size, LEDGER_LIMITS, seed=seed, strategy=strategy,
                   budget=budget, shrink_result=False)
    return {**row, "reached": True, "worst": None if found.scored is None else str(found.scored.ratio),
            "evaluated": found.evaluated, "skipped": found.skipped, "data": found.data}


def save_worst(rows: list[dict], folder: Path) -> None:
    """The search's worst instance of each claim over its seeds, named in the table."""
    best: dict = {}
    for r in sorted((r for r in rows if r["kind"] == "ledger"), key=lambda r: r["seed"]):  # ties: the lowest seed
        if r["strategy"] == "anneal" and r["worst"] is not None:
            if r["claim"] not in best or Fraction(r["worst"]) > Fraction(best[r["claim"]]["worst"]):
                best[r["claim"]] = r
    folder.mkdir(parents=True, exist_ok=True)
    for key, r in best.items():
        (folder / f"worst-{key}.json").write_text(json.dumps(
            {**r["data"], "name": f"worst-{key}", "meta": {"worst_of": key, "ratio": r["worst"], "seed": r["seed"]}},
            indent=1) + "\n")


def _median(rows: list[dict]) -> Fraction | None:
    """The median over seeds of each run's worst observed / bound (the lower middle: exact)."""
    values = sorted(Fraction(r["worst"]) for r in rows if r["worst"] is not None)
    return statistics.median_low(values) if values else None


def _reached(row: dict | None) -> str:
    if row is None:
        return "-"
    if row["reached_after_s"] is None:
        return f"no ({row['ratio'] or '-'}, {row['evaluated']})"
    return f"{row['reached_after_s']:.1f} s ({row['evaluated']})"


def _shown(value: Fraction | None) -> str:
    return "-" if value is None else f"{float(value):.4f}"


def table(rows: list[dict], saved: bool = True, workers: int = 1) -> str:
    """``saved``: the search's instances were saved (the table names them)."""
    parts = []
    calibration: dict = {}
    for r in rows:
        if r["kind"] == "calibration":
            calibration.setdefault((r["heuristic"], r["machines"]), {})[r["strategy"]] = r
    if calibration:
        shown = [x for x in STRATEGIES if any(x in by for by in calibration.values())]
        lines = ["| heuristic | M | tight bound | " + " | ".join(f"{x}: reached after" for x in shown) + " |",
                 "|---|---:|---:|" + "---:|" * len(shown)]
        for (heuristic, machines), by in sorted(calibration.items()):
            target = next(iter(by.values()))["target"]
            lines.append(f"| {heuristic} | {machines} | {target} | "
                         + " | ".join(_reached(by.get(x)) for x in shown) + " |")
        parts.append(f"Calibration on bounds known to be tight (P||Cmax, `schedbench worst`'s limits and time limit, each "
                     f"strategy stopped at the bound or after {CALIBRATION_BUDGET:g} s; in brackets, the proven "
                     f"instances until then; \"no\": the best ratio found in the time):\n\n" + "\n".join(lines))
    ledger: dict = {}
    for r in rows:
        if r["kind"] == "ledger":
            ledger.setdefault((r["family"], r["claim"]), {}).setdefault(r["strategy"], {})[r["seed"]] = r
    if ledger:
        lines = ["| family | claim | whose | worst observed/bound, median: search | random | search >= random "
                 "| seeds search >= random | best of the search | proven per run: search | random | instance |",
                 "|---|---|---|---:|---:|---|---:|---:|---:|---:|---|"]
        for (family, key), by in sorted(ledger.items()):
            a, b = by.get("anneal", {}), by.get("random", {})
            seeds = sorted(set(a) & set(b))
            if not seeds:
                continue
            if not a[seeds[0]].get("reached", True):
                lines.append(f"| {family} | {key} | {a[seeds[0]]['source']} | not searched | not searched | - | - | - "
                             f"| - | - | - |")
                continue
            mine, theirs = _median([a[s] for s in seeds]), _median([b[s] for s in seeds])
            better = "-" if mine is None or theirs is None else ("yes" if mine >= theirs else "**no**")
            ahead = sum(a[s]["worst"] is not None and b[s]["worst"] is not None
                        and Fraction(a[s]["worst"]) >= Fraction(b[s]["worst"]) for s in seeds)
            best = max((Fraction(a[s]["worst"]) for s in seeds if a[s]["worst"] is not None), default=None)
            proven = [round(statistics.mean(x[s]["evaluated"] for s in seeds)) for x in (a, b)]
            instance = f"`worst-{key}.json`" if best is not None and saved else "-"
            lines.append(f"| {family} | {key} | {a[seeds[0]]['source']} | {_shown(mine)} | {_shown(theirs)} "
                         f"| {better} | {ahead} of {len(seeds)} | {_shown(best)} | {proven[0]} | {proven[1]} "
                         f"| {instance} |")
        first = next(r for r in rows if r["kind"] == "ledger")
        parts.append(f"The ledgers' claims, search (anneal) against random sampling from the same starts, "
                     f"{first['budget']:g} s of wall-clock time per run ({workers} run(s) at once on {os.cpu_count()} cores, CP-SAT "
                     f"with its default workers), {len({r['seed'] for r in rows if r['kind'] == 'ledger'})} seeds "
                     f"each ({LEDGER_LIMITS.max_jobs} jobs at most, values <= {LEDGER_LIMITS.max_value}; "
                     f"\"-\": no instance the claim applies to was proven; \"not searched\": no instance the search reaches "
                     f"is covered by the claim, which is about one of the papers' constructions and checked on it "
                     f"in its ledger):\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calibration", action="store_true")
    parser.add_argument("--ledgers", action="store_true")
    parser.add_argument("--budget", type=float, default=30.0, help="seconds per claim and strategy")
    parser.add_argument("--families", nargs="*", help="only these families' ledgers (default: every ledger)")
    parser.add_argument("--seeds", type=int, default=5, help="runs per claim and strategy (seeds 0..N-1)")
    parser.add_argument("--workers", type=int, default=1, help="runs at once, each in its own process")
    parser.add_argument("--results", type=Path, help="JSON lines of finished rows; resumed from if present")
    parser.add_argument("--out", type=Path, help="write the table here, headed by the command")
    parser.add_argument("--instances", type=Path, help="save the search's worst instance of each claim here")
    args = parser.parse_args()
    tasks: list[tuple] = []
    if args.calibration:
        tasks += [("calibration", h, m, strategy) for h, m in CALIBRATION for strategy in STRATEGIES]
    if args.ledgers:
        for family in args.families or families.names():
            ledger = families.ledger(family)
            tasks += [(family, claim.key, strategy, seed) for claim in (ledger.CLAIMS if ledger else ())
                      for strategy in LEDGER_STRATEGIES for seed in range(args.seeds)]
    rows = resume(args.results, set(tasks), key=task_of)
    done = {task_of(r) for r in rows}
    failed = 0
    for task, row in map_unordered(partial(run_task, budget=args.budget), [t for t in tasks if t not in done],
                                   args.workers):
        name = " ".join(map(str, task))
        if isinstance(row, str):  # one run's failure is reported; the others still count
            failed += 1
            print(f"{name} failed: {row}", file=sys.stderr)
            continue
        rows.append(row)
        append_row(args.results, row)
        print(name, row.get("ratio", row.get("worst")), file=sys.stderr)
    if args.instances:
        save_worst(rows, args.instances)
    text = table(rows, saved=args.instances is not None, workers=args.workers)
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text + "\n")
    if failed:
        sys.exit(f"{failed} run(s) failed; the same command runs them again")


def task_of(row: dict) -> tuple:
    """The task a finished row answers (the results file's key)."""
    if row["kind"] == "calibration":
        return "calibration", row["heuristic"], row["machines"], row["strategy"]
    return row["family"], row["claim"], row["strategy"], row["seed"]


def run_task(task: tuple, budget: float) -> tuple[tuple, dict | str]:
    """One calibration row or one ledger run, in a worker process; a failure
    comes back as its message."""
    try:
        if task[0] == "calibration":
            return task, calibration_row(*task[1:])
        family, key, strategy, seed = task
        return task, ledger_row(family, key, strategy, seed, budget)
    except Exception as error:  # reported by the parent, which goes on with the other runs
        return task, repr(error)


if __name__ == "__main__":
    main()
