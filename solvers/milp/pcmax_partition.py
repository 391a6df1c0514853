"""The P||Cmax decision "makespan <= C?" as a partition of the jobs into
machine patterns whose load lies in the only window a packing allows.

With m machines of capacity C and jobs of total length S, the room left
over is slack = m C - S, and in any packing every machine carries at least
C - slack (the other m - 1 carry at most C each). So the jobs fit iff m
patterns (multisets of lengths, at most count(s) of length s) with loads in
[C - slack, C] use every job exactly once: an integer program with one
variable per pattern (the machines that take it), one equality per length
and the machine count, solved by SCIP (``MIP_BACKEND``). Patterns are
enumerated whole, so the answer is exact either way: a solution is a
schedule (checked like any other), and infeasibility is a refutation, a
claim that another method must reach again (``solvers.exact.certificate``).

Why beside the arc-flow MILP: where the slack is small (a near-perfect
partition, the window a few units wide) the window holds few patterns,
and the equalities leave SCIP little to search. On MOSP Fig. 8's
organizations of 30 to 40 jobs on 10 machines with slack under 10, where
the arc-flow MILP, CP-SAT and the dive decided nothing within 10 s (and
bin completion only without its node budget), this decides each capacity
in 0.2 to 4 s over 1,000 to 14,000 patterns. Where the slack is large the
window holds too many patterns to enumerate: past ``MAX_PATTERNS`` the
question is left to the arc-flow MILP (``ModelTooLarge``). The engine asks
it where column generation pays (``pcmax_patterns.pays``: at most 64 jobs,
so a pattern's walk stays shallow, C from 1,000 on and at most 150,000
jobs x (C + 1) cells, so the count by load stays cheap): below C = 1,000
the arc-flow graph is small and its MILP decides in milliseconds, where
SCIP on thousands of pattern columns does not (asked there too, FAIRCAMP
Fig. 4's full run took 9.3 minutes instead of 7.0).
"""

import time
from collections import Counter
from collections.abc import Sequence

import numpy as np
import scipy.sparse
from ortools.linear_solver.python.model_builder_helper import ModelBuilderHelper, SolveStatus

from schedbench.errors import ModelTooLarge
from schedbench.result import FEASIBLE, INFEASIBLE, UNKNOWN
from schedbench.solvers.milp import pcmax as arcflow_models  # a module: see solvers.pcmax's imports
from schedbench.solvers.pcmax.arcflow import assignment_from_bins

#: At most this many patterns in the window (else the arc-flow MILP decides).
MAX_PATTERNS = 20_000

Pattern = tuple[int, ...]  # jobs of each distinct length, in the order of ``values``


def decide(lengths: Sequence[int], machines: int, capacity: int, time_limit: float) -> tuple[str, list[int] | None]:
    """('feasible', machine of each job) | ('infeasible', None) | ('unknown', None);
    ``ModelTooLarge`` when the window holds more than ``MAX_PATTERNS`` patterns."""
    deadline = time.monotonic() + time_limit
    counts = Counter(lengths)
    slack = machines * capacity - sum(lengths)
    if slack < 0 or max(lengths, default=0) > capacity:
        return INFEASIBLE, None
    values = sorted(counts, reverse=True)
    jobs_of = [counts[v] for v in values]
    low = max(capacity - slack, 0)
    if window_size(jobs_of, values, low, capacity) > MAX_PATTERNS:
        raise ModelTooLarge(f"more than {MAX_PATTERNS} patterns in the window")
    patterns = window_patterns(jobs_of, values, low, capacity, deadline)
    if patterns is None:
        return UNKNOWN, None
    if not patterns:
        return INFEASIBLE, None
    solver = arcflow_models.solve_model(_model(patterns, jobs_of, machines), arcflow_models.MIP_BACKEND,
                                        deadline - time.monotonic())
    if solver.status() in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        taken = [round(x) for x in solver.variable_values().tolist()]
        bins = [[v for v, jobs in zip(values, pattern) for _ in range(jobs)]
                for pattern, times in zip(patterns, taken) for _ in range(times)]
        return FEASIBLE, assignment_from_bins(lengths, bins)
    if solver.status() == SolveStatus.INFEASIBLE:
        return INFEASIBLE, None
    return UNKNOWN, None


def window_size(counts: Sequence[int], values: Sequence[int], low: int, high: int) -> int:
    """How many patterns have a load in [low, high] (at most ``MAX_PATTERNS``
    + 1), counted by load without listing them: ways[c] multisets of load c,
    one value at a time: asked before the walk, which would spend 20,000
    steps finding a wide window wide."""
    cap = MAX_PATTERNS + 1
    ways = np.zeros(high + 1, dtype=np.int64)
    ways[0] = 1
    for value, count in zip(values, counts):
        more = ways.copy()
        for jobs in range(1, min(count, high // value) + 1):
            more[jobs * value:] += ways[:high + 1 - jobs * value]
        ways = np.minimum(more, cap)
    return int(min(ways[low:].sum(), cap))


def window_patterns(counts: Sequence[int], values: Sequence[int], low: int, high: int,
                    deadline: float) -> list[Pattern] | None:
    """Every pattern (jobs of each value, at most ``counts``) with load in
    [low, high], by a depth-first walk that stops where even every job
    left cannot reach ``low``; None past the deadline."""
    tail = [0] * (len(values) + 1)  # the total length of the values from index j on
    for j in range(len(values) - 1, -1, -1):
        tail[j] = tail[j + 1] + counts[j] * values[j]
    found: list[Pattern] = []
    chosen = [0] * len(values)

    def walk(j: int, load: int) -> None:
        if load >= low:
            found.append(tuple(chosen))
        for i in range(j, len(values)):
            if load + tail[i] < low:  # even every job from i on falls short
                return
            if load + values[i] <= high and chosen[i] < counts[i]:
                chosen[i] += 1
                walk(i, load + values[i])
                chosen[i] -= 1
        if time.monotonic() > deadline:
            raise TimeoutError

    try:
        walk(0, 0)
    except TimeoutError:
        return None
    finally:
        del walk  # a recursive closure is a reference cycle
    return found


def _model(patterns: list[Pattern], counts: list[int], machines: int) -> ModelBuilderHelper:
    """x_p >= 0 integer per pattern; sum_p jobs_p(s) x_p = count(s) for each
    length s, and sum_p x_p = m; no objective (a feasibility question)."""
    table = np.array(patterns, dtype=float)  # patterns x lengths
    rows, columns = np.nonzero(table.T)
    values = table.T[rows, columns]
    n = len(patterns)
    matrix = scipy.sparse.csr_matrix(
        (np.concatenate([values, np.ones(n)]),
         (np.concatenate([rows, np.full(n, len(counts))]), np.concatenate([columns, np.arange(n)]))),
        shape=(len(counts) + 1, n))
    bounds = np.array([*counts, machines], dtype=float)
    model = ModelBuilderHelper()
    model.fill_model_from_sparse_data(np.zeros(n), np.full(n, float(machines)), np.zeros(n), bounds, bounds, matrix)
    for var in range(n):
        model.set_var_integrality(var, True)
    return model
