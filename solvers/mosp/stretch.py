"""MOSP Fig. 8's Stretch, decided with as few P||Cmax proofs as it needs.

Stretch = max_k C^(k) / C^(k)alone. Proving every C^(k)alone costs the
workload's hardest P||Cmax instances (organizations of 3 to 5 jobs a
machine with lengths U[1, 1000]: up to seconds each), while the maximum
only needs the organization that attains it. With a certified lower bound
L_k <= C^(k)alone, organization k's ratio is at most C^(k) / L_k; when the
organization with the largest such ratio has a proven C^(k)alone (its
bound met by a schedule), its ratio is the Stretch exactly: every other is
at most its upper ratio, which is at most this one. Organizations are
solved in that order until this holds, each P||Cmax answer cached for the
workload's other schedules (``solvers.pcmax.pcmax_optima``: an organization
left open is not asked again with no more time: each of the four
heuristics' schedules would spend the whole limit on it again), and the metric
checks the rule again on the bounds handed to it
(``metrics.mosp.decided_stretch``).
"""

import time
from fractions import Fraction
from functools import lru_cache

from schedbench.heuristics.pcmax import lpt
from schedbench.metrics.pcmax.bounds import lower_bound
from schedbench.schedule import Schedule
from schedbench.solvers.pcmax import derived_cache, pcmax_optima
from schedbench.validator.mosp import local_makespans

Bounds = tuple[int, int]  # (certified lower bound, makespan of a schedule) of C^(k)alone


def stretch_references(instance, schedule: Schedule, time_limit: float) -> dict:
    """{"alone_bounds": per organization (lower, upper) bounds of C^(k)alone
    (None without jobs), tight enough to decide ``schedule``'s Stretch}, or
    with ``"alone_unproven"`` saying which organization was not proven
    within ``time_limit`` seconds in all, where it decides the maximum."""
    machines, makespans = instance.machines, local_makespans(instance, schedule)
    bounds = {k: _cheap_bounds(org.jobs, machines) for k, org in enumerate(instance.organizations) if org.jobs}
    deadline, asked = time.monotonic() + time_limit, set()
    while True:
        top = max(bounds, key=lambda k: Fraction(makespans[k], bounds[k][0]))
        lower, upper = bounds[top]
        if lower == upper:
            break
        left = deadline - time.monotonic()
        if top in asked or left <= 0:
            jobs = len(instance.organizations[top].jobs)
            return {"alone_bounds": _listed(instance, bounds),
                    "alone_unproven": f"--time-limit: C_alone of organization {top} ({jobs} jobs) is not proven "
                                      f"in time (between {lower} and {upper})"}
        asked.add(top)
        found = pcmax_optima([(tuple(instance.organizations[top].jobs), machines)], "portfolio", left)[0]
        bounds[top] = (max(lower, found.bound), min(upper, found.makespan))
    return {"alone_bounds": _listed(instance, bounds)}


@derived_cache
@lru_cache(maxsize=4096)
def _cheap_bounds(jobs: tuple[int, ...], machines: int) -> Bounds:
    """The engine's certified cheap bound (L0, L1, Martello-Toth L2) and LPT's
    makespan, once per organization: the four schedules of a Fig. 8
    workload each ask every organization's."""
    _, start = lpt(jobs, [0] * machines)
    upper = max(s + p for s, p in zip(start, jobs))
    return lower_bound(jobs, machines, upper)[0], upper


def _listed(instance, bounds: dict[int, Bounds]) -> tuple[Bounds | None, ...]:
    return tuple(bounds.get(k) for k in range(instance.n_organizations))
