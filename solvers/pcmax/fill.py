"""The P||Cmax engine's search for a schedule of makespan at most C: subset
sums, the best two-machine split, the pairwise improvement of a schedule
and the fill search (``fill_to``) that fills machines to exactly C with
ejection chains. Part of the engine (``solvers.pcmax``), not a paper's
heuristic.
"""

import math
import random
import time
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import chain
from operator import itemgetter

from sortedcontainers import SortedList

def subset_sums(lengths: Sequence[int]) -> list[int]:
    """Subset-sum dynamic programming with bitsets as Python integers:
    ``reach[k]`` has bit s set when some subset of the first k jobs sums to s."""
    reach = [1]
    for p in lengths:
        reach.append(reach[-1] | (reach[-1] << p))
    return reach


def subset_with_sum(reach: list[int], lengths: Sequence[int], target: int) -> list[int]:
    """The indexes of a subset summing to ``target`` (reachable in ``reach``)."""
    side, rest = [], target
    for j in range(len(lengths) - 1, -1, -1):
        if not (reach[j] >> rest) & 1:  # rest not reachable without job j: take it
            side.append(j)
            rest -= lengths[j]
    return side


def best_split(lengths: Sequence[int]) -> tuple[list[int], int]:
    """Optimal 2-machine split of ``lengths``: the indexes of one side and its
    sum, the side's sum being the largest one <= half the total."""
    reach = subset_sums(lengths)
    below = reach[-1] & ((1 << (sum(lengths) // 2 + 1)) - 1)
    target = below.bit_length() - 1
    return subset_with_sum(reach, lengths, target), target


#: Largest subset-sum table (jobs x total length, in bits) a re-partition builds:
#: its time and memory grow with it, and trace-sized machines would need gigabytes.
SPLIT_CELLS = 50_000_000


def _per_machine(lengths: Sequence[int], machine_of: Sequence[int], machines: int) -> tuple[list[list[int]], list[int]]:
    """Each machine's jobs and load."""
    jobs: list[list[int]] = [[] for _ in range(machines)]
    loads = [0] * machines
    for j, (q, p) in enumerate(zip(machine_of, lengths)):
        jobs[q].append(j)
        loads[q] += p
    return jobs, loads


def improve(lengths: Sequence[int], machine_of: Sequence[int], machines: int, rounds: int | None = None,
            deadline: float = math.inf) -> list[int]:
    """Pairwise re-partition local search: the most loaded machine and another
    one (least loaded first) split their jobs optimally between them
    (subset-sum DP, skipped past ``SPLIT_CELLS``) whenever that lowers the
    larger of the two loads; stops at a local optimum, after ``rounds``
    moves (default 20 m) or at ``deadline`` (``time.monotonic()``). Trying
    only the few least loaded partners is faster and measurably worse (a
    higher makespan on 60 of 100 Lawrinenko class 6-7 instances)."""
    machine_of = list(machine_of)
    jobs, loads = _per_machine(lengths, machine_of, machines)
    for _ in range(rounds or 20 * machines):
        top = max(range(machines), key=loads.__getitem__)
        for q in sorted(range(machines), key=loads.__getitem__):
            if loads[q] >= loads[top] - 1 or time.monotonic() > deadline:
                return machine_of  # no pair with top can lower it (a local optimum), or no time left
            pool = jobs[top] + jobs[q]
            total = loads[top] + loads[q]
            if len(pool) * total > SPLIT_CELLS:
                continue
            side, low = best_split([lengths[j] for j in pool])
            if total - low < loads[top]:
                chosen = {pool[k] for k in side}
                jobs[q] = [j for j in pool if j in chosen]
                jobs[top] = [j for j in pool if j not in chosen]
                for j in jobs[q]:
                    machine_of[j] = q
                for j in jobs[top]:
                    machine_of[j] = top
                loads[q], loads[top] = low, total - low
                break
        else:
            break
    return machine_of


def fill_to(lengths: Sequence[int], machine_of: Sequence[int], machines: int, capacity: int,
            deadline: float = math.inf, seed: int = 0, partners: int = 16,
            patience: int | None = None) -> tuple[list[int] | None, bool, list[int]]:
    """A schedule with every load <= ``capacity``, searched from ``machine_of``,
    or None; whether any group was re-split or any excess ejected (a
    repeat with another seed can only help then); and the assignment it
    stopped at (where a later try can go on from). Where the lower bound is the optimum, this is the schedule the
    bound needs (machines filled to C exactly, planted instances, Lawrinenko
    classes 6-7), and makespan local search rarely reaches it.

    Each step takes a machine above C at random and up to ``partners``
    machines drawn at random, least loaded first, and re-splits the two
    machines' jobs by subset-sum DP, the split drawn at random among the
    good ones: both within C when a split allows it, else one of them
    exactly at C (the excess moves to the other, no larger than before: a
    plateau move that changes which jobs are together). When no pair
    allows either, three machines are re-split, then four, all within C.
    Before those, an ejection chain (``eject``) is tried.
    Stops when every load fits, at ``deadline`` (``time.monotonic()``), or
    after ``patience`` (default 20 m + 200) steps without a smaller total excess. Seeded: the same
    inputs give the same answer unless the deadline cuts it."""
    search = _FillSearch(lengths, machine_of, machines, capacity, random.Random(seed))
    moved_any = search.run(deadline, partners, 20 * machines + 200 if patience is None else patience)
    return (None if search.over else search.machine_of), moved_any, search.machine_of


class _FillSearch:
    """The state of one ``fill_to`` search: the assignment, each machine's
    jobs and load, and the indexes the steps draw from (the machines above
    C, those below C and their jobs by length), kept up to date by
    ``settle`` at every change."""

    def __init__(self, lengths: Sequence[int], machine_of: Sequence[int], machines: int, capacity: int,
                 rng: random.Random) -> None:
        self.lengths, self.machines, self.capacity, self.rng = lengths, machines, capacity, rng
        self.machine_of = list(machine_of)
        self.jobs, self.loads = _per_machine(lengths, self.machine_of, machines)
        self.over: list[int] = []          # the machines above C, in any order
        self.where: dict[int, int] = {}    # machine -> its index in ``over``
        self.under: dict[int, None] = {}   # the machines below C (a dict: its order, and so the draws, is the changes')
        self.receivers = SortedList()      # (length, job) of every job on a machine below C
        self.by_length = sorted(range(len(lengths)), key=lengths.__getitem__)
        self.sorted_lengths = [lengths[j] for j in self.by_length]
        for q in range(machines):
            self.mark(q)
        self.excess = sum(self.loads[q] - capacity for q in self.over)

    def run(self, deadline: float, partners: int, patience: int) -> bool:
        """The steps of ``fill_to`` until every load fits, the deadline or
        ``patience`` steps without a smaller excess; whether any moved jobs."""
        rng, loads, machines = self.rng, self.loads, self.machines
        best, stale = self.excess, 0
        moved_any = False
        while self.over and stale < patience and time.monotonic() < deadline:
            a = self.over[rng.randrange(len(self.over))]
            others = sorted((q for q in rng.sample(range(machines), min(partners + 1, machines)) if q != a),
                            key=loads.__getitem__)[:partners]
            groups = chain(((a, b) for b in others), ((a, b, c) for b, c in zip(others, others[1:])),
                           ((a, b, c, d) for b, c, d in zip(others, others[1:], others[2:])))
            moved_any = self.eject(a, deadline) or any(self.resplit(group) for group in groups) or moved_any
            best, stale = (self.excess, 0) if self.excess < best else (best, stale + 1)
        return moved_any

    def mark(self, q: int) -> None:
        """Keep ``over`` to the machines above C (O(1) per change), and
        ``under`` and ``receivers`` to those below (O(jobs log n)), for a
        machine whose jobs ``settle`` just changed (or at the start)."""
        load, capacity, where = self.loads[q], self.capacity, self.where
        if load < capacity:
            self.under[q] = None
            lengths = self.lengths
            self.receivers.update((lengths[j], j) for j in self.jobs[q])
        if load > capacity and q not in where:
            where[q] = len(self.over)
            self.over.append(q)
        elif load <= capacity and q in where:
            over = self.over
            i, last = where.pop(q), over.pop()
            if last != q:
                over[i], where[last] = last, i

    def settle(self, q: int, side: list[int]) -> None:
        """Machine ``q`` holds the jobs ``side`` now; the excess and ``mark`` follow."""
        lengths, loads, capacity, machine_of = self.lengths, self.loads, self.capacity, self.machine_of
        if self.under.pop(q, 0) is None:  # it was below C: its jobs leave ``receivers``, ``mark`` lists the new ones
            receivers = self.receivers
            for j in self.jobs[q]:
                receivers.remove((lengths[j], j))
        self.excess -= max(loads[q] - capacity, 0)
        self.jobs[q], loads[q] = side, sum(lengths[j] for j in side)
        self.excess += max(loads[q] - capacity, 0)
        for j in side:
            machine_of[j] = q
        self.mark(q)

    def sides_of(self, pool: list[int], total: int, parts: int) -> list[list[int]] | None:
        """``_split`` of ``pool``, unless its subset-sum table passes ``SPLIT_CELLS``."""
        if total * len(pool) > SPLIT_CELLS:
            return None
        return _split(pool, self.lengths, total, parts, self.capacity, self.rng)

    def resplit(self, group: tuple[int, ...]) -> bool:
        """Share the group's jobs out again (see ``fill_to``); False when no split qualifies."""
        jobs, loads = self.jobs, self.loads
        sides = self.sides_of([j for q in group for j in jobs[q]], sum(loads[q] for q in group), len(group))
        if sides is None:
            return False
        self.rng.shuffle(sides)
        for q, side in zip(group, sides):
            self.settle(q, side)
        return True

    def jobs_between(self, low: int, high: int) -> list[int]:
        """The jobs of length in [low, high]."""
        sorted_lengths = self.sorted_lengths
        return self.by_length[bisect_left(sorted_lengths, low):bisect_right(sorted_lengths, high)]

    def swap(self, x: int, y: int) -> None:
        """Jobs ``x`` and ``y`` trade machines."""
        u, v = self.machine_of[x], self.machine_of[y]
        self.settle(u, [j for j in self.jobs[u] if j != x] + [y])
        self.settle(v, [j for j in self.jobs[v] if j != y] + [x])

    def eject(self, a: int, deadline: float) -> bool:
        """An ejection chain that takes part of ``a``'s excess e to a machine
        with room: ``a`` swaps a job x for a job of length x - d (d <= e) on
        a machine at C, which then passes d on the same way, until a machine
        of the chain can swap with a machine below C, which takes t <= its
        room (breadth first, so the chain is a shortest one, and there the
        swap that takes most of d); the excess falls by min(t, d). Where
        every machine must be full (planted instances) the last units of
        excess and of room sit on a few machines each, too little room on
        any one of them for a pair re-split, and a chain through the full
        machines mostly finds one. A machine of the chain may also re-split
        its jobs with a machine below C that has room for all of d. False
        when no chain is found among ``EJECT_REACH`` machines, or at the
        deadline."""
        if not self.under:
            return False
        # machine -> (machine before it, job it gets, job it gives, the excess it passes on)
        loads, capacity = self.loads, self.capacity
        came: dict[int, tuple[int, int, int, int]] = {a: (a, -1, -1, loads[a] - capacity)}
        queue = [a]
        below = list(self.receivers)  # unchanged until the chain is applied: plain bisection
        most_room = capacity - min(loads[q] for q in self.under)
        for k, u in enumerate(queue):
            if k & 63 == 63 and time.monotonic() > deadline:
                return False
            best = self.best_swap(u, came[u], below, most_room)
            if best[0]:
                self.follow(came, a, u)
                self.swap(best[1], best[2])
                return True
            if self.rng.random() < EJECT_RESPLITS / self.machines and self.resplit_chain_end(came, a, u):
                return True
            self.extend_chain(came, queue, a, u)
        return False

    def best_swap(self, u: int, link: tuple[int, int, int, int], below: list[tuple[int, int]],
                  most_room: int) -> tuple:
        """(min(t, d), x, y): the swap of ``u``'s job x (not the one it got
        on the chain) with a job y below C that takes most of the excess d
        ``u`` passes on, or (0,) when none takes any."""
        _, _, given, d = link
        best: tuple = (0,)
        for x in self.jobs[u]:
            if x != given:
                best = max(best, self.receiver(x, d, below, most_room), key=itemgetter(0))
                if best[0] == d:
                    break
        return best

    def receiver(self, x: int, d: int, below: list[tuple[int, int]],
                 most_room: int) -> tuple[int, int, int] | tuple[int]:
        """(min(t, d), x, y) for the job y below C that ``x`` takes most of
        d to (t = length x - length y, within y's machine's room), or (0,):
        first the lengths y <= x - d, longest first (all of d, if the
        room allows; ``EJECT_SCAN`` of them), then the longer ones up to
        x - 1, shortest first (the first that fits is the largest t)."""
        lengths = self.lengths
        p = lengths[x]
        low, high = bisect_left(below, (p - most_room, -1)), bisect_left(below, (p, -1))
        if low == high:
            return (0,)
        loads, machine_of, capacity = self.loads, self.machine_of, self.capacity
        at = bisect_right(below, (p - d, len(lengths)), low, high)
        for k in range(at - 1, max(low, at - EJECT_SCAN) - 1, -1):
            y = below[k][1]
            if loads[machine_of[y]] + p - lengths[y] <= capacity:
                return d, x, y
        for k in range(at, high):
            y = below[k][1]
            if loads[machine_of[y]] + p - lengths[y] <= capacity:
                return p - lengths[y], x, y
        return (0,)

    def follow(self, came: dict[int, tuple[int, int, int, int]], a: int, u: int) -> None:
        """The chain's swaps from ``a`` to ``u``."""
        while u != a:
            u, x_in, y_out, _ = came[u]
            self.swap(x_in, y_out)

    def resplit_chain_end(self, came: dict[int, tuple[int, int, int, int]], a: int, u: int) -> bool:
        """A pair re-split of what ``u`` holds at the chain's end (C + d)
        with a machine below C that has room for all of d, drawn among them;
        then the chain to ``u`` is applied. False when none splits."""
        jobs, loads, capacity, sides_of = self.jobs, self.loads, self.capacity, self.sides_of
        _, got, given, d = came[u]
        ending = [j for j in jobs[u] if j != given] + ([got] if u != a else [])
        held = loads[u] + (d if u != a else 0)
        roomy = [b for b in self.under if capacity - loads[b] >= d]
        for b in self.rng.sample(roomy, min(EJECT_PAIRS, len(roomy))):
            sides = sides_of(ending + jobs[b], held + loads[b], 2)
            if sides is not None:
                self.follow(came, a, u)
                self.settle(u, sides[0])
                self.settle(b, sides[1])
                return True
        return False

    def extend_chain(self, came: dict[int, tuple[int, int, int, int]], queue: list[int], a: int, u: int) -> None:
        """Queue the machines at C that can take d from ``u``: a job y of
        length x - d for ``u``'s job x (from ``a``, any length x - e .. x - 1)."""
        lengths, loads, machine_of, capacity = self.lengths, self.loads, self.machine_of, self.capacity
        _, _, given, d = came[u]
        for x in self.jobs[u]:
            if x == given:
                continue
            for y in self.jobs_between(lengths[x] - d, lengths[x] - (1 if u == a else d)):
                v = machine_of[y]
                if v not in came and loads[v] == capacity and len(came) < EJECT_REACH:
                    came[v] = (u, x, y, d if u != a else lengths[x] - lengths[y])
                    queue.append(v)


#: Machines an ejection chain of ``fill_to`` searches through, at most.
EJECT_REACH = 5_000
#: Jobs below C looked at per job of a chain, at most, for each of its two scans.
EJECT_SCAN = 32
#: Machines of a chain that try a pair re-split with machines below C, on
#: average (each with probability EJECT_RESPLITS / m, drawn, so that a chain
#: asked again from the same state tries other ones: in the first 300
#: machines of each search instead, 2 of 8 planted instances of 8,000 jobs
#: on 2,000 machines stalled at an excess of one or two), and with how many
#: of the machines below C with room for it, drawn at random.
EJECT_RESPLITS = 600
EJECT_PAIRS = 16


def _split(pool: list[int], lengths: Sequence[int], total: int, parts: int, capacity: int,
           rng: random.Random) -> list[list[int]] | None:
    """``pool`` in ``parts`` sides, drawn at random: all within ``capacity``,
    or (two parts whose total passes 2 C) one side exactly at it."""
    sizes = [lengths[j] for j in pool]
    reach = subset_sums(sizes)
    low = max(total - (parts - 1) * capacity, 0)
    if low > capacity:
        if parts > 2:
            return None
        low = capacity  # the plateau move: one side exactly C
    window = (reach[-1] >> low) & ((1 << (capacity - low + 1)) - 1)
    for _ in range(4 if parts > 2 else 1):  # a few first sides, each with its own rest
        if not window:
            return None
        offset = rng.randrange(window.bit_length())  # the lowest good split at or above a random offset
        above = window >> offset
        target = low + offset + (above & -above).bit_length() - 1
        chosen = set(subset_with_sum(reach, sizes, target))
        side = [pool[k] for k in chosen]
        rest = [pool[k] for k in range(len(pool)) if k not in chosen]
        others = _split(rest, lengths, total - target, parts - 1, capacity, rng) if parts > 2 else [rest]
        if others is not None:
            return [side, *others]
        window &= ~(1 << (target - low))
    return None
