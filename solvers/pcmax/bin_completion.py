"""Bin completion (Korf 2002, 2003) for the P||Cmax decision at one makespan.

Can the jobs be packed into ``machines`` bins of ``capacity``? The search
fills one bin at a time: the bin takes the longest job left and then one
of its *undominated completions*, the sets of other jobs that fit beside
it, tried fullest first. A bin may leave room unused only while the
total room left over, ``machines * capacity - sum(lengths)``, allows:
that budget is what makes the search fast when the bound is tight, where
each bin must be nearly full. Jobs of equal length are one value with a
count, so no two branches differ only by which of two equal jobs they take.

Dominance (Martello and Toth): a completion that leaves room for a job
still unplaced, or that holds a job a longer unplaced job could replace,
is dominated by the one with the larger job, so it is skipped. States
proved infeasible are remembered, so a permutation of bins is refuted once.

A packing it finds is a schedule at ``capacity``, checked like any other.
An exhausted search is a refutation, and refutations need a second,
independent method (``solvers.exact.certificate``): the engine records it as a
claim that the assignment search, the arc-flow MILP or CP-SAT must refute
again, and uses it to confirm theirs, in pure Python and without a model,
so none of their bugs can be shared.
"""

import time
from bisect import bisect_left
from schedbench.result import FEASIBLE, INFEASIBLE, UNKNOWN

#: States remembered as infeasible, at most (then the memory is cleared).
MEMO_SIZE = 200_000


class _OutOfBudget(Exception):
    """The node budget or the deadline ran out."""


#: Nodes (bins and completions tried) before the search gives up: on the
#: campaigns of FAIRCAMP Fig. 4 workloads a decided search took 90 nodes at
#: the median, 1,000 at the 90th percentile, 70,000 at most; where short
#: jobs make completions explode, the engine's other steps do better with
#: the time (at 5% of a 10 s limit instead, Lawrinenko's classes 1-5 lost a
#: tenth of their instances proven within 1 s).
NODE_LIMIT = 20_000


#: Verdicts already reached, by (values, their counts, machines, capacity),
#: with the nodes the search spent: a dive's branches often leave the same
#: jobs to pack, and the engine asks again at a capacity its first step
#: tried (on MOSP Fig. 8's organizations, 39% of bin completion's time was
#: searches made before). The search is deterministic, so asked with a node
#: budget above what it spent, the verdict is the search's; with no more,
#: the search would run out: unknown; an unknown the budget ended is
#: searched again only with more nodes. A search the deadline or the
#: recursion limit ended is not kept. Like the LP's patterns and the dive's
#: steps (``milp.pcmax``), the verdicts are the same whatever backend asks.
_VERDICTS: dict[tuple, tuple[str, list[list[int]] | None, int]] = {}
#: Verdicts kept, at most (then all are forgotten): some kilobytes each.
_VERDICTS_SIZE = 10_000


def forget_verdicts() -> None:
    """Forget the verdicts (the engine's ``clear_cache``)."""
    _VERDICTS.clear()


def pack(lengths: tuple[int, ...], machines: int, capacity: int, deadline: float,
         node_limit: float = NODE_LIMIT) -> tuple[str, list[int] | None]:
    """("feasible", machine of each job), or ("infeasible" | "unknown", None)
    within ``node_limit`` nodes (``math.inf``: the deadline alone), the
    verdict of a search made before where there is one (``_VERDICTS``)."""
    if not lengths:
        return FEASIBLE, []
    slack = machines * capacity - sum(lengths)
    if max(lengths) > capacity or slack < 0:
        return INFEASIBLE, None
    if time.monotonic() >= deadline:
        return UNKNOWN, None
    values = sorted(set(lengths), reverse=True)
    counts = [0] * len(values)
    index = {v: i for i, v in enumerate(values)}
    for p in lengths:
        counts[index[p]] += 1
    key = (tuple(values), tuple(counts), machines, capacity)
    status, bins, spent = _VERDICTS.get(key, (UNKNOWN, None, 0))
    if node_limit <= spent:
        return UNKNOWN, None
    if status == UNKNOWN:
        status, bins, spent = _search(values, counts, machines, slack, capacity, deadline, node_limit)
        if spent:
            if len(_VERDICTS) >= _VERDICTS_SIZE:
                _VERDICTS.clear()
            _VERDICTS[key] = status, bins, spent
    return status, None if bins is None else _machines_of(lengths, bins)


def _search(values: list[int], counts: list[int], machines: int, slack: int, capacity: int, deadline: float,
            node_limit: float) -> tuple[str, list[list[int]] | None, int]:
    """(status, the bins' lengths when packed, the nodes spent: 0 where the
    verdict is not to be kept)."""
    search = _Packer(values, capacity, deadline, node_limit)
    try:
        bins = search.fill(counts, machines, slack)
    except _OutOfBudget:
        return UNKNOWN, None, search.nodes if search.nodes >= node_limit else 0
    except RecursionError:  # one call level a machine and a job: thousands are out of its reach
        return UNKNOWN, None, 0
    return (INFEASIBLE, None, search.nodes) if bins is None else (FEASIBLE, bins, search.nodes)


def _machines_of(lengths: tuple[int, ...], bins: list[list[int]]) -> list[int]:
    """Each job's bin, from the bins' lists of lengths (equal lengths interchangeable)."""
    waiting: dict[int, list[int]] = {}
    for q, contents in enumerate(bins):
        for p in contents:
            waiting.setdefault(p, []).append(q)
    return [waiting[p].pop() for p in lengths]


class _Packer:
    def __init__(self, values: list[int], capacity: int, deadline: float, node_limit: float) -> None:
        self.values, self.capacity = values, capacity
        self.negated = [-v for v in values]  # ascending, for bisect: the first value that fits a room
        self.deadline, self.node_limit, self.nodes = deadline, node_limit, 0
        self.failed: set[tuple[tuple[int, ...], int]] = set()

    def fill(self, counts: list[int], bins: int, slack: int) -> list[list[int]] | None:
        """The bins' contents for the jobs in ``counts``, or None if they do not fit."""
        first = next((i for i, c in enumerate(counts) if c), None)
        if first is None:
            return [[] for _ in range(bins)]
        if bins == 0:
            return None
        key = (tuple(counts), bins)
        if key in self.failed:
            return None
        self._spend()
        largest = self.values[first]
        counts[first] -= 1
        room = self.capacity - largest
        for chosen, used in self._completions(counts, first, room, slack):
            for i in chosen:
                counts[i] -= 1
            rest = self.fill(counts, bins - 1, slack - (room - used))
            for i in chosen:
                counts[i] += 1
            if rest is not None:
                counts[first] += 1
                rest.append([largest] + [self.values[i] for i in chosen])
                return rest
        counts[first] += 1
        if len(self.failed) >= MEMO_SIZE:
            self.failed.clear()
        self.failed.add(key)
        return None

    def _spend(self) -> None:
        self.nodes += 1
        if self.nodes >= self.node_limit or (self.nodes & 255 == 0 and time.monotonic() > self.deadline):
            raise _OutOfBudget

    def _completions(self, counts: list[int], first: int, room: int, slack: int) -> list[tuple[list[int], int]]:
        """Undominated multisets of value indices >= ``first`` (longest
        first) that fit in ``room`` wasting at most ``slack``, fullest first.
        A plain recursion into one list: a generator chain paid every
        completion once per level. A choice that leaves less room than the
        shortest job left is a leaf, decided where it is made: most nodes
        are leaves, and a call a leaf was most of the search's time."""
        values, negated = self.values, self.negated
        tail = [0] * (len(values) + 1)  # the total length of the values from index j on
        for j in range(len(values) - 1, -1, -1):
            tail[j] = tail[j + 1] + counts[j] * values[j]
        shortest = len(values) - 1  # the last value with jobs left: the walk only takes and gives back jobs
        while shortest >= 0 and counts[shortest] == 0:
            shortest -= 1
        if shortest < 0:
            return [([], 0)] if slack >= room else []
        least, found, chosen, smallest, end = room - slack, [], [], values[shortest], len(values)

        def keep(used: int) -> None:  # called from ``least`` on only: a call is most of a leaf's cost
            if not self._dominated(counts, chosen, room - used, shortest):
                found.append((list(chosen), used))

        def walk(i: int, used: int) -> None:
            if i < end and used + values[i] > room:
                # values fall, so the ones too long for the room left come first: skipped at once (the
                # shortfall test below, true at one of them, is true at every later index: tail falls too)
                i = bisect_left(negated, used - room, i)
            for j in range(i, end):
                if used + tail[j] < least:  # even every job from j on falls short
                    return
                if counts[j] == 0:
                    continue
                self._spend()
                counts[j] -= 1
                chosen.append(j)
                taken = used + values[j]
                if taken >= least:
                    keep(taken)
                if taken + smallest <= room:
                    walk(j, taken)
                chosen.pop()
                counts[j] += 1

        try:
            if least <= 0:
                keep(0)
            if smallest <= room:
                walk(first, 0)
        finally:
            del walk  # a recursive closure is a reference cycle, garbage only the collector frees (Fig. 4: 5% of its time)
        found.sort(key=lambda c: -c[1])
        return found

    def _dominated(self, counts: list[int], chosen: list[int], left: int, shortest: int) -> bool:
        """Whether an unplaced job fits in the room left, or could replace a
        chosen job that is shorter (longer jobs come first in ``values``);
        no job is left beyond index ``shortest``."""
        values = self.values
        while shortest >= 0 and counts[shortest] == 0:
            shortest -= 1
        if shortest >= 0 and values[shortest] <= left:
            return True
        for i in chosen:
            j = i - 1
            while j >= 0 and values[j] <= values[i] + left:
                if counts[j]:
                    return True
                j -= 1
        return False
