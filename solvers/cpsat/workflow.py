"""CP-SAT workflow model (see ``solvers.workflow``): can every job k finish
by ``deadlines[k]``?

Task t starts at S_t in [arrival_k + head_t, deadlines[k] - rank_t], which
alone encodes arrival and deadline. It runs on one eligible cluster: a
fixed interval when it has one, else one optional interval per eligible
cluster with exactly one present. Each cluster is a cumulative resource
(demand cores_t, capacity its cores); S_b >= S_a + lag for every ordering
(DAG edges and twins, ``solvers.workflow.orderings``). No objective.
"""

from ortools.sat.python import cp_model

from schedbench.model.workflow import WorkflowInstance
from schedbench.result import INFEASIBLE
from schedbench.solvers.cpsat import run
from schedbench.solvers.outcome import ModelOutcome
from schedbench.solvers.workflow import domains, eligible_clusters, orderings


def solve(instance: WorkflowInstance, deadlines: list[int], time_limit: float) -> ModelOutcome:
    """``solution``: every flat task's cluster, then every task's start."""
    window = domains(instance, deadlines)
    if any(earliest > latest for earliest, latest in window):
        return ModelOutcome(INFEASIBLE, None, None, None)
    model = cp_model.CpModel()
    # S_t in [earliest_t, latest_t]: arrival, heads and deadlines in one domain
    start = [model.new_int_var(earliest, latest, f"s{t}") for t, (earliest, latest) in enumerate(window)]
    placed = _placements(model, instance, start)
    # S_b >= S_a + lag
    for a, b, lag in orderings(instance):
        model.add(start[b] >= start[a] + lag)
    cluster = [sum(c * on for c, on in options.items()) for options in placed]
    return run(model, time_limit, cluster + start, has_objective=False)


def _placements(model, instance: WorkflowInstance, start) -> list[dict[int, object]]:
    """Per task, {cluster: presence literal} (the literal is 1 for a task with
    one eligible cluster); adds sum_c on[t,c] = 1 and, per cluster,
    sum of cores_t over the tasks running there <= its cores."""
    tasks = instance.tasks
    intervals: list[list] = [[] for _ in instance.clusters]
    demands: list[list[int]] = [[] for _ in instance.clusters]
    placed = []
    for t, clusters in enumerate(eligible_clusters(instance)):
        task = tasks[t]
        if len(clusters) == 1:
            options = {clusters[0]: 1}
            intervals[clusters[0]].append(model.new_fixed_size_interval_var(start[t], task.exec, f"i{t}"))
        else:
            options = {c: model.new_bool_var(f"on{t}_{c}") for c in clusters}
            # sum_c on[t,c] = 1: exactly one cluster runs the task
            model.add_exactly_one(options.values())
            for c, on in options.items():
                intervals[c].append(model.new_optional_fixed_size_interval_var(start[t], task.exec, on, f"i{t}_{c}"))
        for c in options:
            demands[c].append(task.cores)
        placed.append(options)
    # per cluster c and instant tau: sum_{t on c, running at tau} cores_t <= cores_c
    for c, cluster in enumerate(instance.clusters):
        if intervals[c]:
            model.add_cumulative(intervals[c], demands[c], cluster.cores)
    return placed
