"""Campaign metrics (the format reference, family ``campaign``), all exact.

``Delta_i = C_i - t_i``; ``F_u = sum_i Delta_i``; campaign stretch
``Delta_i / l_i`` with ``l_i = max(W_i / m, max_j p_ij)`` (OStrich);
user stretch ``F_u / F_u*`` with ``F_u*`` the sum of the user's per-campaign
P||Cmax optima (FAIRCAMP's D^(u)).
"""

from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from schedbench.errors import NotProven
from schedbench.metrics import Bar, machine_bars
from schedbench.metrics.pcmax import fractional_lower_bound, makespan
from schedbench.metrics.pcmax.bounds import lower_bound as pcmax_lower_bound
from schedbench.schedule import Schedule


class CampaignTimes(NamedTuple):
    """A named tuple, not a dataclass: a 10^4-job workload has 10^3
    campaigns, and building them cost more than the rest of ``campaign_times``."""
    submission: int   # t_i
    completion: int   # C_i
    flow: int         # Delta_i = C_i - t_i


def campaign_times(instance, schedule: Schedule) -> list[list[CampaignTimes]]:
    """Submission, completion and flow of every campaign, derived from the
    schedule (each campaign's completion by one numpy pass over the jobs)."""
    if len(schedule) != len(instance.lengths):
        raise ValueError(f"{len(schedule)} jobs scheduled, instance has {len(instance.lengths)}")
    ends = np.array(schedule.start, dtype=np.int64) + np.array(instance.lengths, dtype=np.int64)
    firsts = [offset for row in instance.offsets for offset in row]
    completions = iter(np.maximum.reduceat(ends, firsts).tolist())
    out = []
    for user in instance.users:
        row, completion = [], 0
        for i, camp in enumerate(user.campaigns):
            submitted = user.release if i == 0 else completion + camp.think_time
            completion = next(completions)
            row.append(CampaignTimes(submitted, completion, completion - submitted))
        out.append(row)
    return out


@lru_cache(maxsize=2)
def user_flows(instance, schedule: Schedule) -> tuple[int, ...]:
    """F_u per user. Remembered for the last two schedules: a cell measures
    its schedule's objective and its metrics from the same flows (hashing
    a schedule costs a twentieth of its ``campaign_times``)."""
    return tuple(sum(t.flow for t in row) for row in campaign_times(instance, schedule))


def campaign_stretches(instance, schedule: Schedule) -> list[list[Fraction]]:
    times = campaign_times(instance, schedule)
    return [[Fraction(t.flow) / fractional_lower_bound(c.jobs, instance.machines)
             for t, c in zip(row, user.campaigns)]
            for row, user in zip(times, instance.users)]


def user_stretches(instance, schedule: Schedule, optimal_flows) -> list[Fraction]:
    return [Fraction(f, star) for f, star in zip(user_flows(instance, schedule), optimal_flows)]


def objective_value(instance, schedule: Schedule, objective: str, optimal_flows=None) -> Fraction:
    """The value of one of the format's campaign objectives for this schedule.

    ``optimal_flows`` (F_u* per user) is needed for ``max-user-stretch`` only.
    """
    if objective == "user-flow":
        if instance.n_users != 1:
            raise ValueError("user-flow is defined for one user only")
        return Fraction(user_flows(instance, schedule)[0])
    if objective == "sum-user-flow":
        return Fraction(sum(user_flows(instance, schedule)))
    if objective == "max-campaign-stretch":
        return max(s for row in campaign_stretches(instance, schedule) for s in row)
    if objective == "max-user-stretch":
        if optimal_flows is None:
            raise ValueError("max-user-stretch needs the users' optimal flows F_u*")
        return max(user_stretches(instance, schedule, optimal_flows))
    raise ValueError(f"unknown campaign objective {objective!r}")


def objective(instance, schedule: Schedule, name: str, references: dict) -> Fraction:
    """``objective_value``; max-user-stretch needs ``references["optimal_flows"]``
    (F_u*, proven upstream by ``solvers.campaign.metric_references``) and
    raises ``NotProven`` without them."""
    flows = references.get("optimal_flows")
    if name == "max-user-stretch" and flows is None:
        raise NotProven("F_u*: some campaign's P||Cmax optimum is not proven in time")
    return objective_value(instance, schedule, name, flows)


@lru_cache(maxsize=16)
def campaign_lower_bounds(instance) -> tuple[tuple[int, ...], ...]:
    """LB_i, each campaign's P||Cmax lower bound, per user. Remembered per
    instance: every algorithm measured on it asks for the same ones."""
    return tuple(tuple(pcmax_lower_bound(c.jobs, instance.machines)[0] for c in user.campaigns)
                 for user in instance.users)


def lower_bound(instance, name: str) -> Fraction | None:
    """Delta_i >= OPT_Pcmax(campaign i) >= its P||Cmax lower bound LB_i, with
    or without other users (a campaign's jobs run after its submission on
    at most m machines). So sum_i LB_i bounds the flows, max_i LB_i / l_i
    the campaign stretch, and F_u >= F_u* gives 1 for the user stretch."""
    if name == "max-user-stretch":
        return Fraction(1)
    if name == "user-flow" and instance.n_users != 1:
        return None
    bounds = [(b, c) for user, row in zip(instance.users, campaign_lower_bounds(instance))
              for b, c in zip(row, user.campaigns)]
    if name == "max-campaign-stretch":
        return max(Fraction(b) / fractional_lower_bound(c.jobs, instance.machines) for b, c in bounds)
    return Fraction(sum(b for b, _ in bounds))


def user_stretch_upper_bound(instance, schedule: Schedule) -> Fraction:
    """D_ub = max_u F_u / F_u^LB with F_u^LB the sum of the user's campaigns'
    P||Cmax lower bounds: an exact upper bound on FAIRCAMP's D^(u) = F_u / F_u*
    (Fig. 4) that needs no optimum, with the same denominator for every algorithm."""
    flows = user_flows(instance, schedule)
    return max(Fraction(flow, sum(row)) for flow, row in zip(flows, campaign_lower_bounds(instance)))


def max_stretch_by_profile(instance, schedule: Schedule) -> dict[str, Fraction] | None:
    """OStrich Fig. 2b: per user profile, the mean over its users of each
    one's largest campaign stretch. The profiles are the generator's record,
    one per user of the instance (``meta["profiles"]``); None for an
    instance that does not record them."""
    recorded = instance.meta.get("profiles")
    if not isinstance(recorded, list) or len(recorded) != instance.n_users:
        return None
    profiles: dict[str, list[Fraction]] = {}
    for profile, row in zip(recorded, campaign_stretches(instance, schedule)):
        profiles.setdefault(str(profile), []).append(max(row))
    return {name: sum(values, Fraction(0)) / len(values) for name, values in profiles.items()}


METRICS = {
    "makespan": lambda instance, schedule: makespan(instance.lengths, schedule),
    "max-user-stretch-ub": user_stretch_upper_bound,
    "sum-user-flow": lambda instance, schedule: objective_value(instance, schedule, "sum-user-flow"),
    "max-campaign-stretch": lambda instance, schedule: objective_value(instance, schedule, "max-campaign-stretch"),
    # OStrich Fig. 2: every campaign's stretch (a distribution), and the users' worst per profile
    "campaign-stretches": lambda instance, schedule: [s for row in campaign_stretches(instance, schedule) for s in row],
    "max-stretch-by-profile": max_stretch_by_profile,
}


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    owner = [u for u in range(instance.n_users) for _ in instance.user_slice(u)]
    return machine_bars(instance.lengths, schedule, lambda j: f"user {owner[j]}")
