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
already completed in V too. Tags and virtual times are exact rationals:
gmpy2's ``mpq``, the same values as ``Fraction`` at a tenth of the cost
(OStrich took 55 ms a FAIRCAMP Fig. 4 workload with ``Fraction``, 25 ms
with ``mpq``); the periods it records read as plain ``Fraction``.

The real schedule is the non-delay priority list scheduler: a free machine
takes the next job (inner order, LPT by default) of the campaign with the
smallest tag among those already started in V, so no campaign starts before
its virtual start (``s_i >= s~_i``, and starts are integers).

V uses every machine while some campaign is active in it and none while
none is: ``busy_periods`` records those real-time intervals, which the
claims ledger needs for Lemma 1 (R's idle area against V's), and
``user_periods`` the intervals each user is active in V (k~(t), which
Lemma 2's k reads).
"""

import copy
from fractions import Fraction
from heapq import heappop, heappush
from math import ceil, inf

from gmpy2 import mpq

from schedbench.heuristics.priority_list import run_priority_list
from schedbench.schedule import Schedule


class VirtualFairShare:
    """The fair-share schedule V as a policy of the priority list scheduler."""

    def __init__(self, instance):
        self.instance = instance
        self.clock = mpq(0)           # virtual clock: work received per unit of machine share
        self.time = mpq(0)            # real time the clock was last advanced to
        self.active: list[tuple[mpq, int, int]] = []   # (tag, user, campaign) running in V
        self.busy = [False] * instance.n_users
        self.waiting: dict[int, int] = {}                   # user -> campaign waiting for C~_{i-1}
        self.released: list[tuple[mpq, int, int]] = []
        self._next = inf              # cached real time of the next virtual completion
        self._tick = inf              # its ceiling: all the scheduler compares
        self._busy: list[list] = []  # [start, end] real times with a campaign active in V (end inf: open)
        self._users: list[list[list]] = [[] for _ in instance.users]  # the same per user

    @property
    def busy_periods(self) -> list[list]:
        """[start, end] real times with a campaign active in V (end inf: still open)."""
        return [[_fraction(start), _fraction(end)] for start, end in self._busy]

    @property
    def user_periods(self) -> list[list[list]]:
        """The same, per user: the intervals each user is active in V."""
        return [[[_fraction(start), _fraction(end)] for start, end in row] for row in self._users]

    def next_event(self):
        """First integer time at or after the next virtual completion (changes
        only when the active set does): comparing integers spares the
        scheduler its rational comparisons (a fifth of OStrich's time on
        FAIRCAMP Fig. 4's workloads)."""
        return self._tick

    def _reschedule(self) -> None:
        if self.active:
            self._next = self.time + (self.active[0][0] - self.clock) * len(self.active)
            self._tick = int(ceil(self._next))  # an int, not gmpy2's mpz: it becomes start times
        else:
            self._next = self._tick = inf

    def _settle(self, t) -> None:
        """Advance the virtual clock to real time t."""
        if self.active:
            self.clock += mpq(t - self.time) / len(self.active)  # exact: ties decide the order
        self.time = t

    def _start(self, u: int, i: int) -> None:
        tag = self.clock + mpq(self.instance.users[u].campaigns[i].work, self.instance.machines)
        if not self.active:
            self._busy.append([self.time, inf])
        heappush(self.active, (tag, u, i))
        if not self.busy[u]:
            self._users[u].append([self.time, inf])
        self.busy[u] = True
        self.released.append((tag, u, i))
        self._reschedule()

    def fire_event(self) -> None:
        """The campaign with the smallest tag completes in V; its user's next
        campaign, if already submitted, starts in V now."""
        tag, u, _ = heappop(self.active)
        self.clock, self.time = tag, self._next
        self.busy[u] = False
        if not self.active:
            self._busy[-1][1] = self.time
        self._reschedule()
        if u in self.waiting:
            self.busy[u] = True  # the user's next campaign follows at once: one period
            self._start(u, self.waiting.pop(u))
        else:
            self._users[u][-1][1] = self.time

    def completed(self) -> "VirtualFairShare":
        """A copy of V run to its end (no campaign is submitted after R's
        last job starts, so only V's completions are left)."""
        done = copy.deepcopy(self, {id(self.instance): self.instance})
        while done.active:
            done.fire_event()
        return done

    def submitted(self, t: int, u: int, i: int) -> None:
        self._settle(t)
        if self.busy[u]:
            self.waiting[u] = i
        else:
            self._start(u, i)


def _fraction(value):
    """An mpq time as a ``Fraction`` of Python ints (inf stays inf), read
    only when a period is (converting each as it was recorded cost OStrich
    a tenth of its time)."""
    return value if value == inf else Fraction(int(value.numerator), int(value.denominator))


def ostrich(instance, inner: str = "lpt") -> Schedule:
    """Event-driven OStrich; ``inner`` orders the jobs inside a campaign
    (``lpt``, ``spt`` or ``list``)."""
    return ostrich_with_virtual(instance, inner)[0]


def ostrich_with_virtual(instance, inner: str = "lpt") -> tuple[Schedule, VirtualFairShare]:
    """OStrich's real schedule R and its virtual schedule V as it stood when R's last job started."""
    virtual = VirtualFairShare(instance)
    return run_priority_list(instance, virtual, inner), virtual
