"""``schedbench bounds campaign``: generate instances, check every claim on
them against exact optima, shrink and save violations, print the ledger."""

from collections.abc import Iterator
from pathlib import Path

from schedbench.claims import NotProven, Tally, save_counterexample, shrink
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


def run(count: int = 1000, seed: int = 0, solver: str = "cpsat", time_limit: float = 20.0,
        out_dir: Path | None = None, progress=None) -> list[Tally]:
    tallies = {claim.key: Tally(claim) for claim in CLAIMS}
    for instance in instances(count, seed):
        case = CampaignCase(instance, solver, time_limit)
        for claim in CLAIMS:
            if not claim.applies(instance):
                continue
            tally = tallies[claim.key]
            try:
                check = claim.check(case)
            except NotProven:
                tally.skipped += 1
                continue
            tally.add(check)
            if not check.holds and out_dir is not None:
                small = shrink(instance, lambda c, claim=claim: _violates(claim, c, solver, time_limit),
                               smaller_instances)
                small_check = claim.check(CampaignCase(small, solver, time_limit))
                path = save_counterexample(out_dir, claim, small, small_check, to_json)
                if str(path) not in tally.counterexamples:
                    tally.counterexamples.append(str(path))
        if progress is not None:
            progress()
    return list(tallies.values())


def _violates(claim, instance, solver, time_limit) -> bool:
    if not claim.applies(instance):
        return False
    try:
        return not claim.check(CampaignCase(instance, solver, time_limit)).holds
    except NotProven:
        return False
