"""Multi-organization scheduling instances (SPEC.md, family ``mosp``).

Jobs are numbered flat, organization by organization, and so are machines:
organization k owns machines ``machine_slice(k)`` of the m = sum m_k, and
its jobs are ``job_slice(k)``. A job may run on any machine.
Schedule files list, per organization, its jobs' ``{machine, start}`` with
global machine indexes.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from schedbench.errors import InstanceError, ScheduleFormatError
from schedbench.model import fields
from schedbench.schedule import Schedule

FAMILY = "mosp"
OBJECTIVES = ("makespan", "unconstrained-makespan")
LOCAL_OBJECTIVES = ("cmax", "sum_ci")
LOCAL_REFERENCES = ("optimal", "lpt", "spt")


@dataclass(frozen=True)
class Organization:
    machines: int
    jobs: tuple[int, ...]


@dataclass(frozen=True)
class MospInstance:
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


def _choice(obj: dict, key: str, allowed: tuple[str, ...], default: str | None = None) -> str:
    value = fields.required(obj, key, "") if default is None else obj.get(key, default)
    if value not in allowed:
        raise InstanceError(key, f"must be one of {', '.join(allowed)}, got {value!r}")
    return value


def size(instance: MospInstance) -> fields.Size:
    """Jobs and machines (all organizations): what the worst-case search bounds."""
    return fields.Size(len(instance.lengths), instance.machines)


def parse(obj: dict) -> MospInstance:
    raw = fields.json_list(fields.required(obj, "organizations", ""), "organizations")
    organizations = []
    for k, raw_org in enumerate(raw):
        where = f"organizations[{k}]"
        fields.json_object(raw_org, where)
        machines = fields.count(fields.required(raw_org, "machines", where), f"{where}.machines")
        jobs = fields.json_list(fields.required(raw_org, "jobs", where), f"{where}.jobs", non_empty=False)
        organizations.append(Organization(machines, tuple(fields.length(p, f"{where}.jobs[{j}]")
                                                          for j, p in enumerate(jobs))))
    fields.total((p for org in organizations for p in org.jobs), "organizations", "total work")
    selfish = obj.get("selfish", False)
    if not isinstance(selfish, bool):
        raise InstanceError("selfish", f"must be true or false, got {selfish!r}")
    return MospInstance(tuple(organizations), _choice(obj, "local_objective", LOCAL_OBJECTIVES),
                        _choice(obj, "local_reference", LOCAL_REFERENCES, "optimal"), selfish,
                        str(obj.get("name", "")), fields.meta(obj))


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


def schedule_from_json(instance: MospInstance, obj: Any) -> Schedule:
    from schedbench.model.schedule_json import read_job_list

    if not isinstance(obj, dict) or not isinstance(obj.get("organizations"), list):
        raise ScheduleFormatError("organizations", "a mosp schedule is an object with an 'organizations' list")
    if len(obj["organizations"]) != instance.n_organizations:
        raise ScheduleFormatError("organizations", f"has {len(obj['organizations'])} organizations, "
                                                   f"the instance has {instance.n_organizations}")
    machine: list[int] = []
    start: list[int] = []
    for k, raw in enumerate(obj["organizations"]):
        where = f"organizations[{k}]"
        if not isinstance(raw, dict):
            raise ScheduleFormatError(where, "must be an object with a 'jobs' list")
        q, s = read_job_list(raw.get("jobs"), len(instance.organizations[k].jobs), f"{where}.jobs")
        machine += q
        start += s
    return Schedule(tuple(machine), tuple(start))
