"""``schedbench bounds dssp``: small §4.1-style workloads, unit and size
rewards in turn, every claim checked against exact optima; violations
shrunk and saved."""

from collections.abc import Iterable, Iterator
from pathlib import Path

from schedbench.claims import Tally, run_ledger, table
from schedbench.claims.dssp import CLAIMS, DsspCase, smaller_instances
from schedbench.instances.dssp import scaled_workload, small_workload
from schedbench.model.dssp import to_json


def instances(count: int, seed: int) -> Iterator:
    """``count`` workloads, four kinds in turn: small ones (P 2-4, D 5-9,
    demand 1-2 P D, up to 8 jobs of 1-3 stages of 1-3 tasks of length 1-6)
    with unit and with size rewards; bigger ones (P 1-3, D 6-14, 4-10 jobs,
    lengths 1-9); the §4.1 procedure scaled down 50 or 25 times (P 2 or 4,
    D 94 or 187, 5-10 stages). Kinds 3 and 4 alternate unit and size rewards."""
    for index in range(count):
        s, kind, reward = seed * 1_000_003 + index, index % 4, ("unit", "size")[index // 4 % 2]
        if kind < 2:
            yield small_workload(s, reward=("unit", "size")[kind])
        elif kind == 2:
            yield small_workload(s, processors=(1, 3), deadline=(6, 14), jobs=(4, 10), length=(1, 9), reward=reward)
        else:
            yield scaled_workload(s, (50, 25)[index // 8 % 2], reward=reward)


def case(instance, solver: str = "cpsat", time_limit: float = 20.0) -> DsspCase:
    """One instance with its schedules and optima computed on first use, as every claim here takes it."""
    return DsspCase(instance, solver, time_limit)


def run(items: Iterable, solver: str = "cpsat", time_limit: float = 20.0, out_dir: Path | None = None,
        progress=None) -> list[Tally]:
    return run_ledger(CLAIMS, items, lambda inst: case(inst, solver, time_limit), smaller_instances, to_json,
                      out_dir, progress)


#: The ledger as printed: the common table (workflow adds its own rows).
report = table
