"""FAIRCAMP (FAIRCAMP paper §VI.C): deadlines plus earliest-deadline-first.

At its submission ``t_i`` a campaign is scheduled alone on all m machines by
the inner rule A, giving the schedule ς_i of length Δ_i(ς_i), and gets the
deadline ``d_i = max(d_{i-1}, t_i) + k Δ_i(ς_i)`` (``d_0 = 0``; with zero
release and think times ``t_i <= d_{i-1}`` whenever deadlines are met, so
this is the paper's ``d_i = k Δ_i + d_{i-1}``). Whenever the resources are
free, the ready campaign with the earliest deadline (ties: earlier
submission, lower user) has its schedule ς_i placed on them as one block,
as in the paper's scheduling module and in the proofs of Prop. 7 and
Theorem 1 (campaign l+1 starts when campaign l completes).

Blocks leave machines idle that another campaign could use, so the suite
also has ``faircamp_nondelay``: the same deadlines, but a free machine takes
the next job (in the inner order) of the released campaign with the
earliest deadline, as a non-delay list scheduler.
"""

from dataclasses import dataclass
from functools import lru_cache
from heapq import heapify, heappop, heappush
from math import inf

from schedbench.heuristics.pcmax import rule
from schedbench.heuristics.priority_list import run_priority_list
from schedbench.schedule import Schedule


@dataclass(frozen=True)
class FaircampRun:
    schedule: Schedule
    deadlines: tuple[tuple[int, ...], ...]      # d_i per user and campaign
    inner_lengths: tuple[tuple[int, ...], ...]  # Δ_i(ς_i) per user and campaign


class Deadlines:
    """FAIRCAMP's gathering module as a policy of the priority list scheduler:
    a campaign is released at its submission with key (d_i, t_i)."""

    def __init__(self, instance, inner: str):
        rule(inner)  # an unknown inner rule is refused before any work
        self.instance, self.inner = instance, inner
        self.deadlines = [[0] * len(user.campaigns) for user in instance.users]
        self.inner_lengths = [[0] * len(user.campaigns) for user in instance.users]
        self.plans: dict[tuple[int, int], list[tuple[int, ...]]] = {}  # ς_i, kept for the block run
        self.released: list = []

    def next_event(self):
        return inf

    def fire_event(self) -> None:
        raise AssertionError("FAIRCAMP has no internal events")

    def submitted(self, t: int, u: int, i: int) -> None:
        *plan, length = _alone(self.inner, self.instance.users[u].campaigns[i].jobs, self.instance.machines)
        self.plans[u, i] = plan
        previous = self.deadlines[u][i - 1] if i else 0
        self.deadlines[u][i] = max(previous, t) + self.instance.n_users * length
        self.inner_lengths[u][i] = length
        self.released.append(((self.deadlines[u][i], t), u, i))


@lru_cache(maxsize=100_000)
def _alone(inner: str, jobs: tuple[int, ...], machines: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """ς_i, the campaign alone on the m machines by the inner rule (machine
    and start of each job), and its length Δ_i(ς_i). Remembered: both
    variants, and the workloads drawn from one seed (Fig. 4's values of k),
    share their campaigns."""
    machine, start = rule(inner)(jobs, [0] * machines)
    return tuple(machine), tuple(start), max(s + p for s, p in zip(start, jobs))


def faircamp_run(instance, inner: str = "lpt") -> FaircampRun:
    """Simulate FAIRCAMP online (blocks) and keep its deadlines for the claim checks."""
    gathering = Deadlines(instance, inner)
    users = instance.users
    n = len(instance.lengths)
    machine, start = [0] * n, [0] * n
    submissions = [(user.release, u, 0) for u, user in enumerate(users)]
    heapify(submissions)
    ready: list = []
    now = 0
    while submissions or ready:
        if not ready and submissions[0][0] > now:
            now = submissions[0][0]
        while submissions and submissions[0][0] <= now:
            gathering.submitted(*heappop(submissions))
        for entry in gathering.released:
            heappush(ready, entry)
        gathering.released.clear()
        _, u, i = heappop(ready)
        qs, ss = gathering.plans.pop((u, i))
        for j, (q, s) in enumerate(zip(qs, ss), instance.offsets[u][i]):
            machine[j] = q
            start[j] = now + s
        now += gathering.inner_lengths[u][i]
        if i + 1 < len(users[u].campaigns):
            heappush(submissions, (now + users[u].campaigns[i + 1].think_time, u, i + 1))
    return FaircampRun(Schedule(tuple(machine), tuple(start)),
                       tuple(map(tuple, gathering.deadlines)), tuple(map(tuple, gathering.inner_lengths)))


def faircamp(instance, inner: str = "lpt") -> Schedule:
    """FAIRCAMP's schedule (see the module docstring)."""
    return faircamp_run(instance, inner).schedule


def faircamp_nondelay_run(instance, inner: str = "lpt") -> FaircampRun:
    policy = Deadlines(instance, inner)
    schedule = run_priority_list(instance, policy, inner)
    return FaircampRun(schedule, tuple(map(tuple, policy.deadlines)), tuple(map(tuple, policy.inner_lengths)))


def faircamp_nondelay(instance, inner: str = "lpt") -> Schedule:
    """FAIRCAMP's deadlines with non-delay earliest-deadline-first list scheduling."""
    return faircamp_nondelay_run(instance, inner).schedule
