"""Workflow metrics (the format reference ``workflow``; P-SLR paper §2-§4), ratios exact.

CP_k: the longest exec path through job k's DAG; upward rank of a task:
the longest exec path from it to a sink (its own exec included), the
remaining critical path the SRTF/LRTF/P-SLR policies order by; response
time finish_k - arrival_k; SLR_k = response_k / CP_k; the Gini coefficient
of the SLRs (mean absolute difference over twice the mean). A task's wait
is its start minus the instant it was ready (its job arrived, every
predecessor ended and, under a network, its data arrived): the starvation
measure. The §3 class of a schedule is read off the rank correlation of
SLR against CP.
"""

from collections.abc import Sequence
from fractions import Fraction

import networkx as nx

from schedbench.metrics import Bar
from schedbench.model.workflow import WorkflowInstance, WorkflowJob
from schedbench.schedule import Schedule


def upward_ranks(job: WorkflowJob, times: Sequence[int] | None = None) -> list[int]:
    """Per task, its time plus the largest upward rank among its successors
    (§2.1, T_R). ``times``: per task of the job, estimates to use instead of
    ``exec`` (the policies order by estimated ranks, §2.2)."""
    times = [t.exec for t in job.tasks] if times is None else times
    rank = [0] * len(job.tasks)
    for i in reversed(list(nx.topological_sort(job.graph))):
        rank[i] = times[i] + max((rank[s] for s in job.tasks[i].succ), default=0)
    return rank


def critical_path(job: WorkflowJob) -> int:
    return max(upward_ranks(job), default=0)


def finish_times(instance: WorkflowInstance, schedule: Schedule) -> list[int]:
    tasks = instance.tasks
    return [max(schedule.start[t] + tasks[t].exec for t in instance.task_slice(k)) for k in range(len(instance.jobs))]


def response_times(instance: WorkflowInstance, schedule: Schedule) -> list[int]:
    return [finish - job.arrival for job, finish in zip(instance.jobs, finish_times(instance, schedule))]


def slrs(instance: WorkflowInstance, schedule: Schedule, with_network: bool = False) -> list[Fraction]:
    """the format's SLRs; ``with_network``: over critical paths that include the
    delays of the network the schedule declares (the P-SLR paper's reading
    in §5.2, "network costs will increase the length of the critical path")."""
    paths = (network_critical_paths(instance, schedule) if with_network
             else [critical_path(job) for job in instance.jobs])
    return [Fraction(response, path) for path, response in zip(paths, response_times(instance, schedule))]


def network_critical_paths(instance: WorkflowInstance, schedule: Schedule) -> list[int]:
    """Per job, the longest path of exec times plus, on each edge between
    two clusters, the delay of ``schedule.network`` (none without one)."""
    network = getattr(schedule, "network", None)
    out = []
    for k, job in enumerate(instance.jobs):
        first = instance.task_slice(k).start
        longest = [0] * len(job.tasks)  # from each task to a sink, its own exec included
        for i in reversed(list(nx.topological_sort(job.graph))):
            task, tail = job.tasks[i], 0
            for s in task.succ:
                delay = instance.data_delay(network, first + i, schedule.machine[first + i], schedule.machine[first + s])
                tail = max(tail, longest[s] + delay)
            longest[i] = task.exec + tail
        out.append(max(longest))
    return out


def waiting_times(instance: WorkflowInstance, schedule: Schedule) -> list[int]:
    """Per task, start minus ready time, with the network delays the schedule
    declares (``schedule.network``), recomputed from the schedule alone."""
    network = getattr(schedule, "network", None)
    tasks = instance.tasks
    ready = [instance.jobs[k].arrival for k in instance.job_of_task]
    for k, job in enumerate(instance.jobs):
        first = instance.task_slice(k).start
        for i, task in enumerate(job.tasks):
            t = first + i
            for s in task.succ:
                delay = instance.data_delay(network, t, schedule.machine[t], schedule.machine[first + s])
                ready[first + s] = max(ready[first + s], schedule.start[t] + tasks[t].exec + delay)
    return [start - r for start, r in zip(schedule.start, ready)]


def max_slr(instance: WorkflowInstance, schedule: Schedule) -> Fraction:
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


#: |Spearman rho| below this reads as no preference (Class 3), whatever the p-value.
CLASS_THRESHOLD = 0.1
#: Fewer jobs give no class: scipy's p-value for a perfect rank correlation is 0 even on 3 points.
CLASS_MIN_JOBS = 10


def slr_class(instance: WorkflowInstance, schedule: Schedule) -> tuple[float | None, int | None]:
    """(Spearman rho of SLR against CP over the jobs, §3 class). Class 1
    (long jobs favoured: SLR falls as CP grows) when rho <= -0.1 and is
    significant at 5%, Class 2 (short jobs favoured) when rho >= 0.1 and
    significant, else Class 3 (SLR independent of length); equal SLRs are
    Class 3 with rho 0. (None, None) with fewer than ``CLASS_MIN_JOBS`` jobs
    or a single critical-path length: no correlation to read."""
    from scipy.stats import spearmanr

    lengths = [critical_path(job) for job in instance.jobs]
    ratios = [response / length for response, length in zip(response_times(instance, schedule), lengths)]
    if len(lengths) < CLASS_MIN_JOBS or len(set(lengths)) == 1:
        return None, None
    if len(set(ratios)) == 1:
        return 0.0, 3
    result = spearmanr(lengths, ratios)
    rho, p = float(result.statistic), float(result.pvalue)
    if abs(rho) < CLASS_THRESHOLD or p >= 0.05:
        return rho, 3
    return rho, 1 if rho < 0 else 2


def objective(instance: WorkflowInstance, schedule: Schedule, name: str, references: dict) -> Fraction:
    if name != "max-slr":
        raise ValueError(f"unknown workflow objective {name!r}")
    return max_slr(instance, schedule)


def lower_bound(instance: WorkflowInstance, name: str) -> Fraction:
    """1: no job finishes sooner than its critical path after its arrival."""
    return Fraction(1) if instance.jobs else Fraction(0)


def slr_by_cp_decade(instance: WorkflowInstance, schedule: Schedule) -> dict[str, Fraction]:
    """Mean SLR of the jobs per decade of critical path ("0": CP in [1, 10),
    "1": [10, 100), ...): the shape the §3 classes describe."""
    decades: dict[int, list[Fraction]] = {}
    lengths = [critical_path(job) for job in instance.jobs]
    for length, response in zip(lengths, response_times(instance, schedule)):
        decades.setdefault(len(str(length)) - 1, []).append(Fraction(response, length))
    return {str(d): sum(v, Fraction(0)) / len(v) for d, v in sorted(decades.items())}


METRICS = {
    "max-slr": max_slr,
    "gini": lambda instance, schedule: gini(slrs(instance, schedule)),
    "worst-wait": lambda instance, schedule: max(waiting_times(instance, schedule), default=0),
    # §5.2: SLRs over critical paths that include the network delays on the job's clusters (Fig. 5)
    "max-slr-network": lambda instance, schedule: max(slrs(instance, schedule, with_network=True), default=Fraction(0)),
    "gini-network": lambda instance, schedule: gini(slrs(instance, schedule, with_network=True)),
    "slr-cp-rho": lambda instance, schedule: slr_class(instance, schedule)[0],
    "slr-class": lambda instance, schedule: slr_class(instance, schedule)[1],
    "slr-by-cp-decade": slr_by_cp_decade,
}


def gantt_bars(instance: WorkflowInstance, schedule: Schedule) -> list[Bar]:
    """One bar per task on its cluster ("cluster 1" is the first), coloured
    by job; the cores a task holds are not drawn."""
    return [Bar(f"cluster {c + 1}", s, task.exec, f"job {k}")
            for c, s, task, k in zip(schedule.machine, schedule.start, instance.tasks, instance.job_of_task)]
