"""MILP workflow model through PuLP/CBC (see ``solvers.workflow``),
time-indexed, for small instances (``coefficients`` up to the MILP limit):
can every job k finish by ``deadlines[k]``?

x[t,c,s] = 1 iff task t starts at s on cluster c, for c eligible and s in
t's window [arrival_k + head_t, deadlines[k] - rank_t] (arrival and
deadline are in the window). Each task starts once; the tasks of one
placement group (a job's tasks of one kind) start on the same cluster; per cluster and
instant the cores in use stay within the cluster's. Precedence in the
disaggregated (time-indexed) form, whose LP relaxation is stronger than
S_b >= S_a + lag: by every instant tau, b has started only if a had by
tau - lag, i.e. sum_{c, s <= tau} x[b,c,s] <= sum_{c, s <= tau - lag} x[a,c,s].
The prefix sums are continuous "started by" variables, so each such row
has two terms instead of a window's worth. No objective.
"""

import pulp

from schedbench.model.workflow import WorkflowInstance
from schedbench.result import INFEASIBLE
from schedbench.solvers import milp
from schedbench.solvers.milp import UNKNOWN, affordable, run
from schedbench.solvers.exact.outcome import ModelOutcome
from schedbench.solvers.workflow.structure import domains, eligible_clusters, orderings

def coefficients(instance: WorkflowInstance, window: list[tuple[int, int]]) -> int:
    """About the model's size for these start windows: every x[t,c,s] once
    per instant its task runs (capacity rows) plus the once and prefix-sum
    rows; the prefix sums and precedence rows make it about four times
    slower to build per coefficient, hence the factor 4."""
    return 4 * sum(len(clusters) * max(0, latest - earliest + 1) * (task.exec + 3) for task, clusters,
                   (earliest, latest) in zip(instance.tasks, eligible_clusters(instance), window))


def require_small(instance: WorkflowInstance, deadlines: list[int]) -> None:
    """Refuse, naming --solver, the model of these deadlines past the MILP limit."""
    milp.require_small(coefficients(instance, domains(instance, deadlines)))


def solve(instance: WorkflowInstance, deadlines: list[int], time_limit: float) -> ModelOutcome:
    """``solution``: every flat task's cluster, then every task's start."""
    window = domains(instance, deadlines)
    if any(earliest > latest for earliest, latest in window):
        return ModelOutcome(INFEASIBLE, None, None, None)
    if not affordable(coefficients(instance, window), time_limit):
        return UNKNOWN
    problem = pulp.LpProblem("workflow", pulp.LpMinimize)  # no objective: a feasibility question
    x = _starts(problem, instance, window)
    _colocation(problem, instance, x)
    _capacity(problem, instance, x)
    _precedence(problem, instance, x, window)
    problem += pulp.lpSum([])
    cluster = [pulp.lpSum(c * v for (c, _), v in options.items()) for options in x]
    start = [pulp.lpSum(s * v for (_, s), v in options.items()) for options in x]
    return run(problem, time_limit, cluster + start)


def _starts(problem, instance: WorkflowInstance, window) -> list[dict[tuple[int, int], pulp.LpVariable]]:
    """Per task, {(c, s): x[t,c,s]} with sum_{c,s} x[t,c,s] = 1."""
    x = []
    for t, (clusters, (earliest, latest)) in enumerate(zip(eligible_clusters(instance), window)):
        options = {(c, s): problem.add_variable(f"x_{t}_{c}_{s}", cat=pulp.LpBinary)
                   for c in clusters for s in range(earliest, latest + 1)}
        problem += pulp.lpSum(options.values()) == 1, f"once_{t}"
        x.append(options)
    return x


def _colocation(problem, instance: WorkflowInstance, x) -> None:
    """sum_s x[t,c,s] = sum_s x[g0,c,s] for every task t of a placement group
    whose first task is g0, on every cluster but the last eligible one (the
    once rows imply that one)."""
    for group in instance.placement_groups:
        head = group[0]
        clusters = sorted({c for c, _ in x[head]})
        for t in group[1:]:
            for c in clusters[:-1]:
                problem += (pulp.lpSum(v for (d, _), v in x[t].items() if d == c)
                            == pulp.lpSum(v for (d, _), v in x[head].items() if d == c)), f"together_{t}_{c}"


def _capacity(problem, instance: WorkflowInstance, x) -> None:
    """sum_{t, s in (tau - exec_t, tau]} cores_t x[t,c,s] <= cores_c for every
    cluster c and instant tau, written only where the tasks that may run there
    could together exceed the cluster."""
    tasks = instance.tasks
    running: dict[tuple[int, int], list[tuple[int, pulp.LpVariable]]] = {}
    for t, options in enumerate(x):
        for (c, s), v in options.items():
            for tau in range(s, s + tasks[t].exec):
                running.setdefault((c, tau), []).append((t, v))
    for (c, tau), active in running.items():
        if sum(tasks[t].cores for t in {t for t, _ in active}) > instance.clusters[c].cores:
            problem += pulp.lpSum(tasks[t].cores * v for t, v in active) <= instance.clusters[c].cores, \
                f"capacity_{c}_{tau}"


def _precedence(problem, instance: WorkflowInstance, x, window) -> None:
    """by[t,tau] = sum_{c, s <= tau} x[t,c,s] (0 before the window, 1 from its
    last start on), then by[b,tau] <= by[a,tau - lag] for every ordering."""
    by: dict[int, dict[int, pulp.LpVariable]] = {}

    def started_by(t: int, tau: int):
        earliest, latest = window[t]
        if tau < earliest:
            return 0
        if tau >= latest:
            return 1
        if t not in by:
            by[t] = _prefix_sums(problem, t, x[t], earliest, latest)
        return by[t][tau]

    for a, b, lag in orderings(instance):
        earliest, latest = window[b]
        for tau in range(earliest, latest):
            before = started_by(a, tau - lag)
            if before != 1:
                problem += started_by(b, tau) <= before, f"order_{a}_{b}_{tau}"


def _prefix_sums(problem, t: int, options, earliest: int, latest: int) -> dict[int, pulp.LpVariable]:
    """by[t,tau] for tau in [earliest, latest): by[t,tau] = by[t,tau-1] + sum_c x[t,c,tau]."""
    at: dict[int, list] = {}
    for (_, s), v in options.items():
        at.setdefault(s, []).append(v)
    by, previous = {}, 0
    for tau in range(earliest, latest):
        by[tau] = problem.add_variable(f"by_{t}_{tau}", 0, 1)
        problem += by[tau] == previous + pulp.lpSum(at[tau]), f"by_{t}_{tau}"
        previous = by[tau]
    return by
