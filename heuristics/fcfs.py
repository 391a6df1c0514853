"""FCFS for campaigns (FAIRCAMP paper §VI.B, OStrich paper §6).

Campaigns are served in submission order (ties: lower user index first).
With the default inner rule ``list`` this is job-level FIFO list
scheduling: each job starts on the machine free first, not before its
campaign's submission. Another inner rule ``A`` places each whole campaign
with ``A`` on the machines' availability at its submission (for example
``mlpt``, Lee's rule for machines free at different times).
"""

from heapq import heapify, heappop, heappush, heapreplace

from schedbench.heuristics.pcmax import rule
from schedbench.schedule import Schedule


def fcfs(instance, inner: str = "list") -> Schedule:
    """Event-driven FCFS; campaign i+1 is submitted when campaign i completes
    plus its think time. O(n log m + c log k) for n jobs and c campaigns."""
    m = instance.machines
    n = len(instance.lengths)
    machine, start = [0] * n, [0] * n
    heap = list(range(m))  # free_time * m + q, all free at 0
    users = instance.users
    offsets = instance.offsets
    submissions = [(user.release, u, 0) for u, user in enumerate(users)]
    heapify(submissions)
    place = None if inner == "list" else rule(inner)
    while submissions:
        submitted, u, i = heappop(submissions)
        jobs = users[u].campaigns[i].jobs
        base = offsets[u][i]
        completion = 0
        if place is None:
            floor = submitted * m
            for j, p in enumerate(jobs, base):
                key = heap[0]
                q = key % m
                if key < floor:
                    key = floor + q
                t = key // m
                machine[j] = q
                start[j] = t
                end = t + p
                if end > completion:
                    completion = end
                heapreplace(heap, key + p * m)
        else:
            ready = sorted(heap)
            free = [max(key // m, submitted) for key in ready]
            qs, ss = place(jobs, free)
            for j, (slot, s, p) in enumerate(zip(qs, ss, jobs), base):
                machine[j] = ready[slot] % m
                start[j] = s
                completion = max(completion, s + p)
                free[slot] = max(free[slot], s + p)
            heap = [t * m + ready[slot] % m for slot, t in enumerate(free)]
            heapify(heap)
        if i + 1 < len(users[u].campaigns):
            heappush(submissions, (completion + users[u].campaigns[i + 1].think_time, u, i + 1))
    return Schedule(tuple(machine), tuple(start))
