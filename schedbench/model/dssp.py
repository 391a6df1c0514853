"""Disconnected staged scheduling instances (the format reference, family ``dssp``).

Tasks are numbered flat, job by job and stage by stage: ``task_slice(j)``
are job j's tasks and ``stage_slice(j, g)`` those of its stage g. A
schedule gives every task a processor and a start, or ``None`` for both
when the task does not run (jobs need not run; a job earns its reward only
if every task completes by the deadline). Schedule files list, per job,
``null`` (not run) or its stages' tasks as ``{processor, start}`` or
``null``.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from schedbench.errors import ScheduleFormatError
from schedbench.model import fields
from schedbench.model.shape import COUNT, LENGTH, NONNEGATIVE, AnyInteger, Key, List, Nullable, Record, header
from schedbench.schedule import Schedule

FAMILY = "dssp"
OBJECTIVES = ("reward",)
MAXIMIZED = ("reward",)  # objectives maximised (the others are minimised)
JOB = Record((
    Key("reward", NONNEGATIVE, doc="Earned if every task of the job completes by the deadline."),
    Key("stages", List(List(LENGTH, min_items=1), min_items=1),
        doc="The stages in order, each a non-empty list of task lengths; a stage starts when the previous ends."),
))
INSTANCE = header(FAMILY, (
    Key("processors", COUNT, doc="P, the number of identical processors."),
    Key("deadline", NONNEGATIVE, doc="D, the common deadline."),
    Key("jobs", List(JOB), doc="The jobs (may be empty)."),
))
TASK_PLACEMENT = Record((Key("processor", AnyInteger(), doc="The processor index, from 0."),
                         Key("start", AnyInteger(), doc="The start time.")))
SCHEDULE = Record((Key("jobs", List(Nullable(Record((
    Key("stages", List(List(Nullable(TASK_PLACEMENT))), doc="Per stage, per task: its placement, or null."),
)))), doc="Per job: null when it does not run, else its stages' tasks."),))


def critical_path(stages: tuple[tuple[int, ...], ...]) -> int:
    """T_inf: stages run one after another, tasks of a stage in parallel."""
    return sum(max(stage) for stage in stages)


@dataclass(frozen=True)
class Job:
    reward: int
    stages: tuple[tuple[int, ...], ...]

    @cached_property
    def work(self) -> int:
        """T_1: the job's total processing time."""
        return sum(sum(stage) for stage in self.stages)

    @cached_property
    def critical_path(self) -> int:
        return critical_path(self.stages)

    @cached_property
    def remaining_critical_path(self) -> tuple[int, ...]:
        """``[g]``: the critical path of stages g, g + 1, ... (LCPF's alternative reading)."""
        out = [0]
        for stage in reversed(self.stages):
            out.append(out[-1] + max(stage))
        return tuple(reversed(out[1:]))


@dataclass(frozen=True)
class DsspInstance:
    """Disconnected staged scheduling: ``processors``, the common
    ``deadline`` and the ``jobs`` (each a ``Job`` with its ``reward`` and
    ``stages``, tuples of task lengths). Tasks are numbered flat:
    ``lengths``, ``task_slice(j)``, ``stage_slice(j, g)``."""

    processors: int
    deadline: int
    jobs: tuple[Job, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    @cached_property
    def _offsets(self) -> tuple[tuple[int, ...], ...]:
        """Per job, the flat index where each of its stages starts, then its end."""
        out, at = [], 0
        for job in self.jobs:
            starts = []
            for stage in job.stages:
                starts.append(at)
                at += len(stage)
            out.append((*starts, at))
        return tuple(out)

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        """Task lengths in flat task order (the order schedules use), built once."""
        return tuple(p for job in self.jobs for stage in job.stages for p in stage)

    def task_slice(self, j: int) -> range:
        return range(self._offsets[j][0], self._offsets[j][-1])

    def stage_slice(self, j: int, g: int) -> range:
        return range(self._offsets[j][g], self._offsets[j][g + 1])

    @cached_property
    def job_of_task(self) -> tuple[int, ...]:
        return tuple(j for j in range(len(self.jobs)) for _ in self.task_slice(j))

    @cached_property
    def max_critical_path(self) -> int:
        """T_inf^max."""
        return max((job.critical_path for job in self.jobs), default=0)


def size(instance: DsspInstance) -> fields.Size:
    """Tasks and processors: what the worst-case search bounds."""
    return fields.Size(len(instance.lengths), instance.processors)


def parse(obj: dict) -> DsspInstance:
    """The instance of a document that matches ``INSTANCE``."""
    jobs = tuple(Job(raw["reward"], tuple(tuple(stage) for stage in raw["stages"])) for raw in obj["jobs"])
    fields.total((p for job in jobs for stage in job.stages for p in stage), "jobs", "total work")
    fields.total((job.reward for job in jobs), "jobs", "total reward")
    fields.total([obj["processors"] * obj["deadline"]], "processors", "capacity P x deadline")
    return DsspInstance(obj["processors"], obj["deadline"], jobs, INSTANCE.value(obj, "name"), fields.meta(obj))


def to_json(instance: DsspInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(processors=instance.processors, deadline=instance.deadline,
               jobs=[{"reward": job.reward, "stages": [list(stage) for stage in job.stages]} for job in instance.jobs])
    return out


def schedule_to_json(instance: DsspInstance, schedule: Schedule) -> dict[str, Any]:
    def task(t: int):
        if schedule.start[t] is None:
            return None
        return {"processor": schedule.machine[t], "start": schedule.start[t]}

    jobs = []
    for j, job in enumerate(instance.jobs):
        if all(schedule.start[t] is None for t in instance.task_slice(j)):
            jobs.append(None)
        else:
            jobs.append({"stages": [[task(t) for t in instance.stage_slice(j, g)] for g in range(len(job.stages))]})
    return {"jobs": jobs}


def schedule_from_json(instance: DsspInstance, obj: dict) -> Schedule:
    """The schedule of a document that matches ``SCHEDULE``; whether it is
    feasible is the validator's question."""
    if len(obj["jobs"]) != len(instance.jobs):
        raise ScheduleFormatError("jobs", f"has {len(obj['jobs'])} jobs, the instance has {len(instance.jobs)}")
    placed: list[dict | None] = []
    for j, (raw, job) in enumerate(zip(obj["jobs"], instance.jobs)):
        if raw is None:
            placed += [None] * len(instance.task_slice(j))
            continue
        if len(raw["stages"]) != len(job.stages):
            raise ScheduleFormatError(f"jobs[{j}].stages", f"must list the job's {len(job.stages)} stages")
        for g, (tasks, lengths) in enumerate(zip(raw["stages"], job.stages)):
            if len(tasks) != len(lengths):
                raise ScheduleFormatError(f"jobs[{j}].stages[{g}]", f"must list the stage's {len(lengths)} tasks")
            placed += tasks
    return Schedule(tuple(None if task is None else task["processor"] for task in placed),
                    tuple(None if task is None else task["start"] for task in placed))
