"""MILP for the P||Cmax decision "makespan <= C?": the arc-flow model
(``solvers.arcflow``), solved in-process through OR-Tools' MILP interface.

min z = flow out of node 0, s.t. flow conservation at every inner node,
every length s covered at least count(s) times, integer arc flows; the
jobs fit in m machines of capacity C iff z* <= m. The LP relaxation gives
the bound used before any branching.
"""

import time
from collections import Counter
from collections.abc import Sequence
from math import ceil, floor

from ortools.linear_solver import pywraplp

from schedbench.solvers.arcflow import ArcFlowGraph, assignment_from_bins, bins_from_flow, build, paths_from_flow
from schedbench.metrics.pcmax_bounds import checked_dual_bound

#: OR-Tools backend for the integer model (measured in bench/pcmax_engine.py).
MIP_BACKEND = "SCIP"
#: Graphs above this many arcs + nodes are not built (building the model alone takes
#: about a second per 150,000 arcs).
MAX_GRAPH = 250_000


def _model(graph: ArcFlowGraph, integer: bool, backend: str, machines: int | None = None):
    """Built coefficient by coefficient (pywraplp's expression sums are slow).

    With ``machines`` the flow is capped at m units and there is no objective:
    a pure feasibility question, which lets the MILP stop at the first packing."""
    solver = pywraplp.Solver.CreateSolver(backend if integer else "GLOP")
    infinity = solver.infinity()
    conservation = {d: solver.Constraint(0, 0) for d in graph.nodes if d > 0}  # in - out - loss = 0
    demand = {s: solver.Constraint(count, infinity) for s, count in graph.counts.items()}
    objective = solver.Objective()
    bins = solver.Constraint(0, infinity if machines is None else machines)
    flow = []
    for tail, head, length in graph.arcs:
        var = solver.IntVar(0, infinity, "") if integer else solver.NumVar(0, infinity, "")
        flow.append(var)
        conservation[head].SetCoefficient(var, 1)
        if tail:
            conservation[tail].SetCoefficient(var, -1)
        else:
            bins.SetCoefficient(var, 1)
            if machines is None:
                objective.SetCoefficient(var, 1)
        demand[length].SetCoefficient(var, 1)
    for d, row in conservation.items():
        row.SetCoefficient(solver.NumVar(0, infinity, ""), -1)  # loss arc d -> sink
    objective.SetMinimization()
    return solver, flow, demand


def _lp(lengths: Sequence[int], capacity: int, seconds: float) -> tuple[ArcFlowGraph, float, list[float], dict] | None:
    """The arc-flow LP: (graph, min machines, arc flows, dual value per length),
    or None when the graph is too large or GLOP does not finish in time."""
    deadline = time.monotonic() + seconds
    graph = build(lengths, capacity, MAX_GRAPH, deadline)
    if graph is None:
        return None
    solver, flow, demand = _model(graph, integer=False, backend="GLOP")
    if time.monotonic() > deadline:
        return None
    solver.SetTimeLimit(max(1, int((deadline - time.monotonic()) * 1000)))
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        return None
    duals = {s: row.dual_value() for s, row in demand.items()}
    return graph, solver.Objective().Value(), [v.solution_value() for v in flow], duals


def _machines_needed(value: float) -> int:
    # a generous tolerance: a float error must never refute a feasible C (it may only weaken the bound)
    return ceil(value - 1e-4)


def lp_bins(lengths: Sequence[int], capacity: int, time_limit: float) -> int | None:
    """Machines of capacity C needed, by the arc-flow LP bound as its dual
    solution proves it in exact arithmetic (``checked_dual_bound``; None
    when it cannot be computed within the limits)."""
    solved = _lp(lengths, capacity, time_limit)
    if solved is None:
        return None
    graph, _, _, duals = solved
    return checked_dual_bound(graph.counts, capacity, duals)


def decide(lengths: Sequence[int], machines: int, capacity: int, time_limit: float) -> tuple[str, list[int] | None]:
    """('feasible', machine of each job) | ('infeasible', None) | ('unknown', None)."""
    deadline = time.monotonic() + time_limit
    graph = build(lengths, capacity, MAX_GRAPH, deadline)
    if graph is None:
        return "unknown", None
    solver, flow, _ = _model(graph, integer=True, backend=MIP_BACKEND, machines=machines)
    if time.monotonic() > deadline:
        return "unknown", None
    solver.SetTimeLimit(max(1, int((deadline - time.monotonic()) * 1000)))
    solver.SetNumThreads(1)
    code = solver.Solve()
    if code in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        bins = bins_from_flow(graph, [round(v.solution_value()) for v in flow])
        return "feasible", assignment_from_bins(lengths, bins)
    if code == pywraplp.Solver.INFEASIBLE:
        return "infeasible", None
    return "unknown", None


def dive(lengths: Sequence[int], machines: int, capacity: int, time_limit: float) -> tuple[str, list[int] | None]:
    """LP diving: fix machines to patterns of the arc-flow LP, re-solve on the jobs left.

    Each step solves the LP on the jobs left and first tries to fix, at once,
    every pattern the LP uses whole plus every disjoint pattern it uses more
    than half; when the LP of what is left no longer fits the machines left,
    it backs up and fixes instead the heaviest pattern alone, then the next
    one. The arc-flow LP bound is almost always tight, so a dive usually ends
    in a packing; it never proves infeasibility:
    ('feasible', machine of each job) | ('unknown', None).
    """
    deadline = time.monotonic() + time_limit
    try:
        bins = _dive(Counter(lengths), machines, capacity, deadline)
    except TimeoutError:
        return "unknown", None
    if bins is None:
        return "unknown", None
    return "feasible", assignment_from_bins(lengths, bins)


#: Patterns tried alone, heaviest first, when fixing the bulk fails.
DIVE_ALTERNATIVES = 2


def _dive(left: Counter, machines: int, capacity: int, deadline: float) -> list[list[int]] | None:
    if not sum(left.values()):
        return []
    if time.monotonic() > deadline:
        raise TimeoutError
    solved = _lp(list(left.elements()), capacity, deadline - time.monotonic())
    if solved is None or _machines_needed(solved[1]) > machines:
        return None
    graph, _, flow, _ = solved
    paths = sorted(paths_from_flow(graph, flow), key=lambda p: -p[0])
    whole = [items for weight, items in paths for _ in range(floor(weight + 1e-6))]
    halves = [items for weight, items in paths if 0.5 < weight % 1 < 1 - 1e-6]
    options = [(whole, halves)] + [([items], []) for _, items in paths[:DIVE_ALTERNATIVES]]
    for forced, optional in options:
        rest, bins = left.copy(), []
        for items in forced:  # the LP may cover a length more often than needed: drop the surplus
            kept = []
            for s in items:
                if rest[s] > 0:
                    rest[s] -= 1
                    kept.append(s)
            if kept:
                bins.append(kept)
        for items in optional:  # only whole, and only while the jobs are still there
            needed = Counter(items)
            if all(rest[s] >= c for s, c in needed.items()):
                rest -= needed
                bins.append(items)
        if not bins or len(bins) > machines:
            continue
        tail = _dive(rest, machines - len(bins), capacity, deadline)
        if tail is not None:
            return bins + tail
    return None

