"""Lower bounds for P||Cmax, cheapest first.

- L0 = max(ceil(W/m), p_max).
- L1 family: of the k m + 1 longest jobs some machine runs k + 1, so
  C* >= the sum of the k + 1 shortest of them (k = 1 is p_m + p_{m+1}).
- Bin-packing bounds inside a search on the capacity C (Dell'Amico &
  Martello 1995): C is infeasible when m bins of size C cannot hold the
  jobs, which Martello & Toth's L2 bound for bin packing can prove; the
  bound is the smallest C it cannot refute.
"""

import math
import time
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate

import numpy as np



def l0(lengths: Sequence[int], machines: int) -> int:
    return max(-(-sum(lengths) // machines), max(lengths))


def l1(lengths: Sequence[int], machines: int) -> int:
    """max over k of the k+1 shortest among the k m + 1 longest jobs: the
    ones at ranks k(m - 1) .. k m of the lengths sorted decreasingly, summed
    from prefix sums, so the bound costs O(n log n) (slicing and summing each
    k's jobs made it quadratic on one machine)."""
    ordered = sorted(lengths, reverse=True)
    prefix = [0, *accumulate(ordered)]
    best, k = 0, 1
    while k * machines < len(ordered):
        best = max(best, prefix[k * machines + 1] - prefix[k * (machines - 1)])
        k += 1
    return best


def bins_needed_mt(ascending: Sequence[int], prefix: Sequence[int], capacity: int) -> int:
    """Martello & Toth's L2 lower bound on the bins of size ``capacity`` needed.

    ``ascending`` are the lengths sorted increasingly, ``prefix`` their
    prefix sums (prefix[i] = sum of the i smallest). For each threshold a
    in {0} U {lengths <= C/2}: J1 = (C - a, C], J2 = (C/2, C - a],
    J3 = [a, C/2]; J1 and J2 items each need their own bin, and J3's work
    beyond J2's free space needs ceil(./C) more bins.
    """
    n = len(ascending)
    if ascending[-1] > capacity:
        return n + 1  # a job longer than C: infeasible
    half_index = bisect_right(ascending, capacity // 2)  # items <= C/2 (for odd C: < C/2 + 1/2)
    big = n - half_index                                   # items > C/2: one bin each
    best = big
    candidates = sorted(set(ascending[:half_index]))
    candidates.insert(0, 0)
    for a in candidates:
        j1_start = bisect_right(ascending, capacity - a)   # items > C - a
        j1 = n - j1_start
        j2 = j1_start - half_index                         # items in (C/2, C - a]
        j2_work = prefix[j1_start] - prefix[half_index]
        j3_start = bisect_left(ascending, a) if a > 0 else 0
        j3_work = prefix[half_index] - prefix[j3_start]
        spare = j2 * capacity - j2_work
        extra = max(0, -(-(j3_work - spare) // capacity))
        best = max(best, j1 + j2 + extra)
    return best


def bin_packing_bound(lengths: Sequence[int], machines: int, start: int, stop: int,
                      deadline: float = math.inf) -> int:
    """Smallest C in [start, stop] that the MT L2 bound cannot refute (stop if
    none), or at ``deadline`` (``time.monotonic()``) the smallest not refuted
    yet: every C below it is refuted either way, so it is a bound."""
    ascending = sorted(lengths)
    prefix = [0, *accumulate(ascending)]
    low, high = start, stop
    # bins_needed_mt is non-increasing in C, so binary search applies
    while low < high and time.monotonic() < deadline:
        mid = (low + high) // 2
        if bins_needed_mt(ascending, prefix, mid) <= machines:
            high = mid
        else:
            low = mid + 1
    return low


#: Bounds whose L2 search ran to its end, by (lengths, machines): the same
#: whatever makespan stopped the search (no makespan is below the bound), so
#: the P||Cmax engine and the campaign metrics that ask for one campaign's
#: bound compute it once (FAIRCAMP Fig. 4: about 900 campaigns a workload).
_FINISHED: dict[tuple[tuple[int, ...], int], tuple[int, str]] = {}
_FINISHED_SIZE = 200_000


def lower_bound(lengths: Sequence[int], machines: int, upper: int | None = None,
                deadline: float = math.inf) -> tuple[int, str]:
    """Best cheap lower bound and the name of the bound that gave it; the L2
    search stops at ``deadline`` with what it has proven by then.

    ``upper`` must be a feasible makespan: no larger C can be refuted, so
    the L2 search stops there (a value that is not one would cap the
    remembered bound). Without it, list scheduling's ceil(W/m) + p_max,
    which every list schedule meets; a tighter one (the engine passes
    LPT's, mostly within a few units of L1) saves steps, not bound: the
    bound is the same."""
    bound, name = l0(lengths, machines), "L0"
    if len(lengths) <= machines:
        return bound, name
    key = (tuple(lengths), machines)
    known = _FINISHED.get(key)
    if known is not None:
        return known
    b1 = l1(lengths, machines)
    if b1 > bound:
        bound, name = b1, "L1"
    if upper is None:
        upper = -(-sum(lengths) // machines) + max(lengths)
    b2 = bin_packing_bound(lengths, machines, bound, upper, deadline)
    if b2 > bound:
        bound, name = b2, "MT-L2"
    if time.monotonic() >= deadline:  # perhaps cut short: not remembered
        return bound, name
    if len(_FINISHED) >= _FINISHED_SIZE:
        _FINISHED.clear()
    _FINISHED[key] = bound, name
    return bound, name


def forget_bounds() -> None:
    """Empty the memory of finished bounds (``solvers.pcmax.clear_cache``)."""
    _FINISHED.clear()


#: Dual values are scaled to integers with this denominator before the check.
DUAL_SCALE = 1 << 20
#: The check's dynamic program is skipped (no bound) beyond this many cell updates.
DUAL_CHECK_CELLS = 50_000_000


def dual_weights(counts: dict[int, int], capacity: int, duals: dict[int, float]) -> dict[int, int]:
    """The duals of the arc-flow LP's demand rows as integer weights y_s in
    [0, DUAL_SCALE] on the lengths that fit (floored: any y >= 0 is valid,
    an optimal dual has y <= 1): a certificate anyone can check."""
    weights = {}
    for s in counts:
        y = duals.get(s, 0.0)
        if s <= capacity and math.isfinite(y) and y > 0:
            weights[s] = int(min(y, 1.0) * DUAL_SCALE)
    return {s: y for s, y in weights.items() if y > 0}


def weights_bound(counts: dict[int, int], capacity: int, weights: dict[int, int]) -> int:
    """Bins of size ``capacity`` that jobs of lengths ``counts`` need, proven by weights y_s >= 0.

    No bin holds more weight than W, the most a bounded knapsack of
    capacity C packs (at most count(s) jobs of length s). So b bins hold at
    most b W, and covering every job needs b >= sum_s count(s) y_s / W. W
    is computed by a dynamic program over capacities, independently of the
    arc-flow graph. Whatever the duals' float error, the bound is valid;
    it is only weaker when they are far from optimal. O(C log n) numpy
    steps per length; past ``DUAL_CHECK_CELLS`` cell updates (long jobs, a
    large C) it proves nothing (0) rather than take seconds."""
    heaviest = _heaviest_bins(counts, capacity, weights)
    if heaviest is None:
        return 0  # nothing proven
    return -(-_total(counts, weights) // int(heaviest[capacity]))


def refuted_through(counts: dict[int, int], machines: int, capacity: int, limit: int,
                    weights: dict[int, int]) -> int:
    """The largest C in [capacity, limit] at which ``weights`` prove that
    ``machines`` bins of size C cannot hold the jobs (``capacity - 1`` where
    they do not prove it at ``capacity``): one dynamic program up to
    ``limit`` gives the heaviest bin W(C) of every C at once, and W grows
    with C, so the capacities refuted are those with machines x W(C) below
    the total weight. Weights an LP found at one C often refute several
    more, where a bisection would have solved an LP at each."""
    heaviest = _heaviest_bins(counts, limit, weights)
    if heaviest is None:
        return capacity - 1 if weights_bound(counts, capacity, weights) <= machines else capacity
    refuted = int(np.searchsorted(machines * heaviest, _total(counts, weights), side="left")) - 1
    return min(refuted, limit) if refuted >= capacity else capacity - 1


def _total(counts: dict[int, int], weights: dict[int, int]) -> int:
    return sum(counts[s] * y for s, y in weights.items())


def _heaviest_bins(counts: dict[int, int], capacity: int, weights: dict[int, int]) -> np.ndarray | None:
    """heaviest[c]: the most weight one bin of size c holds, for every c up to
    ``capacity`` (bounded knapsack by binary splitting), or None without
    weights or past ``DUAL_CHECK_CELLS`` cell updates."""
    steps = sum(min(counts[s], capacity // s).bit_length() for s in weights)
    if not weights or steps * (capacity + 1) > DUAL_CHECK_CELLS:
        return None
    best = np.zeros(capacity + 1, dtype=np.int64)  # best[c]: most weight within load c
    for s, y in weights.items():
        left, chunk = min(counts[s], capacity // s), 1
        while left > 0:  # binary splitting: chunks 1, 2, 4, ... make every count 0..count(s)
            take = min(chunk, left)
            size, gain = take * s, take * y
            candidate = best[:capacity + 1 - size] + gain  # from the old row: each chunk once
            np.maximum(best[size:], candidate, out=best[size:])
            left -= take
            chunk *= 2
    return best
