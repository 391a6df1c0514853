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


def sequence_on_machines(machine_of: Sequence[int], lengths: Sequence[int]) -> list[int]:
    """Start times for an assignment: each machine runs its jobs back to back from 0."""
    loads: dict[int, int] = {}
    starts = []
    for q, p in zip(machine_of, lengths):
        starts.append(loads.get(q, 0))
        loads[q] = starts[-1] + p
    return starts
