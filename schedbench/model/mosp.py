"""Multi-organization scheduling instances (the format reference, family ``mosp``).

Jobs are numbered flat, organization by organization, and so are machines:
organization k owns machines ``machine_slice(k)`` of the m = sum m_k, and
its jobs are ``job_slice(k)``. A job may run on any machine.
Schedule files list, per organization, its jobs' ``{machine, start}`` with
global machine indexes.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from schedbench.errors import BeyondSchemaError, ScheduleFormatError
from schedbench.model import fields
from schedbench.model.schedule_json import placements, read_job_list
from schedbench.model.shape import COUNT, LENGTH, Boolean, Key, List, Record, Text, header
from schedbench.schedule import Schedule

FAMILY = "mosp"
OBJECTIVES = ("makespan", "unconstrained-makespan")
LOCAL_OBJECTIVES = ("cmax", "sum_ci")
LOCAL_REFERENCES = ("optimal", "lpt", "spt")
INSTANCE = header(FAMILY, (
    Key("local_objective", Text(LOCAL_OBJECTIVES),
        doc="What each organization's reference ref_k measures: its makespan or its sum of completion times."),
    Key("local_reference", Text(LOCAL_REFERENCES), required=False, default="optimal",
        doc="ref_k: the best possible value alone, or that of the LPT / SPT list schedule."),
    Key("selfish", Boolean(), required=False, default=False,
        doc="Also forbid a foreign job starting on k's machines before a job of k, and k's machines idle "
            "while a job of k waits."),
    Key("organizations", List(Record((
        Key("machines", COUNT, doc="m_k, the organization's own machines."),
        Key("jobs", List(LENGTH), doc="The organization's job lengths (may be empty)."),
    )), min_items=1), doc="The organizations, each with its machines and jobs."),
))
SCHEDULE = Record((Key("organizations", List(Record((
    Key("jobs", placements(), doc="Per job of the organization, a machine (global index) and a start."),
))), doc="Per organization, in the instance's order."),))


@dataclass(frozen=True)
class Organization:
    machines: int
    jobs: tuple[int, ...]


@dataclass(frozen=True)
class MospInstance:
    """Multi-organization scheduling: ``organizations`` (each an
    ``Organization`` with its ``machines`` and ``jobs``), the
    ``local_objective`` (``cmax`` or ``sum_ci``), the ``local_reference``
    and ``selfish``. Jobs and machines are numbered flat, organization by
    organization: ``lengths``, ``job_slice(k)``, ``machine_slice(k)``,
    ``owner_of_job``, ``owner_of_machine``."""

    organizations: tuple[Organization, ...]
    local_objective: str = "cmax"
    local_reference: str = "optimal"
    selfish: bool = False
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    @cached_property
    def _job_offsets(self) -> tuple[int, ...]:
        return _offsets(len(o.jobs) for o in self.organizations)

    @cached_property
    def _machine_offsets(self) -> tuple[int, ...]:
        return _offsets(o.machines for o in self.organizations)

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        """Job lengths in flat job order (the order schedules use), built once:
        the heuristics read it per job."""
        return tuple(p for o in self.organizations for p in o.jobs)

    @property
    def machines(self) -> int:
        return self._machine_offsets[-1]

    @property
    def n_organizations(self) -> int:
        return len(self.organizations)

    def job_slice(self, k: int) -> range:
        return range(self._job_offsets[k], self._job_offsets[k + 1])

    def machine_slice(self, k: int) -> range:
        return range(self._machine_offsets[k], self._machine_offsets[k + 1])

    @cached_property
    def owner_of_job(self) -> tuple[int, ...]:
        return tuple(k for k, o in enumerate(self.organizations) for _ in o.jobs)

    @cached_property
    def owner_of_machine(self) -> tuple[int, ...]:
        return tuple(k for k, o in enumerate(self.organizations) for _ in range(o.machines))


def _offsets(sizes) -> tuple[int, ...]:
    out = [0]
    for size in sizes:
        out.append(out[-1] + size)
    return tuple(out)


def size(instance: MospInstance) -> fields.Size:
    """Jobs and machines (all organizations): what the worst-case search bounds."""
    return fields.Size(len(instance.lengths), instance.machines)


def parse(obj: dict) -> MospInstance:
    """The instance of a document that matches ``INSTANCE``."""
    organizations = tuple(Organization(raw["machines"], tuple(raw["jobs"])) for raw in obj["organizations"])
    if not any(org.jobs for org in organizations):  # a makespan of nothing: no problem to solve
        raise BeyondSchemaError("organizations", "hold no job at all: at least one organization needs a job")
    fields.total((p for org in organizations for p in org.jobs), "organizations", "total work")
    return MospInstance(organizations, obj["local_objective"], INSTANCE.value(obj, "local_reference"),
                        INSTANCE.value(obj, "selfish"), INSTANCE.value(obj, "name"), fields.meta(obj))


def to_json(instance: MospInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(local_objective=instance.local_objective, local_reference=instance.local_reference,
               selfish=instance.selfish,
               organizations=[{"machines": o.machines, "jobs": list(o.jobs)} for o in instance.organizations])
    return out


def schedule_to_json(instance: MospInstance, schedule: Schedule) -> dict[str, Any]:
    return {"organizations": [{"jobs": [{"machine": schedule.machine[j], "start": schedule.start[j]}
                                        for j in instance.job_slice(k)]}
                              for k in range(instance.n_organizations)]}


def schedule_from_json(instance: MospInstance, obj: dict) -> Schedule:
    """The schedule of a document that matches ``SCHEDULE``."""
    if len(obj["organizations"]) != instance.n_organizations:
        raise ScheduleFormatError("organizations", f"has {len(obj['organizations'])} organizations, "
                                                   f"the instance has {instance.n_organizations}")
    machine: list[int] = []
    start: list[int] = []
    for k, raw in enumerate(obj["organizations"]):
        q, s = read_job_list(raw["jobs"], len(instance.organizations[k].jobs), f"organizations[{k}].jobs")
        machine += q
        start += s
    return Schedule(tuple(machine), tuple(start))
