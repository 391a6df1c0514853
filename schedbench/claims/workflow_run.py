"""``schedbench bounds workflow``: the starvation constructions, 120%
transient overloads and small random workflows; every claim checked, each
policy's max-SLR set against the exact optimum; violations of small
instances shrunk and saved."""

import statistics
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from schedbench.claims import Tally, run_ledger, table
from schedbench.claims.workflow import CLAIMS, LONE, WorkflowCase, smaller_instances
from schedbench.instances.workflow import small_workload, starvation_stream, synthetic_workload
from schedbench.model.workflow import to_json

STREAM_LENGTHS = (300, 600, 1200, 2400)
TRANSIENT_WORKLOADS, TRANSIENT_JOBS = 4, 1000


def instances(count: int, seed: int) -> Iterator:
    """The starvation streams (a lone long, short and wide job, overloads of
    300 to 2400 time units), 4 synthetic 120% transient overloads of 1,000
    jobs on the paper's platform, then ``count`` small random workflows
    (``small_workload``'s defaults) for the exact optima."""
    for lone in LONE:
        for length in STREAM_LENGTHS:
            yield starvation_stream(length, lone=lone)
    for index in range(TRANSIENT_WORKLOADS):
        yield synthetic_workload(seed * 1_000_003 + index, jobs=TRANSIENT_JOBS)
    for index in range(count):
        yield small_workload(seed * 1_000_003 + index)


def case(instance, solver: str = "cpsat", time_limit: float = 20.0) -> WorkflowCase:
    """One instance with its schedules and optima computed on first use, as every claim here takes it."""
    return WorkflowCase(instance, solver, time_limit)


def run(items: Iterable, solver: str = "cpsat", time_limit: float = 20.0, out_dir: Path | None = None,
        progress: Callable[[], object] | None = None) -> list[Tally]:
    return run_ledger(CLAIMS, items, lambda inst: case(inst, solver, time_limit), smaller_instances,
                      to_json, out_dir, progress)


def report(tallies: list[Tally]) -> str:
    """The ledger, then each policy's max-SLR / OPT over the proven small instances."""
    rows = ["| policy | instances | optimal | mean | median | 95th pct | max |", "|---|---:|---:|---:|---:|---:|---:|"]
    for t in tallies:
        if not t.claim.key.startswith("workflow.opt.") or not t.ratios:
            continue
        ratios = sorted(t.ratios)
        p95 = ratios[min(len(ratios) - 1, -(-95 * len(ratios) // 100) - 1)]
        rows.append(f"| {t.claim.key.removeprefix('workflow.opt.')} | {len(ratios)} | "
                    f"{sum(r == 1 for r in ratios) / len(ratios):.1%} | {float(statistics.mean(ratios)):.4f} | "
                    f"{float(statistics.median(ratios)):.4f} | {float(p95):.4f} | {float(ratios[-1]):.4f} |")
    return table(tallies) + "\n\nmax-SLR / OPT (exact optimum of the format's max-slr):\n\n" + "\n".join(rows)
