"""Exact 0-1 knapsack selectors for the DSSP job-selection phase (two-phase
rendering paper, §2.2, equations (1)-(2)): pick items of maximum total
profit whose total weight is at most the capacity.

Both take plain sequences of non-negative integers and return the selected
item indexes in increasing order. Neither ever takes an item of profit 0
(it earns nothing); an item of weight 0 and profit > 0 is in every optimum.
"""

from collections.abc import Sequence

from ortools.algorithms.python import knapsack_solver


def dp_by_profits(weights: Sequence[int], profits: Sequence[int], capacity: int) -> tuple[int, ...]:
    """The paper's "dynamic programming by profits": for every total profit q,
    the least weight of a subset of the items seen so far with profit exactly
    q; the answer is the largest q whose least weight fits. O(n * sum p) time
    and bytes (one bit of choice per item and profit, for the reconstruction).

    Ties: of the most profitable subsets, one of least weight; among those,
    an item is used only if it strictly lightens what the items before it
    reach (so later items are left out whenever they can be).
    """
    total = sum(profits)
    unreachable = capacity + 1  # a subset heavier than the capacity is as good as none
    lightest = [0] + [unreachable] * total
    improved = []  # improved[i][q] = 1: the lightest subset of items 0..i with profit q uses item i
    reach = 0      # the profit of all items seen so far
    for weight, profit in zip(weights, profits):
        row = bytearray(total + 1)
        if profit > 0 and weight <= capacity:
            for q in range(reach + profit, profit - 1, -1):  # downwards: each item once
                candidate = lightest[q - profit] + weight
                if candidate < lightest[q]:
                    lightest[q], row[q] = candidate, 1
        improved.append(row)
        reach += profit
    best = max(q for q in range(total + 1) if lightest[q] <= capacity)
    chosen = []
    for i in range(len(improved) - 1, -1, -1):
        if improved[i][best]:
            chosen.append(i)
            best -= profits[i]
    return tuple(reversed(chosen))


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
