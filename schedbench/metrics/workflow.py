"""Workflow metrics (SPEC.md ``workflow``; P-SLR paper §2-§4), ratios exact.

CP_k: the longest exec path through job k's DAG; upward rank of a task:
the longest exec path from it to a sink (its own exec included), the
remaining critical path the SRTF/LRTF/P-SLR policies order by; SLR_k =
(finish_k - arrival_k) / CP_k; the Gini coefficient of the SLRs (mean
absolute difference over twice the mean).
"""

from collections.abc import Sequence
from fractions import Fraction

import networkx as nx

from schedbench.schedule import Schedule


def upward_ranks(job) -> list[int]:
    """Per task, exec plus the largest upward rank among its successors."""
    rank = [0] * len(job.tasks)
    for i in reversed(list(nx.topological_sort(job.graph))):
        rank[i] = job.tasks[i].exec + max((rank[s] for s in job.tasks[i].succ), default=0)
    return rank


def critical_path(job) -> int:
    return max(upward_ranks(job), default=0)


def finish_times(instance, schedule: Schedule) -> list[int]:
    tasks = instance.tasks
    return [max(schedule.start[t] + tasks[t].exec for t in instance.task_slice(k)) for k in range(len(instance.jobs))]


def slrs(instance, schedule: Schedule) -> list[Fraction]:
    return [Fraction(finish - job.arrival, critical_path(job))
            for job, finish in zip(instance.jobs, finish_times(instance, schedule))]


def max_slr(instance, schedule: Schedule) -> Fraction:
    return max(slrs(instance, schedule), default=Fraction(0))


def gini(values: Sequence[Fraction]) -> Fraction:
    """sum_i sum_j |x_i - x_j| / (2 n^2 mean); 0 when all are equal."""
    n, total = len(values), sum(values)
    if not n or not total:
        return Fraction(0)
    ordered = sorted(values)
    # sum over pairs via the sorted order: sum_i (2i - n + 1) x_(i)
    spread = sum((2 * i - n + 1) * x for i, x in enumerate(ordered))
    return Fraction(spread) / (n * total)
