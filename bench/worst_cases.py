"""The worst-case search measured: tight bounds it must reach, and the
ledgers' claims it must push harder than random sampling.

    python -m schedbench.bench.worst_cases [--calibration] [--ledgers [--families F ...]] [--budget 30]
        [--results run.jsonl] [--out FILE] [--instances DIR]

``--calibration``: ``worst lpt --family pcmax --machines M`` for M = 2..5
must reach 4/3 - 1/(3M) (Graham's bound, tight) and ``worst list`` for
M = 2..4 must reach 2 - 1/M, each within 120 s; the row gives the ratio
reached and when. ``--ledgers``: for every claim of every built-in ledger,
the worst observed / bound found by the search (``anneal``) and by random
sampling from the same starts (``random``), each given the same
``--budget`` seconds; the search's instance is saved under ``--instances``.
"""

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

from schedbench import families
from schedbench.bench.results_log import append_row, resume, write_generated
from schedbench.claims.user import claim_score
from schedbench.search import Limits, search
from schedbench.worst import json_start, worst

CALIBRATION = [("lpt", m, Fraction(4, 3) - Fraction(1, 3 * m)) for m in (2, 3, 4, 5)] + \
              [("list", m, 2 - Fraction(1, m)) for m in (2, 3, 4)]
CALIBRATION_BUDGET = 120.0
STRATEGIES = ("anneal", "random")
LEDGER_LIMITS = Limits(None, 10, 9)


def calibration_row(heuristic: str, machines: int, target: Fraction) -> dict:
    began = time.monotonic()
    found = worst(heuristic, "pcmax", limits=Limits((machines, machines)), budget=CALIBRATION_BUDGET)
    reached = next((t for e, t, r in found.trajectory if Fraction(r) >= target), None)
    return {"kind": "calibration", "heuristic": heuristic, "machines": machines, "target": str(target),
            "ratio": None if found.scored is None else str(found.scored.ratio), "reached_after_s": reached, "evaluated": found.evaluated,
            "seconds": round(time.monotonic() - began, 1), "instance": found.data}


def ledger_row(family: str, key: str, strategy: str, budget: float, folder: Path | None) -> dict:
    ledger = families.ledger(family)
    claim = next(c for c in ledger.CLAIMS if c.key == key)
    score = claim_score(claim, lambda inst: ledger.case(inst, "cpsat", 5.0))
    found = search(json_start(family), score, families.size, LEDGER_LIMITS, seed=0, strategy=strategy, budget=budget,
                   shrink_result=False)
    saved = None
    if folder is not None and found.data is not None and strategy == "anneal":
        folder.mkdir(parents=True, exist_ok=True)
        saved = folder / f"worst-{key}.json"
        saved.write_text(json.dumps({**found.data, "name": f"worst-{key}",
                                     "meta": {"worst_of": key, "ratio": str(found.scored.ratio)}}, indent=1) + "\n")
    return {"kind": "ledger", "family": family, "claim": key, "source": claim.source, "strategy": strategy,
            "budget": budget, "worst": None if found.scored is None else str(found.scored.ratio),
            "evaluated": found.evaluated, "skipped": found.skipped, "instance": None if saved is None else saved.name}


def _worst(row: dict) -> str:
    """observed / bound, or the verdict of a yes-or-no claim."""
    if row["worst"] is not None:
        return f"{float(Fraction(row['worst'])):.4f}"
    return "violated" if row.get("violated") else ("held" if row["evaluated"] else "-")


def table(rows: list[dict]) -> str:
    parts = []
    calibration = [r for r in rows if r["kind"] == "calibration"]
    if calibration:
        lines = ["| heuristic | M | tight bound | reached | ratio found | first reached after | proven instances |",
                 "|---|---:|---:|---|---:|---:|---:|"]
        for r in sorted(calibration, key=lambda r: (r["heuristic"], r["machines"])):
            hit = r["ratio"] is not None and Fraction(r["ratio"]) >= Fraction(r["target"])
            after = "-" if r["reached_after_s"] is None else f"{r['reached_after_s']:.1f} s"
            lines.append(f"| {r['heuristic']} | {r['machines']} | {r['target']} | {'yes' if hit else 'no'} "
                         f"| {r['ratio']} | {after} | {r['evaluated']} |")
        parts.append(f"Calibration on bounds known to be tight (P||Cmax, {CALIBRATION_BUDGET:g} s each, "
                     f"`schedbench worst`'s defaults otherwise):\n\n" + "\n".join(lines))
    ledger = {}
    for r in rows:
        if r["kind"] == "ledger":
            ledger.setdefault((r["family"], r["claim"]), {})[r["strategy"]] = r
    if ledger:
        lines = ["| family | claim | whose | worst observed/bound: search | random | search >= random "
                 "| proven: search | random | instance |", "|---|---|---|---:|---:|---|---:|---:|---|"]
        for (family, key), by in sorted(ledger.items()):
            a, b = by.get("anneal"), by.get("random")
            if a is None or b is None:
                continue
            better = "-" if a["worst"] is None or b["worst"] is None else \
                ("yes" if Fraction(a["worst"]) >= Fraction(b["worst"]) else "**no**")
            lines.append(f"| {family} | {key} | {a['source']} | {_worst(a)} | {_worst(b)} | {better} "
                         f"| {a['evaluated']} | {b['evaluated']} | {'`' + a['instance'] + '`' if a['instance'] else '-'} |")
        budget = next(iter(ledger.values()))["anneal"]["budget"]
        parts.append(f"The ledgers' claims, search (anneal) against random sampling from the same starts, "
                     f"{budget:g} s each ({LEDGER_LIMITS.max_jobs} jobs at most, values <= "
                     f"{LEDGER_LIMITS.max_value}):\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calibration", action="store_true")
    parser.add_argument("--ledgers", action="store_true")
    parser.add_argument("--budget", type=float, default=30.0, help="seconds per claim and strategy")
    parser.add_argument("--families", nargs="*", help="only these families' ledgers (default: every ledger)")
    parser.add_argument("--results", type=Path, help="JSON lines of finished rows; resumed from if present")
    parser.add_argument("--out", type=Path, help="write the table here, headed by the command")
    parser.add_argument("--instances", type=Path, help="save the search's worst instance of each claim here")
    args = parser.parse_args()
    tasks = []
    if args.calibration:
        tasks += [(("calibration", h, m), lambda h=h, m=m, t=t: calibration_row(h, m, t)) for h, m, t in CALIBRATION]
    if args.ledgers:
        for family in args.families or families.names():
            ledger = families.ledger(family)
            for claim in (ledger.CLAIMS if ledger else ()):
                for strategy in STRATEGIES:
                    tasks.append(((family, claim.key, strategy), lambda f=family, k=claim.key, s=strategy:
                                  ledger_row(f, k, s, args.budget, args.instances)))
    key = lambda r: ("calibration", r["heuristic"], r["machines"]) if r["kind"] == "calibration" \
        else (r["family"], r["claim"], r["strategy"])  # noqa: E731
    rows = resume(args.results, {k for k, _ in tasks}, key=key)
    done = {key(r) for r in rows}
    for name, run in tasks:
        if name in done:
            continue
        row = run()
        rows.append(row)
        append_row(args.results, row)
        print(" ".join(map(str, name)), row.get("ratio", row.get("worst")), file=sys.stderr)
    text = table(rows)
    print(text)
    if args.out:
        write_generated(args.out, "python -m schedbench.bench.worst_cases " + " ".join(sys.argv[1:]), text + "\n")


if __name__ == "__main__":
    main()
