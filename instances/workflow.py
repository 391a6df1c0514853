"""Workflow generators: the P-SLR paper's platform (§4.1) with a synthetic
overloaded workload, small workloads for exact solving, and workflows built
from real Standard Workload Format traces.

U[a, b] is an integer drawn uniformly from {a, ..., b} (``rng.randint``),
U{0..n-1} one drawn by ``rng.randrange(n)``. All randomness comes from
``random.Random(seed)`` through integer draws only (``randint``,
``randrange``, ``choice``), so a (generator, parameters, seed) triple gives
byte-identical JSON on any machine; every ratio is an exact ``Fraction``.

Platform (``paper_platform``, §4.1 and Fig. 1). Four clusters of 400 cores;
clusters 1, 3 and 4 (1-based, as the paper names them) are of architecture
Kind1, cluster 2 of Kind2. Fig. 1's thin tree is read as two routers of two
clusters each under the root: network ``((0, 1), (2, 3))``.

Synthetic workload (``synthetic_workload``). The P-SLR papers' scenario
(and its predecessor, Burkimsher et al. 2013) is an industrial grid whose
job execution times range from minutes to months, and the paper does not
publish its workload. So, with one minute as the time unit:
- size class d ~ U{0..decades-1} per job, then each task's execution time
  ~ U[10^d, 10^(d+1)]: log-uniform size classes over 5 decades (1 minute to
  10^5 minutes, about 70 days) reproduce that width, each decade equally
  likely, and the tasks of one job are of one size class;
- shape, a layered DAG (this project's choice, the paper does not publish
  its DAGs): n ~ U[1, max_tasks] tasks, levels ~ U[1, n]; task i < levels is
  on level i (so every level is occupied), every other task on a level
  ~ U{0..levels-1}; tasks are then ordered by level (stably) and that order
  is their index. Each task of level l >= 1 is fed by one task of level
  l - 1 drawn uniformly (``rng.choice``), plus every other task of level
  l - 1 independently with probability 1/4 (``rng.randrange(4) == 0``). So
  the critical path has exactly ``levels`` tasks;
- cores 2^e with e ~ U[0, max_cores_exponent] (powers of two up to 32 of a
  400-core cluster: this project's choice);
- kind: x ~ U{0..C-1} over the C platform cores, the kind of the cluster
  whose cumulative core range contains x: kinds drawn in proportion to the
  cores offering them (Kind2 with probability 1/4 here) keep both kinds
  equally loaded;
- user ~ U{0..users-1} per job, in a Fair Share tree of ``groups`` groups
  g0, g1, ... with shares groups, groups - 1, ..., 1, user u_i under group
  g_(i mod groups) with share 1 (this project's choice, the paper's §4.2
  Fair Share tree is not published);
- arrivals: with W the total work (sum of exec x cores) and C the platform's
  cores, the window is T = ceil(W / (load x C)); ``jobs`` draws from
  U[0, T], sorted, give job k the k-th smallest. A Poisson arrival process
  conditioned on ``jobs`` arrivals in [0, T] has exactly these i.i.d.
  uniform order statistics. This is a *transient* overload (the paper's
  P-SLR is starvation-free "as long as overloads are transient"): work
  arrives at ``load`` times the capacity during [0, T], then stops. The
  realized load W / (T C) is in ((T-1)/T x load, load] since T rounds up.

Small workload (``small_workload``): every range inclusive, drawn uniformly,
small enough for the exact solvers (see its docstring for the draw order).

Trace workflows (``workflows_from_swf``): real arrivals and run times (time
unit one second) from a Standard Workload Format trace, either every trace
job a one-task workflow or, per user, jobs submitted within ``gap`` seconds
after the user's previous job ended chained into one workflow (a user's
session of dependent runs; the same session rule as instances/swf.py).
"""

import random
from collections.abc import Sequence
from fractions import Fraction
from math import ceil
from pathlib import Path
from typing import Literal

from schedbench.errors import InstanceError
from schedbench.instances.swf import read_swf, selection_meta, trace_credits
from schedbench.instances.parameters import Count, Integers, Natural, Range, Range0, generator, integer_range
from schedbench.model.fields import is_int
from schedbench.model.workflow import Cluster, Task, WorkflowInstance, WorkflowJob

PAPER_CORES = 400
PAPER_KINDS = ("Kind1", "Kind2", "Kind1", "Kind1")
PAPER_NETWORK = ((0, 1), (2, 3))


def paper_platform() -> tuple[tuple[Cluster, ...], tuple]:
    """§4.1: four clusters of 400 cores, clusters 1, 3, 4 (1-based) Kind1 and
    cluster 2 Kind2, under Fig. 1's thin tree ((0, 1), (2, 3))."""
    return tuple(Cluster(PAPER_CORES, kind) for kind in PAPER_KINDS), PAPER_NETWORK


def _check_int(value, name: str, low: int = 1, high: int | None = None) -> int:
    if not is_int(value) or value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    return value


def _check_seed(seed) -> int:
    if not is_int(seed):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return seed


def _check_load(load) -> Fraction:
    if isinstance(load, (float, bool)):
        raise ValueError(f"load must be exact (an int, a Fraction or a 'num/den' string), got {load!r}")
    try:
        value = Fraction(load)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"load must be a positive rational such as 6/5, got {load!r}") from None
    if value <= 0:
        raise ValueError(f"load must be > 0, got {value}")
    return value


def _frac(value: Fraction) -> list[int]:
    return [value.numerator, value.denominator]


def _draw_kind(rng: random.Random, clusters: tuple[Cluster, ...], total: int) -> str:
    """The kind of the cluster whose cumulative core range holds x ~ U{0..total-1}."""
    x = rng.randrange(total)
    for cluster in clusters:
        if x < cluster.cores:
            return cluster.kind
        x -= cluster.cores
    raise AssertionError("x is below the total number of cores")


def _layered_job(rng: random.Random, decades: int, max_tasks: int, max_cores_exponent: int,
                 clusters: tuple[Cluster, ...], total: int) -> tuple[Task, ...]:
    """One synthetic job's tasks, in the module docstring's draw order."""
    d = rng.randrange(decades)
    n = rng.randint(1, max_tasks)
    levels = rng.randint(1, n)
    level = sorted(i if i < levels else rng.randrange(levels) for i in range(n))  # stable order = by level
    drawn = []
    for _ in range(n):
        exec_time = rng.randint(10 ** d, 10 ** (d + 1))
        cores = 2 ** rng.randint(0, max_cores_exponent)
        drawn.append((exec_time, cores, _draw_kind(rng, clusters, total)))
    on_level: list[list[int]] = [[] for _ in range(levels)]
    for i, l in enumerate(level):
        on_level[l].append(i)
    succ: list[list[int]] = [[] for _ in range(n)]
    for i, l in enumerate(level):
        if l == 0:
            continue
        previous = on_level[l - 1]
        first = rng.choice(previous)
        for p in previous:
            if p == first or rng.randrange(4) == 0:
                succ[p].append(i)  # i grows, so every succ list is increasing
    return tuple(Task(e, c, k, tuple(s)) for (e, c, k), s in zip(drawn, succ))


def synthetic_workload(seed: int, jobs: Count = 1000, load: Fraction = Fraction(6, 5), users: Count = 12,
                       groups: Count = 3, max_tasks: Count = 20, decades: Count = 5,
                       max_cores_exponent: Natural = 5, colocate: bool = True) -> WorkflowInstance:
    """A transient overload on the paper's platform (see the module
    docstring for every distribution and why); ``colocate`` false lifts
    the format's placement rule (no draw depends on it). Draw order: per job k in
    order, its size class d, task count n, level count, the levels of tasks
    levels..n-1, then per task (in level order) exec, cores and kind, then
    per task of level >= 1 its predecessors, then the job's user; after all
    jobs, ``jobs`` arrival draws from U[0, T], sorted. meta records the
    parameters, the window T, the total work W and the realized load
    W / (T x C) (as [num, den])."""
    _check_seed(seed)
    _check_int(jobs, "jobs")
    load = _check_load(load)
    _check_int(users, "users")
    _check_int(groups, "groups", 1, users)
    _check_int(max_tasks, "max_tasks")
    _check_int(decades, "decades")
    clusters, network = paper_platform()
    narrowest = min(c.cores for c in clusters)
    if not isinstance(max_cores_exponent, int) or isinstance(max_cores_exponent, bool) \
            or not 0 <= max_cores_exponent or 2 ** max_cores_exponent > narrowest:
        raise ValueError(f"max_cores_exponent must be an integer e >= 0 with 2**e <= {narrowest} (the cores "
                         f"of a cluster), got {max_cores_exponent!r}")
    total = sum(c.cores for c in clusters)
    rng = random.Random(seed)
    drawn = []
    for _ in range(jobs):
        tasks = _layered_job(rng, decades, max_tasks, max_cores_exponent, clusters, total)
        drawn.append((tasks, f"u{rng.randrange(users)}"))
    work = sum(t.exec * t.cores for tasks, _ in drawn for t in tasks)
    window = ceil(Fraction(work) / (load * total))
    arrivals = sorted(rng.randint(0, window) for _ in range(jobs))
    shares = tuple((f"g{g}", groups - g, None) for g in range(groups)) + \
        tuple((f"u{i}", 1, f"g{i % groups}") for i in range(users))
    meta = {"generator": "workflow-synthetic", "seed": seed, "jobs": jobs, "load": _frac(load), "users": users,
            "groups": groups, "max_tasks": max_tasks, "decades": decades,
            "max_cores_exponent": max_cores_exponent, "time_unit_seconds": 60, "window": window, "work": work,
            "capacity": total, "realized_load": _frac(Fraction(work, window * total)),
            "task_count": sum(len(tasks) for tasks, _ in drawn), "colocate": colocate}
    built = tuple(WorkflowJob(a, tasks, user) for a, (tasks, user) in zip(arrivals, drawn))
    return WorkflowInstance(clusters, built, f"workflow-synthetic-s{seed}", meta, network, shares, colocate)


def small_workload(seed: int, jobs: Range = (2, 4), tasks: Range = (1, 4), exec_range: Range = (1, 6),
                   clusters: Range = (1, 3), cores: Range = (1, 4), arrival: Range0 = (0, 5),
                   colocate: bool = True) -> WorkflowInstance:
    """Small instances for exact solving, every range inclusive. Draw order:
    the number of kinds U[1, 2] (not drawn, 1, when clusters allow only one
    cluster); the number of clusters U[max(clusters[0], kinds), clusters[1]];
    per cluster i in order: its kind ("Kind{i+1}" for i < kinds, so every
    kind is offered, else drawn uniformly among the kinds) then its cores
    U[cores]; the number of jobs U[jobs]; per job: its arrival U[arrival], its
    task count U[tasks], per task its kind (uniform among the kinds), cores
    U[1, widest cluster of that kind] and exec U[exec_range], then for each
    pair i < j (i, then j, increasing) an edge i -> j with probability 1/3.
    No users, flat network; ``colocate`` false lifts the format's placement rule
    (no draw depends on it)."""
    jobs, tasks = integer_range(jobs, "jobs"), integer_range(tasks, "tasks")
    exec_range, clusters = integer_range(exec_range, "exec_range"), integer_range(clusters, "clusters")
    cores, arrival = integer_range(cores, "cores"), integer_range(arrival, "arrival", low=0)
    _check_seed(seed)
    rng = random.Random(seed)
    kinds = rng.randint(1, 2) if clusters[1] >= 2 else 1
    count = rng.randint(max(clusters[0], kinds), clusters[1])
    platform = []
    for i in range(count):
        kind = f"Kind{i + 1}" if i < kinds else f"Kind{rng.randint(1, kinds)}"
        platform.append(Cluster(rng.randint(*cores), kind))
    widest = {}
    for cluster in platform:
        widest[cluster.kind] = max(widest.get(cluster.kind, 0), cluster.cores)
    built = []
    for _ in range(rng.randint(*jobs)):
        arrive, n = rng.randint(*arrival), rng.randint(*tasks)
        drawn = []
        for _ in range(n):
            kind = f"Kind{rng.randint(1, kinds)}"
            drawn.append((rng.randint(*exec_range), rng.randint(1, widest[kind]), kind))
        succ = [[j for j in range(i + 1, n) if rng.randrange(3) == 0] for i in range(n)]
        built.append(WorkflowJob(arrive, tuple(Task(e, c, k, tuple(s)) for (e, c, k), s in zip(drawn, succ))))
    meta = {"generator": "workflow-small", "seed": seed, "jobs": list(jobs), "tasks": list(tasks),
            "exec_range": list(exec_range), "clusters": list(clusters), "cores": list(cores),
            "arrival": list(arrival), "kinds": kinds, "colocate": colocate}
    return WorkflowInstance(tuple(platform), tuple(built), f"workflow-small-s{seed}", meta, colocate=colocate)


def _trace_stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    return name


def workflows_from_swf(path, max_jobs: int | None = None, chains: bool = False, gap: int = 1200,
                       status: Sequence[int] | None = None, partition: Sequence[int] | None = None) -> WorkflowInstance:
    """Workflows with a trace's real arrivals and run times (seconds). One
    cluster of kind Kind1 with the trace's MaxProcs cores (else MaxNodes,
    else the widest job); a wider job is an error, never shrunk. Every task
    runs for the job's run time on its processors; arrivals are relative to
    the earliest kept submission; the user is "u{trace user id}".
    Without ``chains`` every trace job is a one-task workflow, in trace
    order. With ``chains``, per user in submission order, a job submitted
    at or after the user's previous job ended in the trace (submit + wait +
    run) and at most ``gap`` seconds later becomes the successor of that
    job, in its workflow; any other job starts a new workflow arriving at
    its own submission. Workflows are in trace order of their first job."""
    if max_jobs is not None:
        _check_int(max_jobs, "max_jobs")
    if not isinstance(chains, bool):
        raise ValueError(f"chains must be a boolean, got {chains!r}")
    _check_int(gap, "gap", low=0)
    path = Path(path)
    header, jobs = read_swf(path, max_jobs, status, partition)
    cores = int(header.get("MaxProcs") or header.get("MaxNodes") or max(j.processors for j in jobs))
    for index, job in enumerate(jobs):
        if job.processors > cores:
            raise InstanceError("--trace", f"usable job {index} of {path.name} runs on {job.processors} "
                                           f"processors, more than the machine's {cores}")
    origin = min(j.submit for j in jobs)
    groups: list[list[int]] = []  # trace indexes of each workflow's jobs, chain order
    if chains:
        by_user: dict[int, list[int]] = {}
        for index, job in enumerate(jobs):
            by_user.setdefault(job.user, []).append(index)
        for indexes in by_user.values():
            indexes.sort(key=lambda i: (jobs[i].submit, i))
            current = [indexes[0]]
            for previous, index in zip(indexes, indexes[1:]):
                if jobs[previous].end <= jobs[index].submit <= jobs[previous].end + gap:
                    current.append(index)
                else:
                    groups.append(current)
                    current = [index]
            groups.append(current)
        groups.sort(key=lambda g: g[0])
    else:
        groups = [[index] for index in range(len(jobs))]
    built = []
    for group in groups:
        last = len(group) - 1
        tasks = tuple(Task(jobs[i].run, jobs[i].processors, "Kind1", (p + 1,) if p < last else ())
                      for p, i in enumerate(group))
        first = jobs[group[0]]
        built.append(WorkflowJob(first.submit - origin, tasks, f"u{first.user}"))
    meta = {"generator": "workflow-swf", "trace": path.name, "chains": chains, "gap": gap, "max_jobs": max_jobs,
            "jobs_read": len(jobs), "workflows": len(built), "cores": cores, "time_unit_seconds": 1,
            **selection_meta(status, partition), **trace_credits(header)}
    suffix = "-chains" if chains else ""
    return WorkflowInstance((Cluster(cores, "Kind1"),), tuple(built), f"workflow-swf-{_trace_stem(path)}{suffix}",
                            meta)


def starvation_stream(length: Count = 600, lone: Literal["long", "short", "wide"] = "long", short: Count = 6,
                      long: Count = 60, gap: Count = 5) -> WorkflowInstance:
    """§3's starvation scenario as a construction: job 0, the lone job, in a
    stream of one-task jobs arriving during [0, ``length``), a sustained
    overload of 120% with the defaults (as §4.1). ``lone``:
    - "long": one core, a job of ``long`` among jobs of ``short`` every
      ``gap`` (SRTF starves it);
    - "short": one core, a job of ``short`` among jobs of ``long`` every
      ``long * gap / short`` (LRTF starves it);
    - "wide": two cores, a 2-core job of ``short`` arriving at 1 among pairs
      of 1-core jobs of ``short`` every ``gap`` (a scheduler that lets
      narrower tasks pass the head of its queue starves it)."""
    _check_int(length, "length")
    if lone not in ("long", "short", "wide"):
        raise ValueError(f"lone must be 'long', 'short' or 'wide', got {lone!r}")

    def job(exec_time: int, arrival: int, cores: int = 1) -> WorkflowJob:
        return WorkflowJob(arrival, (Task(exec_time, cores, "K", ()),))

    if lone == "wide":
        cores, jobs = 2, (job(short, 1, 2),) + tuple(job(short, a) for a in range(0, length, gap) for _ in range(2))
    else:
        alone, stream = (long, short) if lone == "long" else (short, long)
        every = stream * gap // short
        cores, jobs = 1, (job(alone, 0),) + tuple(job(stream, a) for a in range(0, length, every))
    meta = {"construction": "starvation-stream", "lone": lone, "length": length, "short": short, "long": long,
            "gap": gap}
    return WorkflowInstance((Cluster(cores, "K"),), jobs, f"starvation-stream-{lone}-{length}", meta)


def _swf(trace: str, max_jobs: Count | None = None, chains: bool = False, gap: Natural = 1200,
         status: Integers | None = None, partition: Integers | None = None) -> WorkflowInstance:
    return workflows_from_swf(trace, max_jobs, chains, gap, status, partition)


def search_start(rng: random.Random, limits) -> WorkflowInstance:
    """A start for ``schedbench worst``: a small workload within the limits."""
    return small_workload(rng.randrange(1 << 30), jobs=(1, 3), tasks=(1, max(1, min(4, limits.max_jobs // 3))),
                          exec_range=(1, limits.max_value), clusters=limits.machines or (1, 3))


GENERATORS = {"workflow-synthetic": generator(synthetic_workload), "workflow-small": generator(small_workload),
              "workflow-swf": generator(_swf), "starvation-stream": generator(starvation_stream)}
