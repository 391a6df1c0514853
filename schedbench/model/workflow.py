"""DAG workflow instances (SPEC.md, family ``workflow``; P-SLR paper §2).

Tasks are numbered flat, job by job; ``task_slice(k)`` are job k's. Each
job's DAG is a networkx ``DiGraph`` over its local task indexes, with
``exec`` as node weight. Rejected with the field named: a successor index
outside the job, a cycle, a kind no cluster offers, more cores than every
cluster of the task's kind has. A schedule gives each task a cluster and a
start; schedule files list, per job, its tasks' ``{cluster, start}``.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx

from schedbench.errors import InstanceError, ScheduleFormatError
from schedbench.model import fields
from schedbench.model.schedule_json import read_job_list
from schedbench.schedule import Schedule

FAMILY = "workflow"
OBJECTIVES = ("max-slr",)


@dataclass(frozen=True)
class Cluster:
    cores: int
    kind: str


@dataclass(frozen=True)
class Task:
    exec: int
    cores: int
    kind: str
    succ: tuple[int, ...]


@dataclass(frozen=True)
class WorkflowJob:
    arrival: int
    tasks: tuple[Task, ...]

    @cached_property
    def graph(self) -> nx.DiGraph:
        dag = nx.DiGraph()
        dag.add_nodes_from((i, {"exec": t.exec}) for i, t in enumerate(self.tasks))
        dag.add_edges_from((i, s) for i, t in enumerate(self.tasks) for s in t.succ)
        return dag


@dataclass(frozen=True)
class WorkflowInstance:
    clusters: tuple[Cluster, ...]
    jobs: tuple[WorkflowJob, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    @cached_property
    def _offsets(self) -> tuple[int, ...]:
        out = [0]
        for job in self.jobs:
            out.append(out[-1] + len(job.tasks))
        return tuple(out)

    @property
    def tasks(self) -> tuple[Task, ...]:
        """Tasks in flat order (the order schedules use)."""
        return tuple(t for job in self.jobs for t in job.tasks)

    def task_slice(self, k: int) -> range:
        return range(self._offsets[k], self._offsets[k + 1])

    @cached_property
    def job_of_task(self) -> tuple[int, ...]:
        return tuple(k for k in range(len(self.jobs)) for _ in self.task_slice(k))


def _kind(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InstanceError(where, f"must be a non-empty string, got {value!r}")
    return value


def parse(obj: dict) -> WorkflowInstance:
    clusters = []
    for c, raw in enumerate(fields.json_list(fields.required(obj, "clusters", ""), "clusters")):
        where = f"clusters[{c}]"
        fields.json_object(raw, where)
        clusters.append(Cluster(fields.count(fields.required(raw, "cores", where), f"{where}.cores"),
                                _kind(fields.required(raw, "kind", where), f"{where}.kind")))
    widest: dict[str, int] = {}
    for cluster in clusters:
        widest[cluster.kind] = max(widest.get(cluster.kind, 0), cluster.cores)
    jobs = []
    for k, raw in enumerate(fields.json_list(fields.required(obj, "jobs", ""), "jobs", non_empty=False)):
        where = f"jobs[{k}]"
        fields.json_object(raw, where)
        arrival = fields.nonnegative(fields.required(raw, "arrival", where), f"{where}.arrival")
        entries = fields.json_list(fields.required(raw, "tasks", where), f"{where}.tasks")
        jobs.append(WorkflowJob(arrival, tuple(_task(t, f"{where}.tasks[{i}]", len(entries), widest)
                                               for i, t in enumerate(entries))))
        if not nx.is_directed_acyclic_graph(jobs[-1].graph):
            cycle = [u for u, _ in nx.find_cycle(jobs[-1].graph)]
            raise InstanceError(f"{where}.tasks", f"the succ lists form a cycle through tasks {cycle}")
    return WorkflowInstance(tuple(clusters), tuple(jobs), str(obj.get("name", "")), dict(obj.get("meta", {}) or {}))


def _task(raw: Any, where: str, count: int, widest: dict[str, int]) -> Task:
    fields.json_object(raw, where)
    exec_time = fields.length(fields.required(raw, "exec", where), f"{where}.exec")
    cores = fields.count(fields.required(raw, "cores", where), f"{where}.cores")
    kind = _kind(fields.required(raw, "kind", where), f"{where}.kind")
    if kind not in widest:
        raise InstanceError(f"{where}.kind", f"no cluster offers kind {kind!r} (kinds: {', '.join(sorted(widest))})")
    if cores > widest[kind]:
        raise InstanceError(f"{where}.cores", f"{cores} cores, but the largest {kind} cluster has {widest[kind]}")
    succ = fields.json_list(raw.get("succ", []), f"{where}.succ", non_empty=False)
    for s, index in enumerate(succ):
        if not fields.is_int(index) or not 0 <= index < count:
            raise InstanceError(f"{where}.succ[{s}]", f"must be a task index of the same job in 0..{count - 1}, "
                                                      f"got {index!r}")
    return Task(exec_time, cores, kind, tuple(succ))


def to_json(instance: WorkflowInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(clusters=[{"cores": c.cores, "kind": c.kind} for c in instance.clusters],
               jobs=[{"arrival": job.arrival,
                      "tasks": [{"exec": t.exec, "cores": t.cores, "kind": t.kind, "succ": list(t.succ)}
                                for t in job.tasks]} for job in instance.jobs])
    return out


def schedule_to_json(instance: WorkflowInstance, schedule: Schedule) -> dict[str, Any]:
    return {"jobs": [{"tasks": [{"cluster": schedule.machine[t], "start": schedule.start[t]}
                                for t in instance.task_slice(k)]} for k in range(len(instance.jobs))]}


def schedule_from_json(instance: WorkflowInstance, obj: Any) -> Schedule:
    """Shape and types only; whether it is feasible is the validator's question."""
    if not isinstance(obj, dict) or not isinstance(obj.get("jobs"), list) or len(obj["jobs"]) != len(instance.jobs):
        raise ScheduleFormatError("jobs", f"a workflow schedule is an object with a 'jobs' list of "
                                          f"{len(instance.jobs)} entries")
    cluster: list[int] = []
    start: list[int] = []
    for k, raw in enumerate(obj["jobs"]):
        tasks = raw.get("tasks") if isinstance(raw, dict) else None
        q, s = read_job_list(tasks, len(instance.jobs[k].tasks), f"jobs[{k}].tasks", place="cluster")
        cluster += q
        start += s
    return Schedule(tuple(cluster), tuple(start))
