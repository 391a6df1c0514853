"""DSSP schedules: tasks that run do so on one processor each, one at a time,
without preemption, and after every task of their job's previous stage has
finished. Tasks that do not run have neither processor nor start. Which
jobs earn their reward (every task done by the deadline) is a metric, not a
rule: a schedule may run a job that misses the deadline."""

from schedbench.schedule import Schedule
from schedbench.validator.machines import check_machines
from schedbench.validator.violation import Violation

FAMILY = "dssp"


def task_name(instance, t: int) -> str:
    j = instance.job_of_task[t]
    g = next(g for g in range(len(instance.jobs[j].stages)) if t in instance.stage_slice(j, g))
    return f"jobs[{j}].stages[{g}][{t - instance.stage_slice(j, g).start}]"


def check(instance, schedule: Schedule, objective: str | None = None, references=None) -> list[Violation]:
    lengths = instance.lengths
    if len(schedule) != len(lengths):
        return [Violation("shape", "schedule", f"{len(schedule)} tasks scheduled, instance has {len(lengths)}")]
    out = [Violation("half-placed", task_name(instance, t), "has a processor or a start but not both")
           for t in range(len(lengths)) if (schedule.machine[t] is None) != (schedule.start[t] is None)]
    if out:
        return out
    runs = [t for t in range(len(lengths)) if schedule.start[t] is not None]
    placed = Schedule(tuple(schedule.machine[t] for t in runs), tuple(schedule.start[t] for t in runs))
    out = check_machines([lengths[t] for t in runs], instance.processors, placed,
                         lambda i: task_name(instance, runs[i]))
    if out:
        return out
    for j, job in enumerate(instance.jobs):
        for g in range(1, len(job.stages)):
            before = instance.stage_slice(j, g - 1)
            for t in instance.stage_slice(j, g):
                if schedule.start[t] is None:
                    continue
                for b in before:
                    if schedule.start[b] is None:
                        out.append(Violation("precedence", task_name(instance, t),
                                             f"runs, but {task_name(instance, b)} of the previous stage never does"))
                    elif schedule.start[b] + lengths[b] > schedule.start[t]:
                        out.append(Violation("precedence", task_name(instance, t),
                                             f"starts at {schedule.start[t]} before {task_name(instance, b)} "
                                             f"ends at {schedule.start[b] + lengths[b]}"))
    return out
