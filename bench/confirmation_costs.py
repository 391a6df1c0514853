"""Where campaign sum-user-flow loses its proofs: the search, or the confirmation.

    python -m bench.confirmation_costs [--log bench/logs/frontier_shapes.jsonl]
        [--lines bench/frontier_shapes.toml] [--time-limit 10] [--out docs/results/confirmation_costs.md]

A frontier run's log (``bench.frontier --results``) records, per solve, whether
the optimum CP-SAT claimed stayed unconfirmed: no second method refuted
"a schedule better than the claim" in the time left. For each such
campaign ``sum-user-flow`` solve this solves the instance again (CP-SAT,
one search worker, ``--time-limit``) and asks the claim's question to every
method that may confirm it, each alone with the whole ``--time-limit``
(in a solve they share the 30% the search leaves): the MILP and CP-SAT in
its confirming configuration (``solvers.exact.certificate.other_methods``).
For reference, CP-SAT in its primary configuration (presolve on, no hint)
is asked too; it is not an independent method (the same presolve) and is
never used as one. The table says which methods refute the claim and in
how many seconds, so that a model change can be aimed at the method that
fails.
"""

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from bench.frontier import instance, lines
from bench.results_log import rerun_command, write_generated
from schedbench.solvers import campaign
from schedbench.solvers.exact import settings
from schedbench.solvers.exact.certificate import other_methods

OBJECTIVE = "sum-user-flow"


def unconfirmed_solves(results: Path) -> list[dict]:
    """The campaign sum-user-flow CP-SAT solves whose claimed bound stayed unconfirmed."""
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["family"] == "campaign" and r["backend"] == "cpsat" and r["unconfirmed"]]


def timed(question: Callable[[float], tuple[str, object]], limit: float) -> str:
    """What ``question`` answered within ``limit`` seconds, and how fast."""
    began = time.perf_counter()
    status, _ = question(limit)
    return f"{'refuted' if status == 'infeasible' else status} in {time.perf_counter() - began:.1f} s"


def measure(line: dict, row: dict, limit: float) -> list[str]:
    """One table row: the solve again, then the question asked of each method."""
    inst = instance(line, row["step"], row["seed"])
    began = time.perf_counter()
    result = campaign.solve(inst, OBJECTIVE, "cpsat", limit)
    searched = f"{time.perf_counter() - began:.1f}"
    claim = result.details.get("unconfirmed", {}).get("bound")
    cells = [row["line"], str(row["step"]), str(row["seed"]), str(len(inst.lengths)), result.status, searched]
    if claim is None:
        return cells + ["-"] * 4
    lower_delta = campaign.lower_deltas(campaign.campaign_optima(inst, "cpsat", limit))
    better = campaign.sum_flow_below(inst, lower_delta, int(claim))

    def ask(model, seconds):
        return campaign.answer(inst, better, model, seconds)

    answers = [timed(question, limit) for _, question in other_methods(campaign.MODELS, "cpsat", ask)]
    answers.append(timed(lambda seconds: ask(campaign.MODELS["cpsat"], seconds), limit))
    return cells + [claim] + answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", type=Path, default=Path("bench/logs/frontier_shapes.jsonl"),
                        help="a frontier run's results (bench.frontier --results)")
    parser.add_argument("--lines", type=Path, default=Path("bench/frontier_shapes.toml"))
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    by_name = {line["name"]: line for line in lines(args.lines)}
    settings.use_cpsat_workers(1)
    head = ["line", "step", "seed", "jobs", "solve again", "s", "claim", "milp", "cpsat-confirm",
            "cpsat, primary configuration (not a second method)"]
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in unconfirmed_solves(args.log):
        table.append("| " + " | ".join(measure(by_name[row["line"]], row, args.time_limit)) + " |")
        print(table[-1], flush=True)
    text = (f"Campaign {OBJECTIVE} solves of `{args.log.as_posix()}` whose CP-SAT claim stayed "
            f"unconfirmed, solved again ({args.time_limit:g} s, one CP-SAT worker) and the claim's "
            f"question (a schedule better than the claim) asked of each method alone with "
            f"{args.time_limit:g} s:\n\n" + "\n".join(table) + "\n")
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text)


if __name__ == "__main__":
    main()
