"""0-1 knapsack: the most profitable selection that fits, and its proven bound.

The result's solution is the tuple of selected item indexes; its objective
is the profit recomputed from that selection, its bound the model's proven
upper bound (``optimal`` when the model proves the value). The empty
selection always fits, so the answer is never ``infeasible``.
"""

import time
from fractions import Fraction

from schedbench.result import FEASIBLE, OPTIMAL, UNKNOWN, Result


def solve(instance, solver: str, time_limit: float) -> Result:
    began = time.perf_counter()
    from schedbench.solvers import backend

    outcome = backend(solver, "knapsack").solve(instance, time_limit)
    elapsed = time.perf_counter() - began
    if outcome.solution is None:
        return Result(UNKNOWN, None, None, None, solver, "model", elapsed)
    selected = tuple(i for i, x in enumerate(outcome.solution) if x)
    value = Fraction(instance.profit_of(selected))
    if outcome.status == OPTIMAL:
        return Result(OPTIMAL, value, value, selected, solver, "model", elapsed)
    bound = None if outcome.bound is None else Fraction(outcome.bound)
    return Result(FEASIBLE, value, bound, selected, solver, "model", elapsed)
