"""P||Cmax instances (SPEC.md, family ``pcmax``)."""

from dataclasses import dataclass, field
from typing import Any

from schedbench.errors import ScheduleFormatError
from schedbench.model import fields
from schedbench.schedule import Schedule

FAMILY = "pcmax"
OBJECTIVES = ("makespan",)


@dataclass(frozen=True)
class PcmaxInstance:
    machines: int
    jobs: tuple[int, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    @property
    def lengths(self) -> tuple[int, ...]:
        """Job lengths in flat job order (the order schedules use)."""
        return self.jobs


def size(instance: PcmaxInstance) -> fields.Size:
    """Jobs and machines: what the worst-case search bounds."""
    return fields.Size(len(instance.jobs), instance.machines)


def parse(obj: dict) -> PcmaxInstance:
    machines = fields.count(fields.required(obj, "machines", ""), "machines")
    jobs = fields.json_list(fields.required(obj, "jobs", ""), "jobs")
    lengths = tuple(fields.length(p, f"jobs[{j}]") for j, p in enumerate(jobs))
    fields.total(lengths, "jobs", "total work")
    return PcmaxInstance(machines, lengths, str(obj.get("name", "")), fields.meta(obj))


def to_json(instance: PcmaxInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(machines=instance.machines, jobs=list(instance.jobs))
    return out


def schedule_to_json(instance: PcmaxInstance, schedule: Schedule) -> dict[str, Any]:
    return {"jobs": [{"machine": q, "start": s} for q, s in zip(schedule.machine, schedule.start)]}


def schedule_from_json(instance: PcmaxInstance, obj: Any) -> Schedule:
    from schedbench.model.schedule_json import read_job_list

    if not isinstance(obj, dict) or "jobs" not in obj:
        raise ScheduleFormatError("jobs", "a pcmax schedule is an object with a 'jobs' list")
    machine, start = read_job_list(obj["jobs"], len(instance.jobs), "jobs")
    return Schedule(tuple(machine), tuple(start))
