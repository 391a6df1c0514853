"""Disconnected staged scheduling instances (SPEC.md, family ``dssp``).

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
from schedbench.schedule import Schedule

FAMILY = "dssp"
OBJECTIVES = ("reward",)
MAXIMIZED = ("reward",)  # objectives maximised (the others are minimised)


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
    processors = fields.count(fields.required(obj, "processors", ""), "processors")
    deadline = fields.nonnegative(fields.required(obj, "deadline", ""), "deadline")
    jobs = []
    for j, raw in enumerate(fields.json_list(fields.required(obj, "jobs", ""), "jobs", non_empty=False)):
        where = f"jobs[{j}]"
        fields.json_object(raw, where)
        reward = fields.nonnegative(fields.required(raw, "reward", where), f"{where}.reward")
        stages = []
        for g, stage in enumerate(fields.json_list(fields.required(raw, "stages", where), f"{where}.stages")):
            at = f"{where}.stages[{g}]"
            stages.append(tuple(fields.length(p, f"{at}[{i}]") for i, p in enumerate(fields.json_list(stage, at))))
        jobs.append(Job(reward, tuple(stages)))
    fields.total((p for job in jobs for stage in job.stages for p in stage), "jobs", "total work")
    fields.total((job.reward for job in jobs), "jobs", "total reward")
    fields.total([processors * deadline], "processors", "capacity P x deadline")
    return DsspInstance(processors, deadline, tuple(jobs), str(obj.get("name", "")), fields.meta(obj))


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


def schedule_from_json(instance: DsspInstance, obj: Any) -> Schedule:
    """Shape and types only; whether it is feasible is the validator's question."""
    if not isinstance(obj, dict) or not isinstance(obj.get("jobs"), list):
        raise ScheduleFormatError("jobs", "a dssp schedule is an object with a 'jobs' list")
    if len(obj["jobs"]) != len(instance.jobs):
        raise ScheduleFormatError("jobs", f"has {len(obj['jobs'])} jobs, the instance has {len(instance.jobs)}")
    machine: list[int | None] = []
    start: list[int | None] = []
    for j, (raw, job) in enumerate(zip(obj["jobs"], instance.jobs)):
        if raw is None:
            machine += [None] * len(instance.task_slice(j))
            start += [None] * len(instance.task_slice(j))
            continue
        stages = raw.get("stages") if isinstance(raw, dict) else None
        if not isinstance(stages, list) or len(stages) != len(job.stages):
            raise ScheduleFormatError(f"jobs[{j}].stages", f"must list the job's {len(job.stages)} stages")
        for g, (tasks, lengths) in enumerate(zip(stages, job.stages)):
            where = f"jobs[{j}].stages[{g}]"
            if not isinstance(tasks, list) or len(tasks) != len(lengths):
                raise ScheduleFormatError(where, f"must list the stage's {len(lengths)} tasks")
            for i, task in enumerate(tasks):
                if task is None:
                    machine.append(None)
                    start.append(None)
                    continue
                if not isinstance(task, dict):
                    raise ScheduleFormatError(f"{where}[{i}]", "must be null or {processor, start}")
                machine.append(_integer(task, "processor", f"{where}[{i}]"))
                start.append(_integer(task, "start", f"{where}[{i}]"))
    return Schedule(tuple(machine), tuple(start))


def _integer(task: dict, key: str, where: str) -> int:
    value = task.get(key)
    if not fields.is_int(value) or value < 0:
        raise ScheduleFormatError(f"{where}.{key}", f"must be an integer >= 0, got {value!r}")
    return value
