"""P||Cmax instances (the format reference, family ``pcmax``)."""

from dataclasses import dataclass, field
from typing import Any

from schedbench.model import fields
from schedbench.model.schedule_json import placements, read_job_list
from schedbench.model.shape import COUNT, LENGTH, Key, List, Record, header
from schedbench.schedule import Schedule

FAMILY = "pcmax"
OBJECTIVES = ("makespan",)
INSTANCE = header(FAMILY, (
    Key("machines", COUNT, doc="m, the number of identical machines."),
    Key("jobs", List(LENGTH, min_items=1), doc="The job lengths."),
))
SCHEDULE = Record((Key("jobs", placements(), doc="Per job, in the instance's order, its machine and start."),))


@dataclass(frozen=True)
class PcmaxInstance:
    """P||Cmax: ``machines`` identical machines and the ``jobs``' lengths
    (job j is ``jobs[j]``; schedules list jobs in this order)."""

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
    """The instance of a document that matches ``INSTANCE``."""
    lengths = tuple(obj["jobs"])
    fields.total(lengths, "jobs", "total work")
    return PcmaxInstance(obj["machines"], lengths, INSTANCE.value(obj, "name"), fields.meta(obj))


def to_json(instance: PcmaxInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(machines=instance.machines, jobs=list(instance.jobs))
    return out


def schedule_to_json(instance: PcmaxInstance, schedule: Schedule) -> dict[str, Any]:
    return {"jobs": [{"machine": q, "start": s} for q, s in zip(schedule.machine, schedule.start)]}


def schedule_from_json(instance: PcmaxInstance, obj: dict) -> Schedule:
    """The schedule of a document that matches ``SCHEDULE``."""
    machine, start = read_job_list(obj["jobs"], len(instance.jobs), "jobs")
    return Schedule(tuple(machine), tuple(start))
