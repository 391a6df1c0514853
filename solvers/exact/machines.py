"""Turning start times into machine assignments.

The exact models keep no machine index: on identical machines, a set of
intervals with at most m of them overlapping at any time can always be
given m machines (interval graphs are perfect), so the models use a
capacity-m cumulative constraint and this greedy restores machines. That
removes the m! machine symmetry from the search altogether.
"""

from collections.abc import Sequence
from heapq import heapify, heappop, heappush


def assign_machines(starts: Sequence[int], lengths: Sequence[int], machines: int) -> list[int]:
    """Machines for jobs given by start times, by earliest start first; raises
    if more than ``machines`` jobs overlap (a model bug, never silenced)."""
    free = [(0, q) for q in range(machines)]
    heapify(free)
    out = [0] * len(starts)
    for j in sorted(range(len(starts)), key=lambda j: (starts[j], j)):
        t, q = heappop(free)
        if t > starts[j]:
            raise AssertionError(f"more than {machines} jobs overlap at time {starts[j]}")
        out[j] = q
        heappush(free, (starts[j] + lengths[j], q))
    return out
