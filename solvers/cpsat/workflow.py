"""CP-SAT workflow model (see ``solvers.workflow``): can every job k finish
by ``deadlines[k]``?

Task t starts at S_t in [arrival_k + head_t, deadlines[k] - rank_t], which
alone encodes arrival and deadline. It runs on one eligible cluster: a
fixed interval when it has one, else one optional interval per eligible
cluster, present iff its placement group's literal for that cluster is
(exactly one per group: a job's tasks of one kind share their cluster). Each cluster is a cumulative resource
(demand cores_t, capacity its cores); S_b >= S_a + lag for every ordering
(DAG edges and twins, ``solvers.workflow.orderings``). Redundant: the
energy rows of ``solvers.workflow.energy_rows`` over the placement
literals (a cumulative sees a task only once its cluster is chosen). No
objective.
"""

from types import MappingProxyType

from ortools.sat.python import cp_model

from schedbench.model.workflow import WorkflowInstance
from schedbench.result import INFEASIBLE
from schedbench.solvers.cpsat import run
from schedbench.solvers.exact.outcome import ModelOutcome
from schedbench.solvers.workflow.structure import domains, eligible_clusters, energy_rows, orderings


#: The overload checker and timetable edge finding on each cluster's
#: cumulative, in every configuration: without presolve (the confirming
#: configuration) CP-SAT otherwise does not refute within 30 s questions its
#: presolve refutes at once (the checker); of the twelve the checker alone
#: left unanswered at 3 s on training seeds, edge finding refutes eleven in
#: hundredths of a second and the last in 1.7 s.
#: And no symmetry detection: with the energy rows, CP-SAT 9.15's crashed
#: (IndexError out of the solve) on a valid model of 22 variables
#: (``tests/workflow/test_workflow_solvers.py``); the model breaks the clusters'
#: symmetry itself (``solvers.workflow.eligible_clusters``).
PARAMETERS = MappingProxyType({"use_overload_checker_in_cumulative": True,
                               "use_conservative_scale_overload_checker": True,
                               "use_timetable_edge_finding_in_cumulative": True,
                               "symmetry_level": 0})


def solve(instance: WorkflowInstance, deadlines: list[int], time_limit: float) -> ModelOutcome:
    """``solution``: every flat task's cluster, then every task's start."""
    window = domains(instance, deadlines)
    if any(earliest > latest for earliest, latest in window):
        return ModelOutcome(INFEASIBLE, None, None, None)
    model = cp_model.CpModel()
    # S_t in [earliest_t, latest_t]: arrival, heads and deadlines in one domain
    start = [model.new_int_var(earliest, latest, f"s{t}") for t, (earliest, latest) in enumerate(window)]
    choices = eligible_clusters(instance)
    placed = _placements(model, instance, start, choices)
    # energetic reasoning over the placements (redundant): sum_g energy_g on[g,c] <= most
    for (c, terms), most in energy_rows(instance, window, choices).items():
        model.add(sum(energy * placed[instance.placement_groups[g][0]][c] for g, energy in terms) <= most)
    # S_b >= S_a + lag
    for a, b, lag in orderings(instance):
        model.add(start[b] >= start[a] + lag)
    cluster = [sum(c * on for c, on in options.items()) for options in placed]
    return run(model, time_limit, cluster + start, has_objective=False, parameters=PARAMETERS)


def _placements(model, instance: WorkflowInstance, start, choices: list[list[int]]) -> list[dict[int, object]]:
    """Per task, {cluster: presence literal} (1 for a group with one eligible
    cluster), shared by the tasks of one placement group; adds
    sum_c on[g,c] = 1 per group and, per cluster, sum of cores_t over the
    tasks running there <= its cores."""
    tasks = instance.tasks
    intervals: list[list] = [[] for _ in instance.clusters]
    demands: list[list[int]] = [[] for _ in instance.clusters]
    of_group: dict[int, dict[int, object]] = {}
    placed = []
    for t, clusters in enumerate(choices):
        g = instance.group_of_task[t]
        if g not in of_group:
            if len(clusters) == 1:
                of_group[g] = {clusters[0]: 1}
            else:
                of_group[g] = {c: model.new_bool_var(f"on{g}_{c}") for c in clusters}
                # sum_c on[g,c] = 1: exactly one cluster runs the group
                model.add_exactly_one(of_group[g].values())
        options = of_group[g]
        for c, on in options.items():
            intervals[c].append(model.new_fixed_size_interval_var(start[t], tasks[t].exec, f"i{t}") if len(options) == 1 else
                                model.new_optional_fixed_size_interval_var(start[t], tasks[t].exec, on, f"i{t}_{c}"))
            demands[c].append(tasks[t].cores)
        placed.append(options)
    # per cluster c and instant tau: sum_{t on c, running at tau} cores_t <= cores_c
    for c, cluster in enumerate(instance.clusters):
        if intervals[c]:
            model.add_cumulative(intervals[c], demands[c], cluster.cores)
    return placed
