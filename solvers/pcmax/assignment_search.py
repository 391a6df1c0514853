"""A second exhaustive search for the P||Cmax decision at one makespan,
written apart from bin completion so that it can confirm bin completion's
refutations without building a model.

Bin completion fills one machine at a time; this search places one job at
a time, longest first, on each machine it fits (machines of equal load are
one choice; a job that fills a machine exactly goes there alone, since any
packing can swap it with what fills that room). A node is cut when the jobs
left cannot fill the rooms left: a room holds at most the largest subset
sum of those jobs that fits in it (the subset sums of every suffix of the
jobs are bitsets, computed once). Load vectors already refuted for the
same suffix are remembered.

It is strong where the campaigns of FAIRCAMP Fig. 4 need it (two to four
jobs a machine, a refutation one above the lower bound): it refutes about
two thirds of them within a few hundred nodes, a fraction of a millisecond
where the arc-flow LP takes five. A packing it finds is a schedule, checked
like any other.
"""

import time

from schedbench.result import FEASIBLE, INFEASIBLE, UNKNOWN

#: Nodes before it gives up (the arc-flow LP, then the models, take over).
NODE_LIMIT = 300
#: Bits of subset-sum tables (jobs x capacity) beyond which it does not
#: start: long jobs make every bitset, and every node's room bound, large.
MAX_BITS = 10_000_000


class _OutOfBudget(Exception):
    """The node budget or the deadline ran out."""


def fits(lengths: tuple[int, ...], machines: int, capacity: int, deadline: float,
         node_limit: int = NODE_LIMIT) -> tuple[str, list[int] | None]:
    """("feasible", machine of each job), or ("infeasible" | "unknown", None)."""
    order = sorted(range(len(lengths)), key=lambda j: -lengths[j])
    jobs = [lengths[j] for j in order]
    if sum(jobs) > machines * capacity or (jobs and jobs[0] > capacity):
        return INFEASIBLE, None
    if time.monotonic() >= deadline or (capacity + 1) * len(jobs) > MAX_BITS:
        return UNKNOWN, None
    within = (2 << capacity) - 1
    reach = [1] * (len(jobs) + 1)  # reach[i]: bit s set when some subset of jobs[i:] sums to s <= capacity
    for i in range(len(jobs) - 1, -1, -1):
        reach[i] = (reach[i + 1] | reach[i + 1] << jobs[i]) & within
    left = [0] * (len(jobs) + 1)
    for i in range(len(jobs) - 1, -1, -1):
        left[i] = left[i + 1] + jobs[i]
    search = _Search(jobs, reach, left, capacity, deadline, node_limit)
    loads = [0] * machines
    try:
        placed = search.place(0, loads, [0] * len(jobs))
    except (_OutOfBudget, RecursionError):
        return UNKNOWN, None
    if placed is None:
        return INFEASIBLE, None
    machine_of = [0] * len(lengths)
    for position, j in enumerate(order):
        machine_of[j] = placed[position]
    return FEASIBLE, machine_of


class _Search:
    def __init__(self, jobs: list[int], reach: list[int], left: list[int], capacity: int, deadline: float,
                 node_limit: int) -> None:
        self.jobs, self.reach, self.left, self.capacity = jobs, reach, left, capacity
        self.deadline, self.nodes_left = deadline, node_limit
        self.refuted: set[tuple[int, tuple[int, ...]]] = set()

    def place(self, i: int, loads: list[int], machine_of: list[int]) -> list[int] | None:
        """``machine_of`` completed from job ``i`` on, or None when the jobs left do not fit."""
        if i == len(self.jobs):
            return machine_of
        key = (i, tuple(sorted(loads)))
        if key in self.refuted:
            return None
        self.nodes_left -= 1
        if self.nodes_left <= 0 or (self.nodes_left & 63 == 0 and time.monotonic() > self.deadline):
            raise _OutOfBudget
        capacity, reach = self.capacity, self.reach[i]
        fillable = sum((reach & ((2 << (capacity - load)) - 1)).bit_length() - 1 for load in loads)
        if fillable >= self.left[i]:
            p = self.jobs[i]
            exact = next((q for q, load in enumerate(loads) if load + p == capacity), None)
            tried: set[int] = set()
            for q in range(len(loads)) if exact is None else (exact,):
                load = loads[q]
                if load + p > capacity or load in tried:
                    continue
                tried.add(load)
                loads[q], machine_of[i] = load + p, q
                if self.place(i + 1, loads, machine_of) is not None:
                    return machine_of
                loads[q] = load
        self.refuted.add(key)
        return None
