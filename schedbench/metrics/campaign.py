"""Campaign metrics (SPEC.md, family ``campaign``), all exact.

``Delta_i = C_i - t_i``; ``F_u = sum_i Delta_i``; campaign stretch
``Delta_i / l_i`` with ``l_i = max(W_i / m, max_j p_ij)`` (OStrich);
user stretch ``F_u / F_u*`` with ``F_u*`` the sum of the user's per-campaign
P||Cmax optima (FAIRCAMP's D^(u)).
"""

from dataclasses import dataclass
from fractions import Fraction

from schedbench.metrics.pcmax import fractional_lower_bound
from schedbench.schedule import Schedule


@dataclass(frozen=True)
class CampaignTimes:
    submission: int   # t_i
    completion: int   # C_i
    flow: int         # Delta_i = C_i - t_i


def campaign_times(instance, schedule: Schedule) -> list[list[CampaignTimes]]:
    """Submission, completion and flow of every campaign, derived from the schedule."""
    lengths = instance.lengths
    out = []
    for u, user in enumerate(instance.users):
        row, completion = [], 0
        for i, camp in enumerate(user.campaigns):
            submitted = user.release if i == 0 else completion + camp.think_time
            completion = max(schedule.start[j] + lengths[j] for j in instance.campaign_slice(u, i))
            row.append(CampaignTimes(submitted, completion, completion - submitted))
        out.append(row)
    return out


def user_flows(instance, schedule: Schedule) -> list[int]:
    return [sum(t.flow for t in row) for row in campaign_times(instance, schedule)]


def campaign_stretches(instance, schedule: Schedule) -> list[list[Fraction]]:
    times = campaign_times(instance, schedule)
    return [[Fraction(t.flow) / fractional_lower_bound(c.jobs, instance.machines)
             for t, c in zip(row, user.campaigns)]
            for row, user in zip(times, instance.users)]


def user_stretches(instance, schedule: Schedule, optimal_flows) -> list[Fraction]:
    return [Fraction(f, star) for f, star in zip(user_flows(instance, schedule), optimal_flows)]


def objective_value(instance, schedule: Schedule, objective: str, optimal_flows=None) -> Fraction:
    """The value of one of SPEC's campaign objectives for this schedule.

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
