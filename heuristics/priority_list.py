"""The non-delay priority list scheduler shared by OStrich and FAIRCAMP's
non-delay variant.

At every integer time a free machine takes the next job of the released
campaign with the smallest priority key. A *policy* decides when a
submitted campaign is released and with which key; it may have internal
events of its own (OStrich's virtual completions), which are processed in
time order together with the submissions. Campaign i+1 is submitted when
campaign i's last job completes plus its think time.
"""

from heapq import heapify, heappop, heappush, heapreplace
from math import inf
from typing import Protocol

from schedbench.errors import UserInputError
from schedbench.schedule import Schedule

ORDERS = ("lpt", "spt", "list")


def job_order(jobs, inner: str) -> list[int]:
    """The order a campaign's jobs are taken in (the inner algorithm's list)."""
    if inner == "lpt":
        return sorted(range(len(jobs)), key=jobs.__getitem__, reverse=True)
    if inner == "spt":
        return sorted(range(len(jobs)), key=jobs.__getitem__)
    if inner == "list":
        return list(range(len(jobs)))
    raise UserInputError("--inner", f"this heuristic orders jobs by one of {', '.join(ORDERS)}, not {inner!r}")


class Policy(Protocol):
    released: list  # (key, user, campaign) appended by the policy, drained by the scheduler

    def submitted(self, time: int, user: int, campaign: int) -> None: ...
    def next_event(self): ...           # first integer time at or after the next internal event, or inf
    def fire_event(self) -> None: ...


def run_priority_list(instance, policy: Policy, inner: str) -> Schedule:
    """The non-delay schedule (see the module's docstring) of the campaigns
    ``policy`` releases, each campaign's jobs in the order ``inner`` gives."""
    job_order((), inner)  # reject a bad inner order before any work
    return _PriorityList(instance, policy, inner).run()


class _PriorityList:
    """One run of the scheduler: the submissions to come, by time, and the
    released campaigns, by key, each with its next job and its completion
    so far."""

    def __init__(self, instance, policy: Policy, inner: str) -> None:
        self.instance, self.policy, self.inner = instance, policy, inner
        self.submissions = [(user.release, u, 0) for u, user in enumerate(instance.users)]
        heapify(self.submissions)
        self.ready: list = []  # [key, user, campaign, order, position, base, jobs, completion]

    def run(self) -> Schedule:
        """At each time a machine is free, the next job of the first ready
        campaign; the scheduler waits for the next event when none is ready."""
        m = self.instance.machines
        n = len(self.instance.lengths)
        machine, start = [0] * n, [0] * n
        heap = list(range(m))  # free_time * m + q
        ready = self.ready
        remaining = n
        now = 0
        tick = self.next_tick()
        while remaining:
            key = heap[0]
            if key // m > now:
                now = key // m
            if now >= tick:
                self.advance(now)
                tick = self.next_tick()
            if not ready:
                if tick == inf:
                    raise AssertionError("jobs remain but no event is pending")
                now = tick
                continue
            entry = ready[0]
            order, position, base, jobs = entry[3], entry[4], entry[5], entry[6]
            local = order[position]
            end = now + jobs[local]
            q = key % m
            machine[base + local] = q
            start[base + local] = now
            heapreplace(heap, end * m + q)
            remaining -= 1
            if end > entry[7]:
                entry[7] = end
            entry[4] = position + 1
            if position + 1 == len(order):
                tick = min(tick, self.finish_campaign(entry))
        return Schedule(tuple(machine), tuple(start))

    def next_tick(self) -> float:
        """The time of the next submission or policy event (inf when none is left)."""
        return min(self.submissions[0][0] if self.submissions else inf, self.policy.next_event())

    def advance(self, now: int) -> None:
        """Events and submissions up to ``now``, in time order (an event
        before a submission at the same time). Only integer times are
        compared: for integers t, event <= t iff ceil(event) <= t."""
        policy, submissions, users = self.policy, self.submissions, self.instance.users
        while True:
            sub = submissions[0][0] if submissions else inf
            event = policy.next_event()
            if min(sub, event) > now:
                break
            if event <= sub:
                policy.fire_event()
            else:
                policy.submitted(*heappop(submissions))
        for key, u, i in policy.released:
            jobs = users[u].campaigns[i].jobs
            heappush(self.ready, [key, u, i, job_order(jobs, self.inner), 0, self.instance.offsets[u][i], jobs, 0])
        policy.released.clear()

    def finish_campaign(self, entry: list) -> float:
        """The campaign of ``entry`` has all its jobs placed: it leaves the
        ready ones and its user's next campaign is submitted at its
        completion plus its think time; that time, or inf for the user's last."""
        heappop(self.ready)
        u, i = entry[1], entry[2]
        campaigns = self.instance.users[u].campaigns
        if i + 1 == len(campaigns):
            return inf
        submitted = entry[7] + campaigns[i + 1].think_time
        heappush(self.submissions, (submitted, u, i + 1))
        return submitted
