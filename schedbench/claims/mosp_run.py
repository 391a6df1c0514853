"""``schedbench bounds mosp``: the paper's constructions, Theorem 2's
reductions and small random instances, every claim checked on them against
exact optima; violations shrunk and saved."""

from collections.abc import Iterable, Iterator
from pathlib import Path

from schedbench.claims import Tally, run_ledger, table
from schedbench.claims.mosp import CLAIMS, MospCase, smaller_instances
from schedbench.instances.mosp import (figure1, figure2, mosp_two_jobs, planted_three_partition,
                                       proven_no_three_partition, random_small, stretch_tight)
from schedbench.model.mosp import to_json

#: Theorem 2's sources: (q, B) for q = 2..4, seeds per (q, B) for yes and for no.
THEOREM2_SIZES = ((2, 36), (3, 48), (4, 60))
THEOREM2_SEEDS = 7


def theorem2_instances(seeds: int = THEOREM2_SEEDS) -> Iterator:
    """Reductions of planted yes-instances and solver-proven no-instances:
    ``seeds`` of each per q in 2..4 (21 of each)."""
    for q, bound in THEOREM2_SIZES:
        for seed in range(seeds):
            yield mosp_two_jobs(planted_three_partition(q, bound, seed))[0]
            yield mosp_two_jobs(proven_no_three_partition(q, bound, seed))[0]


def instances(count: int, seed: int) -> Iterator:
    """Constructions (Fig. 1 with both local objectives and Fig. 2 for N = 2..8,
    the tight Stretch instance for N = 2..6), Theorem 2's reductions, then
    ``count`` random instances of 2-5 organizations with 1-6 jobs of
    length 1..9 each: cmax and sum_ci, with and without selfishness, in
    turn; one in three gives organizations 1-2 machines, the rest one."""
    for n in range(2, 9):
        yield figure1(n, "cmax")
        yield figure1(n, "sum_ci")
        yield figure2(n)
    for n in range(2, 7):
        yield stretch_tight(n)
    yield from theorem2_instances()
    for index in range(count):
        yield random_small(seed * 1_000_003 + index, organizations=(2, 5),
                           machines=(1, 2) if index % 3 == 2 else (1, 1), jobs=(1, 6), length=(1, 9),
                           local_objective=("cmax", "sum_ci")[index % 2], selfish=bool(index // 2 % 2))


def case(instance, solver: str = "cpsat", time_limit: float = 20.0) -> MospCase:
    """One instance with its schedules and optima computed on first use, as every claim here takes it."""
    return MospCase(instance, solver, time_limit)


def run(items: Iterable, solver: str = "cpsat", time_limit: float = 20.0, out_dir: Path | None = None,
        progress=None) -> list[Tally]:
    return run_ledger(CLAIMS, items, lambda inst: case(inst, solver, time_limit),
                      smaller_instances, to_json, out_dir, progress)


#: The ledger as printed: the common table (workflow adds its own rows).
report = table
