"""List-scheduling rules for identical machines that become free at given times.

Each rule has the signature ``rule(lengths, ready) -> (machine, start)``:
``ready[q]`` is the time machine ``q`` becomes free, and the result gives, per
job in input order, its machine and start. They serve as heuristics for
P||Cmax (``ready`` all zero) and as the inner algorithm ``A`` of camp(A),
MULTICAMP, FAIRCAMP, FCFS and OStrich.

The machine heap stores ``free_time * m + q`` as one integer: the smallest
key is the machine free first (lowest index on ties), and adding ``p * m``
moves it to its next free time without building tuples. That keeps
placement near the speed of bare ``heapq``.
"""

import math
import time
from collections.abc import Callable, Sequence
from heapq import heapify, heapreplace

from schedbench.errors import UserInputError
from schedbench.schedule import Schedule, back_to_back

Placement = tuple[list[int], list[int]]
Rule = Callable[[Sequence[int], Sequence[int]], Placement]


def place_in_order(lengths: Sequence[int], ready: Sequence[int], order: Sequence[int]) -> Placement:
    """Graham's list scheduling: each job of ``order`` to the machine free first."""
    m = len(ready)
    heap = [t * m + q for q, t in enumerate(ready)]
    heapify(heap)
    machine = [0] * len(lengths)
    start = [0] * len(lengths)
    for j in order:
        key = heap[0]
        start[j], machine[j] = divmod(key, m)
        heapreplace(heap, key + lengths[j] * m)
    return machine, start


def list_scheduling(lengths: Sequence[int], ready: Sequence[int]) -> Placement:
    """Jobs in the given order (Graham 1966; ratio 2 - 1/m)."""
    return place_in_order(lengths, ready, range(len(lengths)))


def lpt(lengths: Sequence[int], ready: Sequence[int]) -> Placement:
    """Longest Processing Time first (Graham 1969; ratio 4/3 - 1/(3m) when all
    machines are free at 0, 3/2 - 1/(2m) with availability times, Lee 1991).
    Ties keep the input order, so results are deterministic."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__, reverse=True)
    return place_in_order(lengths, ready, order)


def spt(lengths: Sequence[int], ready: Sequence[int]) -> Placement:
    """Shortest Processing Time first (optimal for sum of completion times)."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    return place_in_order(lengths, ready, order)


def mlpt(lengths: Sequence[int], ready: Sequence[int]) -> Placement:
    """Modified LPT for machines free at different times (after Lee 1991).

    LPT fails on availability times when the longest job lands on the machine
    free first although it fits better elsewhere. This version runs LPT once
    per machine with the longest job fixed on that machine and keeps the
    schedule of smallest makespan (the plain LPT schedule is among them), so
    it is never worse than LPT. The original paper was not available to check
    its exact steps against; the 4/3 bound Lee proves is checked against
    brute-force optima in the tests.
    """
    if not lengths:
        return [], []
    m = len(ready)
    order = sorted(range(len(lengths)), key=lengths.__getitem__, reverse=True)
    longest, rest = order[0], order[1:]
    best: Placement | None = None
    best_makespan = None
    for q in sorted(range(m), key=lambda q: (ready[q], q)):
        shifted = list(ready)
        shifted[q] = ready[q] + lengths[longest]
        machine, start = place_in_order(lengths, shifted, rest)
        machine[longest], start[longest] = q, ready[q]
        makespan = max(s + p for s, p in zip(start, lengths))
        if best_makespan is None or makespan < best_makespan:
            best, best_makespan = (machine, start), makespan
    return best


def first_fit_decreasing(lengths: Sequence[int], machines: int, capacity: int) -> list[int] | None:
    """FFD bin packing into ``machines`` bins of size ``capacity``: the bin of
    each job, or None when some job fits in no bin. The first bin with room
    is found in O(log m) by descending a tree of the bins' largest free
    space (a leaf per bin), so a pass costs O(n log m), not O(n m)."""
    size = 1 << max(machines - 1, 0).bit_length()
    free = [0] * (2 * size)  # free[node]: the most free space of a bin below node
    free[size:size + machines] = [capacity] * machines
    for node in range(size - 1, 0, -1):
        free[node] = max(free[2 * node], free[2 * node + 1])
    machine_of = [0] * len(lengths)
    for j in sorted(range(len(lengths)), key=lambda j: -lengths[j]):
        p = lengths[j]
        if free[1] < p:
            return None
        node = 1
        while node < size:  # the leftmost child with room: first fit
            node = 2 * node if free[2 * node] >= p else 2 * node + 1
        machine_of[j] = node - size
        free[node] -= p
        node //= 2
        while node:
            free[node] = max(free[2 * node], free[2 * node + 1])
            node //= 2
    return machine_of


def multifit(lengths: Sequence[int], ready: Sequence[int], iterations: int = 10,
             deadline: float = math.inf) -> Placement:
    """MULTIFIT (Coffman, Garey & Johnson 1978): binary search on the bin size
    with First Fit Decreasing; ratio 13/11. Machines must all be free at the
    same time (P||Cmax). No further pass starts after ``deadline``
    (``time.monotonic()``)."""
    if len(set(ready)) > 1:
        raise UserInputError("--inner", "multifit needs all machines free at the same time")
    m = len(ready)
    work = sum(lengths)
    low = max(-(-work // m), max(lengths, default=0))
    high = max(-(-2 * work // m), max(lengths, default=0))
    best = first_fit_decreasing(lengths, m, high)
    for _ in range(iterations):
        if low >= high or time.monotonic() >= deadline:
            break
        mid = (low + high) // 2
        packed = first_fit_decreasing(lengths, m, mid)
        if packed is None:
            low = mid + 1
        else:
            best, high = packed, mid
    return best, back_to_back(best, lengths, ready[0] if ready else 0)


RULES: dict[str, Rule] = {"list": list_scheduling, "lpt": lpt, "spt": spt, "mlpt": mlpt}


def rule(name: str) -> Rule:
    if name not in RULES:
        raise UserInputError("--inner", f"unknown inner algorithm {name!r} (known: {', '.join(RULES)})")
    return RULES[name]


def pcmax_heuristic(name: str) -> Callable:
    """A P||Cmax heuristic over instances, built from a placement rule."""
    place = RULES[name]

    def run(instance) -> Schedule:
        return Schedule.of(*place(instance.jobs, [0] * instance.machines))

    run.__name__ = name
    run.__doc__ = place.__doc__
    return run


HEURISTICS = {name: pcmax_heuristic(name) for name in RULES}


def multifit_heuristic(instance) -> Schedule:
    """MULTIFIT on a P||Cmax instance."""
    return Schedule.of(*multifit(instance.jobs, [0] * instance.machines))


HEURISTICS["multifit"] = multifit_heuristic
