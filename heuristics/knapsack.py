"""Exact 0-1 knapsack selectors for the DSSP job-selection phase (two-phase
rendering paper, §2.2, equations (1)-(2)): pick items of maximum total
profit whose total weight is at most the capacity.

Both take plain sequences of non-negative integers and return the selected
item indexes in increasing order. Neither ever takes an item of profit 0
(it earns nothing); an item of weight 0 and profit > 0 is in every optimum.
``HEURISTICS`` runs them on knapsack instances (so their "heuristic" values
are optima, a check of the exact solvers).
"""

from collections.abc import Sequence

import numpy as np
from ortools.algorithms.python import knapsack_solver


def dp_by_profits(weights: Sequence[int], profits: Sequence[int], capacity: int) -> tuple[int, ...]:
    """The DP's selection for one capacity (see ``dp_by_profits_many``)."""
    return dp_by_profits_many(weights, profits, [capacity])[0]


def dp_by_profits_many(weights: Sequence[int], profits: Sequence[int],
                       capacities: Sequence[int]) -> list[tuple[int, ...]]:
    """The paper's "dynamic programming by profits": for every total profit q,
    the least weight of a subset of the items seen so far with profit exactly
    q; the answer is the largest q whose least weight fits. O(n * sum p) time
    (one numpy pass per item over all profits) and bytes (one bit of choice
    per item and profit, for the reconstruction). The table does not depend
    on the capacity beyond the largest, so one table answers every capacity
    (the selection parameter r sweeps of §4.2 build it once).

    Ties: of the most profitable subsets, one of least weight; among those,
    an item is used only if it strictly lightens what the items before it
    reach (so later items are left out whenever they can be).
    """
    total, capacity = sum(profits), max(capacities)
    unreachable = capacity + 1  # a subset heavier than every capacity is as good as none
    lightest = np.full(total + 1, unreachable, dtype=np.int64)
    lightest[0] = 0
    improved = np.zeros((len(profits), total + 1), dtype=bool)  # [i, q]: the lightest profit-q subset uses item i
    for i, (weight, profit) in enumerate(zip(weights, profits)):
        if profit > 0 and weight <= capacity:
            candidate = lightest[:total + 1 - profit] + weight  # a new array: each item counts once
            better = candidate < lightest[profit:]
            lightest[profit:][better] = candidate[better]
            improved[i, profit:] = better
    out = []
    for limit in capacities:
        best = int(np.flatnonzero(lightest <= limit)[-1])
        chosen = []
        for i in range(len(profits) - 1, -1, -1):
            if improved[i, best]:
                chosen.append(i)
                best -= profits[i]
        out.append(tuple(reversed(chosen)))
    return out


def ortools_knapsack(weights: Sequence[int], profits: Sequence[int], capacity: int) -> tuple[int, ...]:
    """OR-Tools' knapsack branch and bound (one-dimensional use of its
    multidimensional solver), proven optimal since no time limit is set.

    The solver may also pack items of profit 0 that happen to fit; they are
    dropped, so its selection means the same as ``dp_by_profits``'s.
    """
    solver = knapsack_solver.KnapsackSolver(
        knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "selection")
    solver.init(list(profits), [list(weights)], [capacity])
    solver.solve()
    return tuple(i for i, profit in enumerate(profits) if profit > 0 and solver.best_solution_contains(i))


def dp_selection(instance) -> tuple[int, ...]:
    """``dp_by_profits`` on a knapsack instance."""
    return dp_by_profits(instance.weights, instance.profits, instance.capacity)


def ortools_selection(instance) -> tuple[int, ...]:
    """``ortools_knapsack`` on a knapsack instance."""
    return ortools_knapsack(instance.weights, instance.profits, instance.capacity)


HEURISTICS = {"dp": dp_selection, "ortools": ortools_selection}
