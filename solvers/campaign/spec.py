"""What a campaign model must encode, independent of the backend.

Both backends build the same mathematical model from a ``CampaignSpec``:
start times s_j, the campaign completions C_i = max_j (s_j + p_j) (exact,
not just >=, because the next submission t_{i+1} = C_i + think_time depends
on it), s_j >= t_i, at most m jobs at a time, plus optional limits
``Δ_i <= delta_limit`` and ``F_u <= flow_limit`` (used by the exact ratio
search) and the optional objective ``sum-user-flow``.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from math import prod

from schedbench.solvers.exact.hints import ordered_within

#: Work (2^users sets x campaigns^2) up to which the sum-user-flow bound
#: enumerates the order users finish in (at most hundredths of a second).
ORDER_WORK = 200_000
#: Choices of a campaign per user (or none) up to which the models get a
#: redundant constraint for each (``CampaignSpec.finish_bounds``).
FINISH_SETS = 512


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
        return self._submissions[u][i]

    @cached_property
    def _submissions(self) -> list[list[int]]:
        """``earliest_submission`` of every campaign, per user (the finish bounds ask for each many times)."""
        out = []
        for user, lower in zip(self.instance.users, self.campaign_lower):
            row = [user.release]
            for k in range(1, len(user.campaigns)):
                row.append(row[-1] + lower[k - 1] + user.campaigns[k].think_time)
            out.append(row)
        return out

    @cached_property
    def sum_flow_lower_bound(self) -> int:
        """A valid lower bound on sum_u F_u (F_u = C_u - flow_offset(u)).

        Whatever the schedule, the users finish in some order, and the k-th
        to finish ends after every job of the first k: its completion is at
        least ``finish_bound`` of that set of users. The least sum over the
        orders is a dynamic program over the sets of users that finish
        first (up to ``ORDER_WORK``; beyond, the order-free bound: each
        user's own chain, or the users' works done shortest first). On ten
        of the frontier's 3-user instances of 30-35 jobs it raises the bound
        by 1 to 8, two fifths of the gap to the best schedule CP-SAT finds
        in 20 s."""
        inst = self.instance
        offsets = [self.flow_offset(u) for u in range(inst.n_users)]
        campaigns = sum(len(user.campaigns) for user in inst.users)
        if (1 << inst.n_users) * campaigns ** 2 > ORDER_WORK:
            per_user = sum(sum(row) for row in self.campaign_lower)
            works = sorted(sum(inst.lengths[j] for j in inst.user_slice(u)) for u in range(inst.n_users))
            prefix, by_work = 0, 0
            for work in works:
                prefix += work
                by_work += -(-prefix // inst.machines)
            return max(per_user, by_work - sum(offsets))
        least = {0: 0}  # set of users finished first (a bit mask) -> least sum of their flows
        for mask in range(1, 1 << inst.n_users):
            users = [u for u in range(inst.n_users) if mask >> u & 1]
            finish = self.finish_bound({u: len(inst.users[u].campaigns) - 1 for u in users})
            least[mask] = min(least[mask & ~(1 << u)] + finish - offsets[u] for u in users)
        return least[(1 << inst.n_users) - 1]

    def finish_bounds(self) -> Iterator[tuple[dict[int, int], int]]:
        """(``ends``, ``finish_bound(ends)``) for every choice of a campaign of
        each of two users or more (of each user, a campaign or none), when
        there are at most ``FINISH_SETS`` choices: the models' redundant
        constraints "the last of these campaigns ends at the bound or later"
        (with them CP-SAT proves 9 of 10 training instances of 32 jobs
        within 10 s, where it proved 1)."""
        inst = self.instance
        choices = [range(-1, len(user.campaigns)) for user in inst.users]  # -1: none of the user's
        if prod(map(len, choices)) > FINISH_SETS:
            return
        for chosen in product(*choices):
            ends = {u: i for u, i in enumerate(chosen) if i >= 0}
            if len(ends) > 1:
                yield ends, self.finish_bound(ends)

    def finish_bound(self, ends: dict[int, int]) -> int:
        """No schedule completes campaigns 0..``ends[u]`` of each user u before
        this: each user's own chain of campaign bounds; and, for each of
        those campaigns, the work of the campaigns submitted no earlier than
        it (at r, the earliest submission) with no less still to come after
        them up to the user's chosen campaign (q, the later campaigns'
        bounds and think times) runs between r and the end minus q on m
        machines: r + q + ceil(W / m)."""
        campaigns = []  # (earliest submission, what must follow it, work)
        chain = 0
        for u, last in ends.items():
            user = self.instance.users[u]
            chain = max(chain, self.earliest_submission(u, last) + self.campaign_lower[u][last])
            after = 0
            for i in range(last, -1, -1):
                campaigns.append((self.earliest_submission(u, i), after, user.campaigns[i].work))
                after += self.campaign_lower[u][i] + user.campaigns[i].think_time
        campaigns.sort(key=lambda c: -c[1])  # most still to come first: each prefix a set with tail >= q
        best = chain
        for r, _, _ in campaigns:
            work = 0
            for submitted, q, w in campaigns:
                if submitted >= r:
                    work += w
                    best = max(best, r + q + -(-work // self.instance.machines))
        return best

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
