"""``schedbench bounds campaign``: generate instances, check every claim on
them against exact optima, shrink and save violations, print the ledger."""

from collections.abc import Iterable, Iterator
from pathlib import Path

from schedbench.claims import Tally, run_ledger, table
from schedbench.claims.campaign import CLAIMS, CampaignCase, smaller_instances
from schedbench.instances.campaign import fcfs_trap, random_small, unit_campaigns
from schedbench.model.campaign import to_json


def instances(count: int, seed: int) -> Iterator:
    """The papers' constructions, then small random instances: a quarter with
    one user, the rest with 2-3 users, one in three of those with release
    and think times."""
    for k in (2, 3):
        for n in (1, 2, 3):
            for m in (1, 2, 3):
                yield unit_campaigns(k, n, m)
    for m in (1, 2):
        for gamma in (1, 2, 3):
            for p in (2, 3, 5, 8):
                yield fcfs_trap(m, gamma, p)
    for index in range(count):
        s = seed * 1_000_003 + index
        if index % 4 == 0:
            yield random_small(s, users=(1, 1), campaigns=(1, 4), jobs=(1, 5), length=(1, 9),
                               machines=(1, 4), release=(0, 3), think=(0, 3))
        elif index % 3 == 0:
            yield random_small(s, users=(2, 3), campaigns=(1, 3), jobs=(1, 3), length=(1, 8),
                               machines=(1, 3), release=(0, 6), think=(0, 4))
        else:
            yield random_small(s, users=(2, 3), campaigns=(1, 3), jobs=(1, 3), length=(1, 8), machines=(1, 3))


def case(instance, solver: str = "cpsat", time_limit: float = 20.0) -> CampaignCase:
    """One instance with its schedules and optima computed on first use, as every claim here takes it."""
    return CampaignCase(instance, solver, time_limit)


def run(items: Iterable, solver: str = "cpsat", time_limit: float = 20.0, out_dir: Path | None = None,
        progress=None) -> list[Tally]:
    return run_ledger(CLAIMS, items, lambda inst: case(inst, solver, time_limit),
                      smaller_instances, to_json, out_dir, progress)


#: The ledger as printed: the common table (workflow adds its own rows).
report = table
