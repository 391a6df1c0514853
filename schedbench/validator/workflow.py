"""Workflow schedules (SPEC.md ``workflow``): every task runs once, on one
cluster of its kind, for ``exec`` time units without preemption (one start
each), not before its job's arrival nor before each predecessor has
finished; on every cluster the tasks running at any instant use at most its
cores. Network delays are a simulation feature, not part of SPEC's
objective: a schedule that declares the network it was made under must also
start each task no earlier than a predecessor on another cluster ends plus
that predecessor's delay (§2.4), recomputed here from the instance's tree."""

from schedbench.model.workflow import WorkflowInstance
from schedbench.schedule import Schedule
from schedbench.validator import Violation


def _name(instance: WorkflowInstance, t: int) -> str:
    k = instance.job_of_task[t]
    return f"jobs[{k}].tasks[{t - instance.task_slice(k).start}]"


def check(instance: WorkflowInstance, schedule: Schedule) -> list[Violation]:
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
