"""MILP for the P||Cmax decision "makespan <= C?": the arc-flow model
(``solvers.pcmax.arcflow``), solved in-process through OR-Tools' MILP interface.

min z = flow out of node 0, s.t. flow conservation at every inner node,
every length s covered at least count(s) times, integer arc flows; the
jobs fit in m machines of capacity C iff z* <= m. The LP relaxation gives
the bound used before any branching.
"""

import time
from collections import Counter
from collections.abc import Sequence
from math import ceil, floor

import numpy as np
import scipy.sparse
from ortools.linear_solver.python.model_builder_helper import ModelBuilderHelper, ModelSolverHelper, SolveStatus

from schedbench.solvers.pcmax.arcflow import ArcFlowGraph, assignment_from_bins, bins_from_flow, build, paths_from_flow
from schedbench.metrics.pcmax.bounds import dual_weights, weights_bound
from schedbench.result import FEASIBLE, UNKNOWN
from schedbench.solvers.pcmax.bin_completion import pack
from schedbench.solvers.milp.pcmax_patterns import PatternLP, forget_pattern_lps, pattern_lp, pays

#: OR-Tools backend for the integer model (measured in bench/pcmax_engine.py).
MIP_BACKEND = "scip"
#: Graphs above this many arcs + nodes are not built: the model and its LP
#: grow with the graph (the cap was set when building it in pure Python cost
#: 0.3 s per 100,000 arcs, and not measured again since the numpy build).
MAX_GRAPH = 250_000


def _model(graph: ArcFlowGraph, integer: bool, machines: int | None = None) -> tuple[ModelBuilderHelper, int, int]:
    """The model as one sparse matrix (coefficient by coefficient, the
    Python interface cost more than GLOP's solve): (model, number of arc
    variables, row of the first demand constraint). Variables are the arcs,
    then one loss arc per inner node; rows are the inner nodes'
    conservation (in - out - loss = 0), one demand row per length (in
    ascending order), and the flow out of node 0.

    With ``machines`` the flow is capped at m units and there is no objective:
    a pure feasibility question, which lets the MILP stop at the first packing."""
    arcs = graph.arcs
    tail, head, length = arcs[:, 0], arcs[:, 1], arcs[:, 2]
    nodes = graph.nodes  # nodes[0] is the source 0: no conservation row
    inner, n_arcs = len(nodes) - 1, len(arcs)
    lengths = np.array(sorted(graph.counts), dtype=np.int64)
    demand_row, bins_row = inner, inner + len(lengths)
    arc_ids, from_source = np.arange(n_arcs), tail == 0
    inner_tail = ~from_source
    rows = np.concatenate([np.searchsorted(nodes, head) - 1, np.searchsorted(nodes, tail[inner_tail]) - 1,
                           demand_row + np.searchsorted(lengths, length), np.full(from_source.sum(), bins_row),
                           np.arange(inner)])
    columns = np.concatenate([arc_ids, arc_ids[inner_tail], arc_ids, arc_ids[from_source], n_arcs + np.arange(inner)])
    values = np.concatenate([np.ones(n_arcs), -np.ones(inner_tail.sum()), np.ones(n_arcs), np.ones(from_source.sum()),
                             -np.ones(inner)])
    matrix = scipy.sparse.csr_matrix((values, (rows, columns)), shape=(bins_row + 1, n_arcs + inner))
    counts = np.array([graph.counts[s] for s in lengths.tolist()], dtype=float)
    lower = np.concatenate([np.zeros(inner), counts, [0.0]])
    upper = np.concatenate([np.zeros(inner), np.full(len(lengths), np.inf), [np.inf if machines is None else machines]])
    objective = np.zeros(n_arcs + inner)
    if machines is None:
        objective[:n_arcs] = from_source
    model = ModelBuilderHelper()
    model.fill_model_from_sparse_data(np.zeros(n_arcs + inner), np.full(n_arcs + inner, np.inf), objective,
                                      lower, upper, matrix)
    if integer:
        for var in range(n_arcs):
            model.set_var_integrality(var, True)
    return model, n_arcs, demand_row


def solve_model(model: ModelBuilderHelper, backend: str, seconds: float) -> ModelSolverHelper:
    """``model`` solved by ``backend`` within ``seconds`` (at least a millisecond)."""
    solver = ModelSolverHelper(backend)
    solver.set_time_limit_in_seconds(max(seconds, 0.001))
    solver.solve(model)
    return solver


def _lp(lengths: Sequence[int], capacity: int, seconds: float) -> tuple[ArcFlowGraph, float, list[float], dict] | None:
    """The arc-flow LP: (graph, min machines, arc flows, dual value per length),
    or None when the graph is too large or GLOP does not finish in time."""
    deadline = time.monotonic() + seconds
    graph = build(lengths, capacity, MAX_GRAPH, deadline)
    if graph is None:
        return None
    model, n_arcs, demand_row = _model(graph, integer=False)
    if time.monotonic() > deadline:
        return None
    solver = solve_model(model, "glop", deadline - time.monotonic())
    if solver.status() != SolveStatus.OPTIMAL:
        return None
    duals = solver.dual_values()[demand_row:demand_row + len(graph.counts)].tolist()
    flow = solver.variable_values()[:n_arcs].tolist()
    return graph, solver.objective_value(), flow, dict(zip(sorted(graph.counts), duals))


def _machines_needed(value: float) -> int:
    # a generous tolerance: a float error must never refute a feasible C (it may only weaken the bound)
    return ceil(value - 1e-4)


def lp_bins(lengths: Sequence[int], capacity: int, time_limit: float) -> int | None:
    """Machines of capacity C needed, by the arc-flow LP bound as its dual
    solution proves it in exact arithmetic (``weights_bound`` of the
    ``dual_certificate``; None when it cannot be computed within the limits)."""
    weights = dual_certificate(lengths, capacity, time_limit)
    return None if weights is None else weights_bound(dict(Counter(lengths)), capacity, weights)


def dual_certificate(lengths: Sequence[int], capacity: int, time_limit: float) -> dict[int, int] | None:
    """The arc-flow LP's checked weights (``dual_weights``) at ``capacity``:
    with them, ``weights_bound`` proves the machines that capacity needs
    (None when the LP cannot be solved within the limits)."""
    solved = _lp(lengths, capacity, time_limit)
    if solved is None:
        return None
    graph, _, _, duals = solved
    return dual_weights(graph.counts, capacity, duals)


def decide(lengths: Sequence[int], machines: int, capacity: int, time_limit: float) -> tuple[str, list[int] | None]:
    """('feasible', machine of each job) | ('infeasible', None) | ('unknown', None)."""
    deadline = time.monotonic() + time_limit
    graph = build(lengths, capacity, MAX_GRAPH, deadline)
    if graph is None:
        return "unknown", None
    model, n_arcs, _ = _model(graph, integer=True, machines=machines)
    if time.monotonic() > deadline:
        return "unknown", None
    solver = solve_model(model, MIP_BACKEND, deadline - time.monotonic())
    if solver.status() in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        bins = bins_from_flow(graph, [round(v) for v in solver.variable_values()[:n_arcs].tolist()])
        return "feasible", assignment_from_bins(lengths, bins)
    if solver.status() == SolveStatus.INFEASIBLE:
        return "infeasible", None
    return "unknown", None


def dive(lengths: Sequence[int], machines: int, capacity: int, time_limit: float) -> tuple[str, list[int] | None]:
    """LP diving: fix machines to patterns of the LP (by column generation
    where ``pcmax_patterns.pays``, else the arc-flow graph's), re-solve on the jobs left.

    Each step solves the LP on the jobs left and tries to fix, from the
    boldest step to the most careful one: every pattern the LP uses whole
    plus every disjoint pattern it uses more than half; the whole ones only;
    the heavier half of those; the heaviest pattern alone, then the next
    one. When what is left no longer fits the machines left it backs up to
    the next step. Once at most ``EXACT_REST`` jobs are left, bin completion
    decides the rest instead of further LPs. The arc-flow LP bound is almost
    always tight, so a dive usually ends in a packing; it never proves
    infeasibility: ('feasible', machine of each job) | ('unknown', None).
    """
    deadline = time.monotonic() + time_limit
    try:
        bins = _dive(Counter(lengths), machines, capacity, deadline, whole=True)
    except TimeoutError:
        return "unknown", None
    if bins is None:
        return "unknown", None
    return "feasible", assignment_from_bins(lengths, bins)


#: Patterns tried alone, heaviest first, when fixing the bulk fails.
DIVE_ALTERNATIVES = 2
#: Jobs left from which bin completion, not the LP, decides the rest of a
#: dive: on Lawrinenko's classes 6-7 (two or three jobs a machine, where the
#: dive is what finds the schedule) a rest of 40 jobs is decided in a few
#: milliseconds, where the LPs backed up through thousands of dead ends.
EXACT_REST = 40


#: Patterns a dive's step hands down to the next one's restricted LP, at most.
SEED_PATTERNS = 400

Paths = list[tuple[float, list[int]]]  # (weight, lengths of one machine) per pattern, heaviest first


def _dive(left: Counter, machines: int, capacity: int, deadline: float, whole: bool = False,
          seeds: tuple[tuple[int, ...], ...] = ()) -> list[list[int]] | None:
    if not sum(left.values()):
        return []
    if time.monotonic() > deadline:
        raise TimeoutError
    if sum(left.values()) <= EXACT_REST:
        status, bins = _pack_rest(left, machines, capacity, deadline)
        if status != UNKNOWN:
            return bins
    paths = _patterns(left, machines, capacity, deadline, whole, seeds)
    if paths is None:
        return None
    whole = [items for weight, items in paths for _ in range(floor(weight + 1e-6))]
    halves = [items for weight, items in paths if 0.5 < weight % 1 < 1 - 1e-6]
    options = [(whole, halves), (whole, []), (whole[:len(whole) // 2], [])]
    options += [([items], []) for _, items in paths[:DIVE_ALTERNATIVES]]
    for k, (forced, optional) in enumerate(options):
        if (forced, optional) in options[:k]:  # no halves, or one whole pattern: a step already tried
            continue
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
                bins.append(list(items))  # a copy: ``items`` is remembered in ``_PATTERNS``
        if not bins or len(bins) > machines:
            continue
        tail = _dive(rest, machines - len(bins), capacity, deadline, seeds=_handed_down(paths, seeds))
        if tail is not None:
            return bins + tail
    return None


#: The LP's patterns by (capacity, machines, jobs left), so that a dive
#: asked again at the same C (the engine's last step, with the time a
#: confirmation did not need) goes through the steps the first one took
#: without an LP and goes on where it stopped. Cleared when full.
_PATTERNS: dict[tuple, Paths | None] = {}
_PATTERNS_SIZE = 2_000


def forget_patterns() -> None:
    """Forget the remembered LP steps (``clear_cache`` of the engine)."""
    _PATTERNS.clear()
    forget_pattern_lps()


def _handed_down(paths: Paths, seeds: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """The patterns this step's LP used, then those it was seeded with,
    for the next step's restricted LP (at most ``SEED_PATTERNS``)."""
    return tuple(dict.fromkeys([tuple(items) for _, items in paths] + list(seeds)))[:SEED_PATTERNS]


def _patterns(left: Counter, machines: int, capacity: int, deadline: float,
              whole: bool, seeds: tuple[tuple[int, ...], ...]) -> Paths | None:
    """The LP's patterns for the jobs left, heaviest first, or None
    when the LP needs more machines than are left (or could not be solved)."""
    key = (capacity, machines, tuple(sorted((+left).items())))  # + drops the lengths none are left of
    if key in _PATTERNS:
        return _PATTERNS[key]
    paths = _fractional(left, machines, capacity, deadline, whole, seeds)
    if paths is None and time.monotonic() > deadline:
        raise TimeoutError  # not an answer to remember
    if len(_PATTERNS) >= _PATTERNS_SIZE:
        _PATTERNS.clear()
    _PATTERNS[key] = paths
    return paths


def _fractional(left: Counter, machines: int, capacity: int, deadline: float,
                whole: bool, seeds: tuple[tuple[int, ...], ...]) -> Paths | None:
    """The LP's fractional packing of the jobs left in ``machines``, heaviest
    pattern first, where ``pcmax_patterns.pays`` by column generation: at
    the dive's first step (``whole``: all the jobs) from the restricted LP
    the bound's column generation left at this C, at a deeper step from a
    new restricted LP seeded with the patterns the steps above it used
    (``seeds``) that the jobs left can still fill, a start that spares
    column generation most of its pricings and, on MOSP Fig. 8's
    organizations, the graph's far slower LP (docs/development-notes.md).
    Elsewhere the arc-flow graph's flow, cut into paths."""
    lengths = sorted(left.elements())
    if pays(len(lengths), capacity):
        return _restricted_lp(lengths, whole, seeds).fractional(capacity, machines, deadline)
    solved = _lp(lengths, capacity, deadline - time.monotonic())
    if solved is None or _machines_needed(solved[1]) > machines:
        return None
    graph, _, flow, _ = solved
    return sorted(paths_from_flow(graph, flow), key=lambda p: -p[0])


def _restricted_lp(lengths: list[int], whole: bool, seeds: tuple[tuple[int, ...], ...]) -> PatternLP:
    """The dive's first step's restricted LP is the one the bound left (kept
    per job multiset); a deeper step's is new, seeded with ``seeds``."""
    if whole:
        return pattern_lp(tuple(lengths))
    lp = PatternLP(lengths)
    lp.seed(seeds)
    return lp


def _pack_rest(left: Counter, machines: int, capacity: int, deadline: float) -> tuple[str, list[list[int]] | None]:
    """Bin completion on the jobs left: (status, the bins' lengths when it packs them)."""
    lengths = tuple(left.elements())
    status, machine_of = pack(lengths, machines, capacity, deadline)
    if status != FEASIBLE:
        return status, None
    bins: list[list[int]] = [[] for _ in range(machines)]
    for p, q in zip(lengths, machine_of):
        bins[q].append(p)
    return status, [items for items in bins if items]
