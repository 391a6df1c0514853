"""OStrich (OStrich paper §4): real schedule ordered by a virtual fair share.

The virtual schedule V shares the m machines evenly among the users active
in V (processor sharing). Campaign i of user u starts in V at
``s~_i = max(t_i, C~_{i-1})`` (4.2) and completes in V when it has received
its work W_i, so the priority of a campaign is its virtual completion time
(4.1). It is computed as a finish tag, as in fair queueing: V has a virtual
clock that advances at rate 1/k~(t) (k~ = users active in V), a campaign
started at s~ gets the tag ``clock(s~) + W/m`` and completes in V when the
clock reaches its tag. Active campaigns progress at the same rate, so tags
order campaigns exactly as virtual completion times do, for campaigns that
already completed in V too. Tags and virtual times are exact fractions.

The real schedule is non-delay list scheduling at integer times: a free
machine takes the next job (inner order, LPT by default) of the campaign
with the smallest tag among those already started in V, so no campaign
starts before its virtual start (``s_i >= s~_i``).
"""

from fractions import Fraction
from heapq import heapify, heappop, heappush, heapreplace
from math import ceil, inf

from schedbench.errors import UserInputError
from schedbench.schedule import Schedule

ORDERS = ("lpt", "spt", "list")


def job_order(jobs, inner: str) -> list[int]:
    if inner == "lpt":
        return sorted(range(len(jobs)), key=jobs.__getitem__, reverse=True)
    if inner == "spt":
        return sorted(range(len(jobs)), key=jobs.__getitem__)
    return list(range(len(jobs)))


class _VirtualSchedule:
    """The fair-share schedule V, advanced event by event in real time."""

    def __init__(self, instance):
        self.instance = instance
        self.clock = Fraction(0)      # virtual clock: work per machine share
        self.time = Fraction(0)       # real time the clock was last advanced to
        self.active: list[tuple[Fraction, int, int]] = []   # (tag, user, campaign)
        self.busy = [False] * instance.n_users
        self.waiting: dict[int, int] = {}                   # user -> campaign waiting for C~_{i-1}
        self.started: list[tuple[Fraction, int, int]] = []  # virtual starts since last drained

    def next_completion(self):
        if not self.active:
            return inf
        return self.time + (self.active[0][0] - self.clock) * len(self.active)

    def advance_clock(self, t) -> None:
        if self.active:
            self.clock += (t - self.time) / len(self.active)
        self.time = Fraction(t)

    def _start(self, u: int, i: int) -> None:
        camp = self.instance.users[u].campaigns[i]
        tag = self.clock + Fraction(camp.work, self.instance.machines)
        heappush(self.active, (tag, u, i))
        self.busy[u] = True
        self.started.append((tag, u, i))

    def complete_next(self) -> None:
        """Complete the campaign with the smallest tag in V."""
        t = self.next_completion()
        tag, u, _ = heappop(self.active)
        self.clock, self.time = tag, t
        self.busy[u] = False
        if u in self.waiting:
            self._start(u, self.waiting.pop(u))

    def submit(self, t: int, u: int, i: int) -> None:
        self.advance_clock(t)
        if self.busy[u]:
            self.waiting[u] = i
        else:
            self._start(u, i)


def ostrich(instance, inner: str = "lpt") -> Schedule:
    """Event-driven OStrich. ``inner`` orders the jobs inside a campaign
    (``lpt``, ``spt`` or ``list``)."""
    if inner not in ORDERS:
        raise UserInputError("--inner", f"OStrich orders jobs by one of {', '.join(ORDERS)}, not {inner!r}")
    m = instance.machines
    users = instance.users
    n = len(instance.lengths)
    machine, start = [0] * n, [0] * n
    heap = list(range(m))
    virtual = _VirtualSchedule(instance)
    submissions = [(user.release, u, 0) for u, user in enumerate(users)]
    heapify(submissions)
    eligible: list = []   # [tag, user, campaign, order, position, base, jobs, completion]

    def next_tick() -> int | float:
        """First integer time at which an event (submission, virtual completion) happens."""
        sub = submissions[0][0] if submissions else inf
        done = virtual.next_completion()
        return min(sub, ceil(done) if done != inf else inf)

    def advance(now: int) -> None:
        """Process every submission and virtual completion up to ``now``."""
        while True:
            sub = submissions[0][0] if submissions else inf
            done = virtual.next_completion()
            if min(sub, done) > now:
                break
            if done <= sub:
                virtual.complete_next()
            else:
                t, u, i = heappop(submissions)
                virtual.submit(t, u, i)
        virtual.advance_clock(now)
        for tag, u, i in virtual.started:
            jobs = users[u].campaigns[i].jobs
            heappush(eligible, [tag, u, i, job_order(jobs, inner), 0, instance.offsets[u][i], jobs, 0])
        virtual.started.clear()

    remaining = n
    now = 0
    tick = next_tick()
    while remaining:
        key = heap[0]
        if key // m > now:
            now = key // m
        if now >= tick:
            advance(now)
            tick = next_tick()
        if not eligible:
            if tick == inf:
                raise AssertionError("OStrich: jobs remain but no event is pending")
            now = tick
            continue
        entry = eligible[0]
        order, position, base, jobs = entry[3], entry[4], entry[5], entry[6]
        local = order[position]
        p = jobs[local]
        q = key % m
        j = base + local
        machine[j] = q
        start[j] = now
        heapreplace(heap, (now + p) * m + q)
        remaining -= 1
        if now + p > entry[7]:
            entry[7] = now + p
        entry[4] = position + 1
        if position + 1 == len(order):
            heappop(eligible)
            u, i = entry[1], entry[2]
            if i + 1 < len(users[u].campaigns):
                heappush(submissions, (entry[7] + users[u].campaigns[i + 1].think_time, u, i + 1))
                tick = min(tick, entry[7] + users[u].campaigns[i + 1].think_time)
    return Schedule(tuple(machine), tuple(start))
