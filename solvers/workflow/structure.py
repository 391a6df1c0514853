"""The data both workflow models (``solvers.cpsat.workflow``,
``solvers.milp.workflow``) share: start windows, the clusters each task may
use, the start orderings they must respect and the energy rows. Its own
module, beneath the family solver and both backends, so that none of them
imports another in a circle.
"""

import networkx as nx

from schedbench.metrics.workflow import upward_ranks
from schedbench.model.workflow import WorkflowInstance, WorkflowJob


def heads(job: WorkflowJob) -> list[int]:
    """Per task, the longest exec path ending just before it (predecessors
    only): no schedule starts it earlier than its job's arrival plus this."""
    head = [0] * len(job.tasks)
    for i in nx.topological_sort(job.graph):
        for s in job.tasks[i].succ:
            head[s] = max(head[s], head[i] + job.tasks[i].exec)
    return head


def domains(instance: WorkflowInstance, deadlines: list[int]) -> list[tuple[int, int]]:
    """Per flat task, its [earliest, latest] start when job k must finish by
    ``deadlines[k]``: arrival + head, and deadline - upward rank (the task
    and its longest chain of successors must still fit). An empty window
    (earliest > latest) proves the deadlines infeasible."""
    out = []
    for job, deadline in zip(instance.jobs, deadlines):
        out += [(job.arrival + head, deadline - rank) for head, rank in zip(heads(job), upward_ranks(job))]
    return out


def eligible_clusters(instance: WorkflowInstance) -> list[list[int]]:
    """Per flat task, the clusters a model lets it use: those its placement
    group (the format's rule: a job's tasks of one kind share a cluster) may use,
    of its kind, with the cores of the group's widest task, and, among
    identical clusters (same kind and cores), only the first r + 1 for the
    r-th group (in ``placement_groups`` order) that fits them.

    Why the last rule is safe: identical clusters can be relabelled in any
    solution; ordering them by the first group each hosts puts the r-th
    group on one of the first r + 1. It removes that symmetry from both
    models (and shrinks the MILP)."""
    identical: dict[tuple[str, int], list[int]] = {}
    for c, cluster in enumerate(instance.clusters):
        identical.setdefault((cluster.kind, cluster.cores), []).append(c)
    groups = instance.placement_groups
    per_group: list[list[int]] = [[] for _ in groups]
    for (kind, cores), members in identical.items():
        fitting = [g for g, group in enumerate(groups)
                   if instance.tasks[group[0]].kind == kind and instance.group_width(g) <= cores]
        for rank, g in enumerate(fitting):
            per_group[g] += members[:rank + 1]
    return [sorted(per_group[g]) for g in instance.group_of_task]


def orderings(instance: WorkflowInstance) -> list[tuple[int, int, int]]:
    """``(a, b, lag)`` for start_b >= start_a + lag over flat tasks: every DAG
    edge with lag exec_a, and twins with lag 0. Twins are two tasks of one
    job with the same exec, cores, kind, predecessors and successors: swapping
    them changes nothing, so the earlier-indexed may start first (symmetry
    breaking, compatible with the cluster rule since that one only relabels
    clusters)."""
    out = []
    for k, job in enumerate(instance.jobs):
        first = instance.task_slice(k).start
        preds = [frozenset(job.graph.predecessors(i)) for i in range(len(job.tasks))]
        for a, task in enumerate(job.tasks):
            out += [(first + a, first + b, task.exec) for b in dict.fromkeys(task.succ)]  # the format reference allows a repeat
            out += [(first + a, first + b, 0) for b in range(a + 1, len(job.tasks))
                    if _twins(task, job.tasks[b]) and preds[a] == preds[b]]
    return out


#: Task-window pairs ``energy_rows`` looks at (a task counted once per
#: cluster it may use), and terms it returns, at most: a question's rows
#: are built in well under a second at any size (``bench/workflow_rows.py``).
ROW_WORK = 400_000
ROW_TERMS = 50_000
#: A row whose capacity or energy passes this is left out: CP-SAT's linear
#: sums must stay within 64-bit integers (the format reference allows exec up to 2^40 and
#: cores up to 2^24), and a redundant row is not worth refusing a model for.
ROW_MAGNITUDE = 2 ** 52


def energy_rows(instance: WorkflowInstance, window: list[tuple[int, int]],
                choices: list[list[int]]) -> dict[tuple, int]:
    """Energetic reasoning over placements: {(c, ((g, energy), ...)): most}
    for sum_g energy x [group g on cluster c] <= most.

    From a job's arrival a to a task's latest end b, task t runs at least
    w = min(b - a, exec_t, earliest_t + exec_t - a, b - latest_t) inside
    [a, b) wherever it starts in its window (if w > 0), using cores_t w
    of its cluster's cores_c (b - a) there. Groups that may use one
    cluster only are constants (moved to the right); a row is kept where
    the groups still open could break it, one per set of terms (the
    tightest). Past ``ROW_WORK`` pairs, evenly spread arrivals and ends
    are kept, and past ``ROW_TERMS`` terms the rows the open groups
    overfill most (fewer rows, each as valid); past ``ROW_MAGNITUDE``, none.

    Valid for the schedules the model allows: the groups' clusters among
    ``choices``, the model's ``eligible_clusters`` (identical clusters in
    their canonical order)."""
    tasks, group_of = instance.tasks, instance.group_of_task
    lefts = sorted({job.arrival for job in instance.jobs})
    rights = sorted({latest + task.exec for task, (_, latest) in zip(tasks, window)})
    windows = max(ROW_WORK // sum(len(options) for options in choices), 1)  # (a, b) pairs affordable
    lefts = _evenly(lefts, max(windows // len(rights), 1))
    rights = _evenly(rights, max(windows // len(lefts), 1))
    rows: dict[tuple, int] = {}
    for a in lefts:
        for b in (right for right in rights if right > a):
            fixed = [0] * len(instance.clusters)
            undecided: list[dict[int, int]] = [{} for _ in instance.clusters]  # per cluster, group -> energy
            for t, (task, (earliest, latest)) in enumerate(zip(tasks, window)):
                least = min(b - a, task.exec, earliest + task.exec - a, b - latest)
                if least <= 0:
                    continue
                if len(choices[t]) == 1:
                    fixed[choices[t][0]] += least * task.cores
                else:
                    for c in choices[t]:
                        undecided[c][group_of[t]] = undecided[c].get(group_of[t], 0) + least * task.cores
            for c, cluster in enumerate(instance.clusters):
                most, energy = cluster.cores * (b - a) - fixed[c], sum(undecided[c].values())
                if undecided[c] and energy > most and max(energy, cluster.cores * (b - a), -most) < ROW_MAGNITUDE:
                    key = (c, tuple(sorted(undecided[c].items())))
                    rows[key] = min(rows.get(key, most), most)
    kept, terms = {}, 0  # the most overfilled first: most - (the open groups' energy) increasing
    for key, most in sorted(rows.items(), key=lambda row: (row[1] - sum(energy for _, energy in row[0][1]), row[0])):
        if terms + len(key[1]) <= ROW_TERMS:
            kept[key] = most
            terms += len(key[1])
    return kept


def _evenly(values: list[int], count: int) -> list[int]:
    """At most ``count`` of ``values`` (sorted), evenly spread from the first (to the last, if count > 1)."""
    if len(values) <= count:
        return values
    return sorted({values[i * (len(values) - 1) // max(count - 1, 1)] for i in range(count)})


def _twins(a, b) -> bool:
    return (a.exec, a.cores, a.kind, frozenset(a.succ)) == (b.exec, b.cores, b.kind, frozenset(b.succ))
