"""Workflow schedules (the format reference ``workflow``): every task runs once, on one
cluster of its kind, for ``exec`` time units without preemption (one start
each), on the same cluster as its job's other tasks of that kind (the format's
placement rule, unless the instance says ``"colocate": false``), not before its job's arrival nor before each predecessor has
finished; on every cluster the tasks running at any instant use at most its
cores. Network delays are a simulation feature, not part of the format's
objective: a schedule that declares the network it was made under must also
start each task no earlier than a predecessor on another cluster ends plus
that predecessor's delay (§2.4), recomputed here from the instance's tree."""

from schedbench.model.workflow import WorkflowInstance
from schedbench.schedule import Schedule
from schedbench.validator.violation import Violation

FAMILY = "workflow"


def _name(instance: WorkflowInstance, t: int) -> str:
    k = instance.job_of_task[t]
    return f"jobs[{k}].tasks[{t - instance.task_slice(k).start}]"


def check(instance: WorkflowInstance, schedule: Schedule, objective: str | None = None, references=None) -> list[Violation]:
    tasks = instance.tasks
    if len(schedule) != len(tasks):
        return [Violation("shape", "schedule", f"{len(schedule)} tasks scheduled, instance has {len(tasks)}")]
    out = []
    for t, (task, c, s) in enumerate(zip(tasks, schedule.machine, schedule.start)):
        if not isinstance(c, int) or not 0 <= c < len(instance.clusters):
            out.append(Violation("cluster-range", _name(instance, t), f"cluster {c} is not in 0..{len(instance.clusters) - 1}"))
        elif instance.clusters[c].kind != task.kind:
            out.append(Violation("kind", _name(instance, t), f"needs {task.kind}, cluster {c} is "
                                                             f"{instance.clusters[c].kind}"))
        if not isinstance(s, int) or s < 0:
            out.append(Violation("start", _name(instance, t), f"start {s} is not an integer >= 0"))
    if out:
        return out
    out += _placement(instance, schedule)
    network = getattr(schedule, "network", None)
    for k, job in enumerate(instance.jobs):
        first = instance.task_slice(k).start
        for i, task in enumerate(job.tasks):
            t = first + i
            if schedule.start[t] < job.arrival:
                out.append(Violation("arrival", _name(instance, t), f"starts at {schedule.start[t]} before its job "
                                                                    f"arrives at {job.arrival}"))
            for succ in task.succ:
                end = schedule.start[t] + task.exec
                if schedule.start[first + succ] < end:
                    out.append(Violation("precedence", _name(instance, first + succ),
                                         f"starts at {schedule.start[first + succ]} before its predecessor "
                                         f"{_name(instance, t)} ends at {end}"))
                elif network is not None:
                    ready = end + instance.data_delay(network, t, schedule.machine[t], schedule.machine[first + succ])
                    if schedule.start[first + succ] < ready:
                        out.append(Violation("network-delay", _name(instance, first + succ),
                                             f"starts at {schedule.start[first + succ]} before the data of "
                                             f"{_name(instance, t)} arrives at {ready}"))
    return out + _capacity(instance, schedule)


def _placement(instance: WorkflowInstance, schedule: Schedule) -> list[Violation]:
    """One violation per job and kind whose tasks are split over clusters
    (read from the jobs here, not from the model's placement groups the
    solvers use)."""
    if not instance.colocate:
        return []
    out = []
    for k, job in enumerate(instance.jobs):
        first_of_kind: dict[str, int] = {}
        split: set[str] = set()
        for t, task in zip(instance.task_slice(k), job.tasks):
            first = first_of_kind.setdefault(task.kind, t)
            if schedule.machine[t] != schedule.machine[first] and task.kind not in split:
                split.add(task.kind)  # one violation per job and kind
                out.append(Violation("colocate", _name(instance, t),
                                     f"runs on cluster {schedule.machine[t]}, but {_name(instance, first)} of the "
                                     f"same job and kind {task.kind} runs on cluster {schedule.machine[first]} "
                                     f"(the tasks of a job that share a kind run on one cluster)"))
    return out


def _capacity(instance: WorkflowInstance, schedule: Schedule) -> list[Violation]:
    """Sweep each cluster's start and end events; ends before starts at the same instant."""
    events: dict[int, list[tuple[int, int, int]]] = {}
    for t, task in enumerate(instance.tasks):
        c, s = schedule.machine[t], schedule.start[t]
        events.setdefault(c, []).extend([(s, 1, task.cores), (s + task.exec, 0, -task.cores)])
    out = []
    for c, timeline in sorted(events.items()):
        used = 0
        for time, _, delta in sorted(timeline):
            used += delta
            if used > instance.clusters[c].cores:
                out.append(Violation("capacity", f"clusters[{c}]", f"{used} cores in use at {time}, "
                                                                   f"it has {instance.clusters[c].cores}"))
                break
    return out
