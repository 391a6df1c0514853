"""MILP for the P||Cmax decision "makespan <= C?": the arc-flow model
(``solvers.arcflow``), solved in-process through OR-Tools' MILP interface.

min z = flow out of node 0, s.t. flow conservation at every inner node,
every length s covered at least count(s) times, integer arc flows; the
jobs fit in m machines of capacity C iff z* <= m. The LP relaxation gives
the bound used before any branching.
"""

from collections.abc import Sequence
from math import ceil

from ortools.linear_solver import pywraplp

from schedbench.solvers.arcflow import ArcFlowGraph, assignment_from_bins, bins_from_flow, build

#: OR-Tools backend for the integer model (measured in bench/pcmax_engine.py).
MIP_BACKEND = "SCIP"
#: Graphs above this many arcs + nodes are not built (memory, LP time).
MAX_GRAPH = 400_000


def _model(graph: ArcFlowGraph, integer: bool, backend: str):
    """Built coefficient by coefficient (pywraplp's expression sums are slow)."""
    solver = pywraplp.Solver.CreateSolver(backend if integer else "GLOP")
    infinity = solver.infinity()
    conservation = {d: solver.Constraint(0, 0) for d in graph.nodes if d > 0}  # in - out - loss = 0
    demand = {s: solver.Constraint(count, infinity) for s, count in graph.counts.items()}
    objective = solver.Objective()
    flow = []
    for tail, head, length in graph.arcs:
        var = solver.IntVar(0, infinity, "") if integer else solver.NumVar(0, infinity, "")
        flow.append(var)
        conservation[head].SetCoefficient(var, 1)
        if tail:
            conservation[tail].SetCoefficient(var, -1)
        else:
            objective.SetCoefficient(var, 1)
        demand[length].SetCoefficient(var, 1)
    for d, row in conservation.items():
        row.SetCoefficient(solver.NumVar(0, infinity, ""), -1)  # loss arc d -> sink
    objective.SetMinimization()
    return solver, flow


def lp_bins(lengths: Sequence[int], capacity: int) -> int | None:
    """ceil of the arc-flow LP bound on the machines of capacity C needed
    (None when the graph is too large to build)."""
    graph = build(lengths, capacity)
    if graph.size > MAX_GRAPH:
        return None
    solver, _ = _model(graph, integer=False, backend="GLOP")
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        return None
    return ceil(solver.Objective().Value() - 1e-6)


def decide(lengths: Sequence[int], machines: int, capacity: int, time_limit: float) -> tuple[str, list[int] | None]:
    """('feasible', machine of each job) | ('infeasible', None) | ('unknown', None)."""
    graph = build(lengths, capacity)
    if graph.size > MAX_GRAPH:
        return "unknown", None
    solver, flow = _model(graph, integer=True, backend=MIP_BACKEND)
    solver.SetTimeLimit(max(1, int(time_limit * 1000)))
    solver.SetNumThreads(1)
    code = solver.Solve()
    if code in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        value = round(solver.Objective().Value())
        if value <= machines:
            bins = bins_from_flow(graph, [round(v.solution_value()) for v in flow])
            return "feasible", assignment_from_bins(lengths, bins)
        if code == pywraplp.Solver.OPTIMAL:
            return "infeasible", None
        if ceil(solver.Objective().BestBound() - 1e-6) > machines:
            return "infeasible", None
        return "unknown", None
    if code == pywraplp.Solver.INFEASIBLE:
        return "infeasible", None
    return "unknown", None
