"""DAG workflow instances (the format reference, family ``workflow``; P-SLR paper §2).

Tasks are numbered flat, job by job; ``task_slice(k)`` are job k's. Each
job's DAG is a networkx ``DiGraph`` over its local task indexes, with
``exec`` as node weight. Rejected with the field named: a successor index
outside the job, a cycle, a kind no cluster offers, more cores than every
cluster of the task's kind has. A schedule gives each task a cluster and a
start; schedule files list, per job, its tasks' ``{cluster, start}``.

Placement (the format reference, P-SLR paper §2.3): the tasks of one job that share a kind
run on one cluster (``placement_groups``); ``"colocate": false`` lets each
task pick its own.

Optional keys for simulations (the paper's platform and users, §2.3, §2.4, §4.2):
- ``"network"``: the router tree as nested lists whose leaves are the
  cluster indexes, each exactly once (the paper's Fig. 1 is
  ``[[0, 1], [2, 3]]``); default, every cluster under the root router.
- job ``"user"``: who submitted it (a string); default, each job its own user.
- ``"shares"``: the Fair Share tree, ``{"name": {"share": s, "parent": "name"}}``
  (``parent`` omitted at the top); every job's user must be a node of it.
  Default, every user with share 1 under the root.
A schedule made by a simulation with network delays carries them
(``"network": {"ccr": [num, den], "exponent": p}``), so the validator can
check the delays it promised.
"""

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from math import ceil
from typing import Any

import networkx as nx

from schedbench.errors import BeyondSchemaError, ScheduleFormatError
from schedbench.model import fields
from schedbench.model.schedule_json import placements, read_job_list
from schedbench.model.shape import (COUNT, LENGTH, NONNEGATIVE, Boolean, Integer, Key, List, Mapping, Nullable,
                                    Record, Text, Tree, header)
from schedbench.schedule import Schedule

FAMILY = "workflow"
OBJECTIVES = ("max-slr",)
#: Deepest router tree accepted (a deeper one is surely a malformed file).
MAX_DEPTH = 64
#: Largest |p| of the network speed levels^p.
MAX_EXPONENT = 8
TASK = Record((
    Key("exec", LENGTH, doc="Execution time."),
    Key("cores", COUNT, doc="Cores it needs, all on one cluster of its kind."),
    Key("kind", Text(), doc="The kind of cluster it runs on."),
    Key("succ", List(Integer(0)), doc="Indexes of its successors among the job's tasks (the DAG is acyclic)."),
))
JOB = Record((
    Key("arrival", NONNEGATIVE, doc="No task of the job starts before it."),
    Key("user", Nullable(Text()), required=False, doc="Who submitted it (simulations); default, the job itself."),
    Key("tasks", List(TASK, min_items=1), doc="The job's tasks; succ indexes refer to this list."),
))
SHARE = Record((
    Key("share", COUNT, doc="The node's Fair Share weight."),
    Key("parent", Nullable(Text()), required=False, doc="The node above it; absent at the top."),
))
INSTANCE = header(FAMILY, (
    Key("clusters", List(Record((Key("cores", COUNT, doc="The cluster's cores."),
                                 Key("kind", Text(), doc="Its kind (architecture)."))), min_items=1),
        doc="The clusters."),
    Key("jobs", List(JOB), doc="The jobs, each a DAG of tasks."),
    Key("colocate", Boolean(), required=False, default=True,
        doc="The placement rule: a job's tasks of one kind run on one cluster."),
    Key("network", Nullable(Tree(Integer(0, fields.MAX_COUNT), MAX_DEPTH)), required=False,
        doc="The router tree (simulations): nested lists whose leaves are the cluster indexes, each once."),
    Key("shares", Nullable(Mapping(SHARE)), required=False,
        doc="The Fair Share tree (simulations): node name -> {share, parent}; every job's user is a node."),
))
NETWORK = Record((
    Key("ccr", List(Integer(-fields.MAX_VALUE, fields.MAX_VALUE), min_items=2, max_items=2),
        doc="The computation-to-communication ratio as [numerator, denominator], in (0, 1]."),
    Key("exponent", Integer(-MAX_EXPONENT, MAX_EXPONENT), required=False, default=-1,
        doc="p in speed = levels^p."),
))
SCHEDULE = Record((
    Key("jobs", List(Record((Key("tasks", placements("cluster"), doc="Per task, its cluster and start."),))),
        doc="Per job, in the instance's order."),
    Key("network", Nullable(NETWORK), required=False, doc="The network delays the schedule was made under."),
))


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
    user: str | None = None

    @cached_property
    def graph(self) -> nx.DiGraph:
        dag = nx.DiGraph()
        dag.add_nodes_from((i, {"exec": t.exec}) for i, t in enumerate(self.tasks))
        dag.add_edges_from((i, s) for i, t in enumerate(self.tasks) for s in t.succ)
        return dag


@dataclass(frozen=True)
class Network:
    """The thin-tree delay model of §2.4. Data sent by a task to a successor
    on another cluster: T_data = T_exec / CCR * (1 - CCR) (Eq. 4, as printed:
    CCR = 1 sends nothing, CCR = 0.2 four times the execution time);
    speed = levels^p with levels the routers between each cluster and their
    common parent, the larger of the two (Eq. 3; p < 0 makes higher levels
    slower, as §2.4 describes); delay = T_data / speed (Eq. 5), rounded up to
    whole time units since starts are integers."""

    ccr: Fraction
    exponent: int = -1

    def __post_init__(self) -> None:
        if not 0 < self.ccr <= 1:
            raise ValueError(f"CCR must be in (0, 1], got {self.ccr}")
        if abs(self.exponent) > MAX_EXPONENT:
            raise ValueError(f"the network exponent must be in [-{MAX_EXPONENT}, {MAX_EXPONENT}], got {self.exponent}")

    def delay(self, exec_time: int, levels: int) -> int:
        """Time for a task of ``exec_time`` to send its data ``levels`` up (0: same cluster)."""
        if levels == 0:
            return 0
        data = Fraction(exec_time) * (1 - self.ccr) / self.ccr
        return ceil(data / Fraction(levels) ** self.exponent)

    def to_json(self) -> dict[str, Any]:
        return {"ccr": [self.ccr.numerator, self.ccr.denominator], "exponent": self.exponent}


@dataclass(frozen=True)
class WorkflowInstance:
    """DAG workflows: the ``clusters`` (each a ``Cluster`` with ``cores`` and
    ``kind``) and the ``jobs`` (each a ``WorkflowJob`` with ``arrival``,
    ``tasks`` and its DAG as ``graph``; a ``Task`` has ``exec``, ``cores``,
    ``kind`` and ``succ``). Tasks are numbered flat: ``tasks``,
    ``task_slice(k)``, ``placement_groups``; ``colocate``, ``network`` and
    ``shares`` as in the format reference."""

    clusters: tuple[Cluster, ...]
    jobs: tuple[WorkflowJob, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    network: tuple = ()                                  # nested tuples of cluster indexes; () = flat
    shares: tuple[tuple[str, int, str | None], ...] = ()  # (node, share, parent); () = flat, share 1
    colocate: bool = True                                # the format's placement rule

    family = FAMILY

    @cached_property
    def placement_groups(self) -> tuple[tuple[int, ...], ...]:
        """Flat task indexes that must run on one cluster: per job, its tasks
        of one kind (kinds in order of first appearance); each task alone
        when ``colocate`` is false."""
        if not self.colocate:
            return tuple((t,) for t in range(len(self.tasks)))
        out = []
        for k, job in enumerate(self.jobs):
            by_kind: dict[str, list[int]] = {}
            for t, task in zip(self.task_slice(k), job.tasks):
                by_kind.setdefault(task.kind, []).append(t)
            out += [tuple(group) for group in by_kind.values()]
        return tuple(out)

    @cached_property
    def group_of_task(self) -> tuple[int, ...]:
        """Per flat task, its index in ``placement_groups``."""
        out = [0] * len(self.tasks)
        for g, group in enumerate(self.placement_groups):
            for t in group:
                out[t] = g
        return tuple(out)

    def group_width(self, g: int) -> int:
        """Cores a cluster needs to host placement group g: its widest task."""
        return max(self.tasks[t].cores for t in self.placement_groups[g])

    @cached_property
    def _offsets(self) -> tuple[int, ...]:
        out = [0]
        for job in self.jobs:
            out.append(out[-1] + len(job.tasks))
        return tuple(out)

    @cached_property
    def tasks(self) -> tuple[Task, ...]:
        """Tasks in flat order (the order schedules use)."""
        return tuple(t for job in self.jobs for t in job.tasks)

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        """Task execution times in flat order, as the other families' job lengths."""
        return tuple(t.exec for t in self.tasks)

    def task_slice(self, k: int) -> range:
        return range(self._offsets[k], self._offsets[k + 1])

    @cached_property
    def job_of_task(self) -> tuple[int, ...]:
        return tuple(k for k in range(len(self.jobs)) for _ in self.task_slice(k))

    @cached_property
    def router_tree(self) -> tuple:
        return self.network or tuple(range(len(self.clusters)))

    @cached_property
    def cluster_paths(self) -> tuple[tuple[int, ...], ...]:
        """Per cluster, the child indexes leading to it from the root router."""
        paths: dict[int, tuple[int, ...]] = {}

        def walk(node, path):
            if isinstance(node, int):
                paths[node] = path
            else:
                for i, child in enumerate(node):
                    walk(child, path + (i,))

        walk(self.router_tree, ())
        return tuple(paths[c] for c in range(len(self.clusters)))

    def levels_to_common(self, a: int, b: int) -> int:
        """max_levels_to_common of Eq. 3: 0 for the same cluster."""
        if a == b:
            return 0
        pa, pb = self.cluster_paths[a], self.cluster_paths[b]
        common = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))
        return max(len(pa), len(pb)) - common

    def data_delay(self, network: "Network | None", t: int, source: int, target: int) -> int:
        """How long task t's data takes from cluster ``source`` to a successor
        on cluster ``target`` (0 without a network or on the same cluster)."""
        return 0 if network is None else network.delay(self.tasks[t].exec, self.levels_to_common(source, target))

    @cached_property
    def share_paths(self) -> tuple[tuple[Any, ...], ...]:
        """Per job, its Fair Share nodes from the top group down to its user.
        Without ``shares``, the user alone (a job without a user is its own,
        named by its index, which no string name can equal)."""
        parent = {name: up for name, _, up in self.shares}
        out = []
        for k, job in enumerate(self.jobs):
            node: Any = job.user if job.user is not None else k
            path = [node]
            while parent.get(path[-1]) is not None:
                path.append(parent[path[-1]])
            out.append(tuple(reversed(path)))
        return tuple(out)

    @cached_property
    def share_of(self) -> dict[Any, int]:
        """Share of every Fair Share node (1 for the implicit flat users)."""
        return {name: share for name, share, _ in self.shares}


def size(instance: WorkflowInstance) -> fields.Size:
    """Tasks and clusters: what the worst-case search bounds."""
    return fields.Size(len(instance.tasks), len(instance.clusters))


def parse(obj: dict) -> WorkflowInstance:
    """The instance of a document that matches ``INSTANCE``: kinds offered,
    cores available, succ indexes inside their job, acyclic DAGs, users in
    the share tree."""
    clusters = tuple(Cluster(raw["cores"], raw["kind"]) for raw in obj["clusters"])
    widest: dict[str, int] = {}
    for cluster in clusters:
        widest[cluster.kind] = max(widest.get(cluster.kind, 0), cluster.cores)
    shares = _shares(INSTANCE.value(obj, "shares") or {})
    jobs = tuple(_job(raw, f"jobs[{k}]", widest, {name for name, _, _ in shares}) for k, raw in enumerate(obj["jobs"]))
    fields.total((task.exec for job in jobs for task in job.tasks), "jobs", "total work")
    fields.total((job.arrival for job in jobs), "jobs", "total of the arrivals")
    network = _network(obj["network"], len(clusters)) if obj.get("network") is not None else ()
    return WorkflowInstance(clusters, jobs, INSTANCE.value(obj, "name"), fields.meta(obj),
                            network, shares, INSTANCE.value(obj, "colocate"))


def _job(raw: dict, where: str, widest: dict[str, int], share_names: set[str]) -> WorkflowJob:
    user = raw.get("user")
    if user is not None and share_names and user not in share_names:
        raise BeyondSchemaError(f"{where}.user", f"{user!r} is not a node of shares")
    if user is None and share_names:
        raise BeyondSchemaError(f"{where}.user", "is missing (with shares, every job names its user)")
    entries = raw["tasks"]
    job = WorkflowJob(raw["arrival"], tuple(_task(t, f"{where}.tasks[{i}]", len(entries), widest)
                                            for i, t in enumerate(entries)), user)
    if not nx.is_directed_acyclic_graph(job.graph):
        cycle = [u for u, _ in nx.find_cycle(job.graph)]
        raise BeyondSchemaError(f"{where}.tasks", f"the succ lists form a cycle through tasks {cycle}")
    return job


def _task(raw: dict, where: str, count: int, widest: dict[str, int]) -> Task:
    kind, cores = raw["kind"], raw["cores"]
    if kind not in widest:
        raise BeyondSchemaError(f"{where}.kind", f"no cluster offers kind {kind!r} (kinds: {', '.join(sorted(widest))})")
    if cores > widest[kind]:
        raise BeyondSchemaError(f"{where}.cores", f"{cores} cores, but the largest {kind} cluster has {widest[kind]}")
    for s, index in enumerate(raw["succ"]):
        if index >= count:
            raise BeyondSchemaError(f"{where}.succ[{s}]", f"must be a task index of the same job in 0..{count - 1}, "
                                                      f"got {index!r}")
    return Task(raw["exec"], cores, kind, tuple(raw["succ"]))


def _network(raw: list, clusters: int) -> tuple:
    """The router tree: every cluster index exactly once as a leaf."""
    seen: set[int] = set()

    def node(value: Any, where: str):
        if isinstance(value, int):
            if value >= clusters:
                raise BeyondSchemaError(where, f"must be a cluster index in 0..{clusters - 1}, got {value}")
            if value in seen:
                raise BeyondSchemaError(where, f"cluster {value} appears twice in the tree")
            seen.add(value)
            return value
        return tuple(node(child, f"{where}[{i}]") for i, child in enumerate(value))

    tree = node(raw, "network")
    if len(seen) != clusters:
        missing = sorted(set(range(clusters)) - seen)
        raise BeyondSchemaError("network", f"clusters {missing} are not in the tree")
    return tree


def _shares(raw: dict) -> tuple[tuple[str, int, str | None], ...]:
    """The Fair Share tree: parents that exist, no cycle."""
    nodes = []
    for name, entry in raw.items():
        parent = entry.get("parent")
        if parent is not None and parent not in raw:
            raise BeyondSchemaError(f"shares.{name}.parent", f"{parent!r} is not a node of shares")
        nodes.append((name, entry["share"], parent))
    parent_of = {name: parent for name, _, parent in nodes}
    for name in parent_of:
        seen, node = {name}, parent_of[name]
        while node is not None:
            if node in seen:
                raise BeyondSchemaError(f"shares.{name}.parent", f"the parents form a cycle through {node!r}")
            seen.add(node)
            node = parent_of[node]
    return tuple(nodes)


def _tree_json(node) -> Any:
    return node if isinstance(node, int) else [_tree_json(child) for child in node]


def to_json(instance: WorkflowInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out["clusters"] = [{"cores": c.cores, "kind": c.kind} for c in instance.clusters]
    if not instance.colocate:
        out["colocate"] = False
    if instance.network:
        out["network"] = _tree_json(instance.network)
    if instance.shares:
        out["shares"] = {name: {"share": share, **({"parent": up} if up is not None else {})}
                         for name, share, up in instance.shares}
    out["jobs"] = [{"arrival": job.arrival, **({"user": job.user} if job.user is not None else {}),
                    "tasks": [{"exec": t.exec, "cores": t.cores, "kind": t.kind, "succ": list(t.succ)}
                              for t in job.tasks]} for job in instance.jobs]
    return out


@dataclass(frozen=True)
class WorkflowSchedule(Schedule):
    """A schedule and the network delays it was made under (None: none)."""

    network: Network | None = None


def schedule_to_json(instance: WorkflowInstance, schedule: Schedule) -> dict[str, Any]:
    out: dict[str, Any] = {"jobs": [{"tasks": [{"cluster": schedule.machine[t], "start": schedule.start[t]}
                                               for t in instance.task_slice(k)]} for k in range(len(instance.jobs))]}
    network = getattr(schedule, "network", None)
    if network is not None:
        out["network"] = network.to_json()
    return out


def schedule_from_json(instance: WorkflowInstance, obj: dict) -> WorkflowSchedule:
    """The schedule of a document that matches ``SCHEDULE``; whether it is
    feasible is the validator's question."""
    if len(obj["jobs"]) != len(instance.jobs):
        raise ScheduleFormatError("jobs", f"has {len(obj['jobs'])} jobs, the instance has {len(instance.jobs)}")
    cluster: list[int] = []
    start: list[int] = []
    for k, raw in enumerate(obj["jobs"]):
        q, s = read_job_list(raw["tasks"], len(instance.jobs[k].tasks), f"jobs[{k}].tasks", place="cluster")
        cluster += q
        start += s
    network = _network_of_schedule(obj["network"]) if obj.get("network") is not None else None
    return WorkflowSchedule(tuple(cluster), tuple(start), network)


def _network_of_schedule(raw: dict) -> Network:
    numerator, denominator = raw["ccr"]
    if denominator <= 0 or not 0 < Fraction(numerator, denominator) <= 1:
        raise ScheduleFormatError("network.ccr", f"must be [numerator, denominator] in (0, 1], got {raw['ccr']!r}")
    return Network(Fraction(numerator, denominator), NETWORK.value(raw, "exponent"))
