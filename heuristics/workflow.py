"""Online list scheduling of DAG workflows (P-SLR paper §2.3, §2.4, §3, §4.2).

An event-driven simulation of the paper's platform:
- Allocation (§2.3): each job is cascaded down the router tree once per
  task kind it uses, so the tasks of a job that share a kind run on one
  cluster (the format's placement rule; once per task when ``colocate`` is false).
  At each router the child is drawn with probability proportional to the
  cores of that kind below it (the paper says "randomly"; drawing children
  uniformly, the option ``cascade = "uniform"``, would put half of the
  paper platform's Kind1 work on Cluster 1, loading it at 180% while
  Clusters 3 and 4 sit at 90%).
- A task is ready once its job has arrived and every predecessor has
  finished and, with a network (§2.4), its data has arrived: a predecessor
  on another cluster adds ``Network.delay``.
- Each cluster is a list scheduler in strict priority order: whenever its
  cores free up or a task becomes ready, it starts its highest-priority
  ready task if that task fits in its free cores, re-evaluates the
  priorities (Fair Share and P-SLR depend on the current state) and goes
  on; when the head of the queue does not fit, the cluster waits for cores
  to free up rather than start a lower-priority task. "The task where the
  P-SLR is largest is run first" (§3), and only so is P-SLR
  starvation-free for wide tasks: letting narrower tasks pass would let a
  stream of them hold a wide task back forever, under any policy.
Policies (§3, §4.2), ties broken by the order tasks became ready:
``random`` (a uniformly random ready task, seeded), ``fifo-task``
(the order tasks became ready), ``fifo-job`` (the order their jobs arrived),
``fair-share`` (the user whose groups, from the top of the share tree down,
use the fewest cores platform-wide relative to their share), ``srtf`` /
``lrtf`` (smallest / largest upward rank), ``pslr`` (Algorithm 1: the
largest projected SLR, Q being the cluster's queue).
SRTF, LRTF and P-SLR order by *estimated* execution times (§2.2) when
given; the true times drive execution. Every priority is compared exactly
(P-SLR's rationals are compared in floating point, then exactly among the
near-ties).
"""

import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from heapq import heappop, heappush

import numpy as np

from schedbench.errors import UserInputError
from schedbench.heuristics.workflow_estimates import NEGATIVE_DRAWS, log_rounding, normal_error
from schedbench.metrics.workflow import upward_ranks
from schedbench.model.options import exact, integer
from schedbench.model.shape import keys_of
from schedbench.model.workflow import Network, WorkflowInstance, WorkflowSchedule

POLICIES = ("random", "fifo-task", "fifo-job", "fair-share", "srtf", "lrtf", "pslr")
#: Policies that read execution-time estimates (the others ignore them, §5.1).
ESTIMATE_POLICIES = ("srtf", "lrtf", "pslr")


CASCADES = ("cores", "uniform")


def allocate(instance: WorkflowInstance, rng: random.Random, cascade_by: str = "cores") -> list[int]:
    """The cluster of every task: one cascade per placement group (a job's
    tasks of one kind, or each task alone when the instance lifts the format's
    rule), in group order. Only clusters of the kind with at least the
    cores of the group's widest task are eligible (the tasks stay
    together, so each must fit). A router's child is drawn in proportion
    to its eligible cores below (``cascade_by`` "cores") or uniformly among
    the children with any ("uniform")."""
    if cascade_by not in CASCADES:
        raise ValueError(f"a cascade draws children by {' or '.join(CASCADES)}, not {cascade_by!r}")
    paths = instance.cluster_paths

    def cascade(kind: str, width: int) -> int:
        eligible = {c: cluster.cores for c, cluster in enumerate(instance.clusters)
                    if cluster.kind == kind and cluster.cores >= width}
        node, prefix = instance.router_tree, ()
        while not isinstance(node, int):
            weights = [sum(cores for c, cores in eligible.items() if paths[c][:len(prefix) + 1] == prefix + (i,))
                       for i in range(len(node))]
            if cascade_by == "uniform":
                weights = [min(weight, 1) for weight in weights]
            x = rng.randrange(sum(weights))
            for i, weight in enumerate(weights):
                x -= weight
                if x < 0:
                    node, prefix = node[i], prefix + (i,)
                    break
        return node

    out = [0] * len(instance.tasks)
    for g, group in enumerate(instance.placement_groups):
        cluster = cascade(instance.tasks[group[0]].kind, instance.group_width(g))
        for t in group:
            out[t] = cluster
    return out


class _Tasks:
    """Per-task arrays the priority functions index (numpy, for speed)."""

    def __init__(self, instance: WorkflowInstance, estimates: Sequence[int] | None):
        n = len(instance.tasks)
        ranks, critical = [], []
        for k, job in enumerate(instance.jobs):
            times = None if estimates is None else [estimates[t] for t in instance.task_slice(k)]
            job_ranks = upward_ranks(job, times)
            ranks += job_ranks
            critical += [max(job_ranks)] * len(job.tasks)
        self.arrival_order = sorted(range(len(instance.jobs)), key=lambda k: (instance.jobs[k].arrival, k))
        job_rank = [0] * len(instance.jobs)
        for position, k in enumerate(self.arrival_order):
            job_rank[k] = position
        self.cores = np.array([t.cores for t in instance.tasks], dtype=np.int64)
        self.rank = np.array(ranks, dtype=np.int64)            # estimated upward rank T_R
        self.critical = np.array(critical, dtype=np.int64)     # estimated J_CP of the task's job
        self.arrival = np.array([instance.jobs[k].arrival for k in instance.job_of_task], dtype=np.int64)
        self.job_order = np.array([job_rank[k] for k in instance.job_of_task], dtype=np.int64)
        self.ready_order = np.zeros(n, dtype=np.int64)         # filled as tasks become ready


class _Queue:
    """A cluster's ready tasks: an array with O(1) removal (swap with the last)."""

    def __init__(self, capacity: int):
        self.ids = np.empty(max(capacity, 1), dtype=np.int64)
        self.size = 0
        self.position: dict[int, int] = {}

    def add(self, t: int) -> None:
        self.ids[self.size] = t
        self.position[t] = self.size
        self.size += 1

    def remove(self, t: int) -> None:
        i, last = self.position.pop(t), self.ids[self.size - 1]
        self.size -= 1
        if i != self.size:
            self.ids[i] = last
            self.position[int(last)] = i

    @property
    def tasks(self) -> np.ndarray:
        return self.ids[:self.size]


def _lexicographic_min(primary: np.ndarray, secondary: np.ndarray) -> int:
    """Index of the smallest (primary, secondary) pair, without combining them
    into one integer (estimated ranks can be large)."""
    tied = np.flatnonzero(primary == primary.min())
    return int(tied[np.argmin(secondary[tied])])


class _Simulation:
    def __init__(self, instance: WorkflowInstance, policy: str, estimates, network: Network | None, seed: int,
                 cascade: str):
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
        self.instance, self.policy, self.network = instance, policy, network
        self.cluster = allocate(instance, random.Random(f"allocation:{seed}"), cascade)
        self.rng = random.Random(f"policy:{seed}")
        self.data = _Tasks(instance, estimates)
        sizes = [0] * len(instance.clusters)
        for c in self.cluster:
            sizes[c] += 1
        self.queues = [_Queue(size) for size in sizes]
        self.free = [c.cores for c in instance.clusters]
        self.start: list[int | None] = [None] * len(instance.tasks)
        self.ready_count = 0
        self.usage: dict = {}  # Fair Share: cores in use per share-tree node
        # usage / share compared as usage x (L / share), L the shares' lcm: exact integers, no Fraction
        common = math.lcm(1, *instance.share_of.values())
        self.scale = {node: common // share for node, share in instance.share_of.items()}
        self.unit_scale = common
        paths = sorted(set(instance.share_paths), key=repr)
        path_index = {path: i for i, path in enumerate(paths)}
        self.paths = paths
        self.path_of_task = np.array([path_index[instance.share_paths[k]] for k in instance.job_of_task],
                                     dtype=np.int64)
        self.pick: Callable[[np.ndarray, int], int] = {
            "random": self._pick_random, "fifo-task": self._pick_fifo_task, "fifo-job": self._pick_fifo_job,
            "fair-share": self._pick_fair_share, "srtf": self._pick_srtf, "lrtf": self._pick_lrtf,
            "pslr": self._pick_pslr}[policy]

    # -- priorities: each returns the index, in ``waiting`` (the cluster's queue Q), of its head

    def _pick_random(self, waiting: np.ndarray, now: int) -> int:
        return self.rng.randrange(len(waiting))

    def _pick_fifo_task(self, waiting: np.ndarray, now: int) -> int:
        return int(np.argmin(self.data.ready_order[waiting]))

    def _pick_fifo_job(self, waiting: np.ndarray, now: int) -> int:
        return _lexicographic_min(self.data.job_order[waiting], self.data.ready_order[waiting])

    def _pick_srtf(self, waiting: np.ndarray, now: int) -> int:
        return _lexicographic_min(self.data.rank[waiting], self.data.ready_order[waiting])

    def _pick_lrtf(self, waiting: np.ndarray, now: int) -> int:
        return _lexicographic_min(-self.data.rank[waiting], self.data.ready_order[waiting])

    def _pick_fair_share(self, waiting: np.ndarray, now: int) -> int:
        """Lowest (usage / share) from the top group down to the user."""
        paths = self.path_of_task[waiting]
        distinct = np.unique(paths)
        usage, scale, unit = self.usage, self.scale, self.unit_scale
        keys = {int(p): tuple(usage.get(node, 0) * scale.get(node, unit) for node in self.paths[p]) for p in distinct}
        ordered = sorted(set(keys.values()))
        position = {key: i for i, key in enumerate(ordered)}
        rank_of_path = np.zeros(len(self.paths), dtype=np.int64)
        for p, key in keys.items():
            rank_of_path[p] = position[key]
        return _lexicographic_min(rank_of_path[paths], self.data.ready_order[waiting])

    def _pick_pslr(self, waiting: np.ndarray, now: int) -> int:
        """Algorithm 1: (T_R + now + 1 - arrival) / J_CP + ((now - arrival) / max J_CP in Q)^2, largest first."""
        d = self.data
        longest = int(d.critical[waiting].max())
        rank, critical, arrival = d.rank[waiting], d.critical[waiting], d.arrival[waiting]
        waited = (now - arrival).astype(np.float64)
        projected = (rank + now + 1 - arrival) / critical + (waited / longest) ** 2
        best = projected.max()
        near = np.flatnonzero(projected >= best - 1e-9 * max(1.0, abs(best)))
        if len(near) == 1:
            return int(near[0])
        exact = {int(i): Fraction(int(rank[i]) + now + 1 - int(arrival[i]), int(critical[i]))
                 + Fraction(now - int(arrival[i]), longest) ** 2 for i in near}
        top = max(exact.values())
        return min((i for i, value in exact.items() if value == top), key=lambda i: d.ready_order[waiting[i]])

    # -- events

    def _ready(self, t: int, dirty: set[int]) -> None:
        self.data.ready_order[t] = self.ready_count
        self.ready_count += 1
        self.queues[self.cluster[t]].add(t)
        dirty.add(self.cluster[t])

    def _round(self, c: int, now: int, running: list) -> None:
        """Start the head of cluster c's queue while it fits."""
        queue = self.queues[c]
        while queue.size:
            waiting = queue.tasks
            t = int(waiting[self.pick(waiting, now)])
            if self.data.cores[t] > self.free[c]:
                return
            queue.remove(t)
            self.start[t] = now
            task = self.instance.tasks[t]
            self.free[c] -= task.cores
            self._use(t, task.cores)
            heappush(running, (now + task.exec, t))

    def _use(self, t: int, cores: int) -> None:
        if self.policy == "fair-share":
            for node in self.paths[self.path_of_task[t]]:
                self.usage[node] = self.usage.get(node, 0) + cores

    def run(self) -> WorkflowSchedule:
        inst = self.instance
        tasks, offsets = inst.tasks, [inst.task_slice(k).start for k in range(len(inst.jobs))]
        waiting_for = [0] * len(tasks)
        for k, job in enumerate(inst.jobs):
            for task in job.tasks:
                for s in task.succ:
                    waiting_for[offsets[k] + s] += 1
        data_at = [0] * len(tasks)                          # when the last input arrives
        arrivals = self.data.arrival_order
        next_job = 0
        running: list[tuple[int, int]] = []                 # (end, task)
        delayed: list[tuple[int, int]] = []                 # (data arrival, task)
        while next_job < len(arrivals) or running or delayed:
            now = min(([inst.jobs[arrivals[next_job]].arrival] if next_job < len(arrivals) else [])
                      + ([running[0][0]] if running else []) + ([delayed[0][0]] if delayed else []))
            dirty: set[int] = set()
            while running and running[0][0] == now:
                _, t = heappop(running)
                self.free[self.cluster[t]] += tasks[t].cores
                self._use(t, -tasks[t].cores)
                dirty.add(self.cluster[t])
                first = offsets[inst.job_of_task[t]]
                for s in tasks[t].succ:
                    succ = first + s
                    delay = inst.data_delay(self.network, t, self.cluster[t], self.cluster[succ])
                    data_at[succ] = max(data_at[succ], now + delay)
                    waiting_for[succ] -= 1
                    if not waiting_for[succ]:
                        if data_at[succ] <= now:
                            self._ready(succ, dirty)
                        else:
                            heappush(delayed, (data_at[succ], succ))
            while next_job < len(arrivals) and inst.jobs[arrivals[next_job]].arrival == now:
                k = arrivals[next_job]
                next_job += 1
                for i in inst.task_slice(k):
                    if not waiting_for[i]:
                        self._ready(i, dirty)
            while delayed and delayed[0][0] == now:
                self._ready(heappop(delayed)[1], dirty)
            for c in sorted(dirty):
                self._round(c, now, running)
        return WorkflowSchedule(tuple(self.cluster), tuple(self.start), self.network)


def simulate(instance: WorkflowInstance, policy: str, estimates: Sequence[int] | None = None,
             network: Network | None = None, seed: int = 0, cascade: str = "cores") -> WorkflowSchedule:
    """Run the online list scheduler with ``policy``; ``estimates`` are the
    estimated execution times per flat task (default: exact), ``network``
    the §2.4 delays (default: none), ``seed`` drives the cascade and Random,
    ``cascade`` weighs a router's children (``allocate``)."""
    return _Simulation(instance, policy, estimates, network, seed, cascade).run()


HEURISTICS: dict[str, Callable] = {policy: partial(simulate, policy=policy) for policy in POLICIES}

OPTIONS = ("seed", "estimate", "negative_estimates", "cascade", "ccr", "network_exponent")


def _field(name: str) -> str:
    return f"options.{name}"


def options(instance: WorkflowInstance, raw: dict) -> dict:
    """Simulation options as written in TOML or on the command line, as
    keyword arguments of ``simulate``: ``seed`` (an integer, default 0),
    ``estimate`` ("normal:N", a normal error of N percent, or "log:M",
    rounding up to powers of M; §2.2), ``negative_estimates`` ("clamp",
    the default: a normal draw <= 0 becomes 1; or "redraw"), ``cascade``
    ("cores", the default, or "uniform": how a router's child is drawn),
    ``ccr`` (a network with this CCR in
    (0, 1], e.g. 0.2 or "1/5"; §2.4) and ``network_exponent`` (p of Eq. 3,
    with ccr; default -1)."""
    keys_of(raw, OPTIONS, "options")
    seed = integer(raw.get("seed", 0), _field("seed"))
    out: dict = {"seed": seed}
    if "cascade" in raw:
        if raw["cascade"] not in CASCADES:
            raise UserInputError(_field("cascade"), f"must be one of {', '.join(CASCADES)}, got {raw['cascade']!r}")
        out["cascade"] = raw["cascade"]
    ccr, exponent, estimate = raw.get("ccr"), raw.get("network_exponent"), raw.get("estimate")
    if exponent is not None and ccr is None:
        raise UserInputError(_field("network_exponent"), f"sets the network's speed, so it needs {_field('ccr')}")
    if ccr is not None:
        ratio = exact(ccr, _field("ccr"))
        try:
            out["network"] = Network(ratio)
        except ValueError as exc:
            raise UserInputError(_field("ccr"), str(exc)) from None
        if exponent is not None:
            try:
                out["network"] = Network(ratio, integer(exponent, _field("network_exponent")))
            except ValueError as exc:
                raise UserInputError(_field("network_exponent"), str(exc)) from None
    negative = raw.get("negative_estimates", "clamp")
    if negative not in NEGATIVE_DRAWS:
        raise UserInputError(_field("negative_estimates"), f"must be one of {', '.join(NEGATIVE_DRAWS)}, "
                                                           f"got {negative!r}")
    if "negative_estimates" in raw and not str(estimate).startswith("normal:"):
        raise UserInputError(_field("negative_estimates"), f"applies to a normal error, so it needs "
                                                           f"{_field('estimate')} = \"normal:N\"")
    if estimate is not None:
        out["estimates"] = _estimates(instance, estimate, seed, negative, _field("estimate"))
    return out


def _estimates(instance: WorkflowInstance, estimate, seed: int, negative: str, field: str) -> list[int]:
    """The estimated times of "normal:N" (``negative`` draws clamped or redrawn) or "log:M"."""
    model, _, value = estimate.partition(":") if isinstance(estimate, str) else ("", "", "")
    try:
        if model == "normal":
            return normal_error(instance, float(value), seed, negative)
        if model == "log":
            return log_rounding(instance, int(value))
        raise ValueError(model)
    except (ValueError, OverflowError) as exc:
        raise UserInputError(field, f"must be normal:N (percent >= 0) or log:M (integer >= 1) with "
                                    f"estimates within 2^62 per job, got {estimate!r} ({exc})") from None
