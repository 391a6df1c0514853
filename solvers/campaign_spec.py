"""What a campaign model must encode, independent of the backend.

Both backends build the same mathematical model from a ``CampaignSpec``:
start times s_j, the campaign completions C_i = max_j (s_j + p_j) (exact,
not just >=, because the next submission t_{i+1} = C_i + think_time depends
on it), s_j >= t_i, at most m jobs at a time, plus optional limits
``Δ_i <= delta_limit`` and ``F_u <= flow_limit`` (used by the exact ratio
search) and the optional objective ``sum-user-flow``.
"""

from dataclasses import dataclass
from functools import cached_property

from schedbench.solvers.hints import ordered_within


@dataclass(frozen=True)
class CampaignSpec:
    instance: object
    campaign_lower: tuple[tuple[int, ...], ...]   # valid lower bound on Δ_i (campaign alone, optimal)
    objective: str | None = None                  # "sum-user-flow" or None (feasibility)
    flow_limit: tuple[int | None, ...] | None = None
    delta_limit: tuple[tuple[int | None, ...], ...] | None = None
    hint: tuple[int, ...] | None = None           # start times of a known schedule
    cutoff: int | None = None                     # objective <= cutoff (a known schedule's value)
    formulation: str = "default"

    @cached_property
    def horizon(self) -> int:
        """No optimal schedule needs to run past this time.

        A period in which every machine is idle, no user is thinking and no
        release is pending can be cut out of any schedule without raising
        any Δ_i (later campaigns move left with their submissions), so some
        optimal schedule ends by max release + total work + total think time.
        """
        inst = self.instance
        think = sum(c.think_time for u in inst.users for c in u.campaigns[1:])
        return max(u.release for u in inst.users) + sum(inst.lengths) + think

    def latest_end(self, u: int) -> int:
        """Latest completion of user u's last campaign in any schedule the
        model must consider: the horizon, tightened by the user's limits and
        by the objective cutoff (other users' flows are at least their
        lower bounds)."""
        inst = self.instance
        latest = self.horizon
        offset = self.flow_offset(u)
        if self.flow_limit is not None and self.flow_limit[u] is not None:
            latest = min(latest, self.flow_limit[u] + offset)
        if self.delta_limit is not None and None not in self.delta_limit[u]:
            latest = min(latest, offset + sum(self.delta_limit[u]))
        if self.cutoff is not None:
            others = sum(sum(self.campaign_lower[v]) for v in range(inst.n_users) if v != u)
            latest = min(latest, self.cutoff - others + offset)
        return latest

    def latest_completion(self, u: int, i: int) -> int:
        """Latest C_i: later campaigns still need their lower bounds and think times."""
        user = self.instance.users[u]
        later = sum(self.campaign_lower[u][k] + user.campaigns[k].think_time
                    for k in range(i + 1, len(user.campaigns)))
        return self.latest_end(u) - later

    def earliest_submission(self, u: int, i: int) -> int:
        """Lower bound on t_i: release plus the previous campaigns' lower bounds and think times."""
        user = self.instance.users[u]
        return user.release + sum(self.campaign_lower[u][k] + user.campaigns[k + 1].think_time for k in range(i))

    def sum_flow_lower_bound(self) -> int:
        """A valid lower bound on sum_u F_u.

        Each F_u is at least the sum of its campaigns' lower bounds; and
        whichever k users finish first, all their work is done by the k-th
        completion, so the k-th smallest completion is at least the k
        smallest user works divided by m (C_u = F_u + flow_offset(u))."""
        inst = self.instance
        per_user = sum(sum(row) for row in self.campaign_lower)
        works = sorted(sum(inst.lengths[j] for j in inst.user_slice(u)) for u in range(inst.n_users))
        prefix, by_work = 0, 0
        for work in works:
            prefix += work
            by_work += -(-prefix // inst.machines)
        by_work -= sum(self.flow_offset(u) for u in range(inst.n_users))
        return max(per_user, by_work)

    def start_windows(self):
        """(job, user, campaign, earliest start, latest start) of every job, in
        flat order: between the campaign's earliest submission and its latest
        completion minus the job's length."""
        inst = self.instance
        for u, user in enumerate(inst.users):
            for i in range(len(user.campaigns)):
                earliest, latest = self.earliest_submission(u, i), self.latest_completion(u, i)
                for j in inst.campaign_slice(u, i):
                    yield j, u, i, earliest, latest - inst.lengths[j]

    def trivially_infeasible(self) -> bool:
        """Some campaign cannot fit between its earliest submission and its
        latest completion (then the domains of a model would be empty)."""
        return any(self.earliest_submission(u, i) + self.campaign_lower[u][i] > self.latest_completion(u, i)
                   for u, user in enumerate(self.instance.users) for i in range(len(user.campaigns)))

    def flow_offset(self, u: int) -> int:
        """F_u = C_last - flow_offset(u): release plus the think times."""
        user = self.instance.users[u]
        return user.release + sum(c.think_time for c in user.campaigns[1:])

    def equal_length_pairs(self):
        """Consecutive jobs of one campaign with equal length: interchangeable,
        so their starts can be ordered (symmetry breaking); in job order."""
        for groups in equal_length_groups(self.instance):
            yield from sorted((pair for group in groups for pair in zip(group, group[1:])), key=lambda p: p[1])


def equal_length_groups(instance):
    """Per campaign, its jobs (flat indexes, increasing) grouped by length."""
    for u, user in enumerate(instance.users):
        for i, camp in enumerate(user.campaigns):
            by_length: dict[int, list[int]] = {}
            for j, p in enumerate(camp.jobs):
                by_length.setdefault(p, []).append(instance.offsets[u][i] + j)
            yield list(by_length.values())


def ordered_twins(instance, starts) -> tuple[int, ...]:
    """``starts`` as a hint of the models: each campaign's equal-length jobs
    started in index order (``equal_length_pairs``)."""
    return tuple(ordered_within(starts, [group for groups in equal_length_groups(instance) for group in groups]))
