"""Knapsack metrics (the format reference family ``knapsack``): a selection's profit and
weight, and the LP relaxation's bound, all exact."""

from collections.abc import Sequence
from fractions import Fraction
from functools import cmp_to_key

import numpy as np
from ortools.algorithms.python import knapsack_solver

from schedbench.metrics import Bar


def objective(instance, selected, name: str, references: dict) -> Fraction:
    if name != "profit":
        raise ValueError(f"unknown knapsack objective {name!r}")
    return Fraction(instance.profit_of(selected))


def lower_bound(instance, name: str) -> Fraction:
    """An upper bound (profit is maximised): the LP relaxation (``dantzig``)."""
    return dantzig(instance.weights, instance.profits, instance.capacity)


def dantzig(weights: Sequence[int], profits: Sequence[int], capacity: int) -> Fraction:
    """The LP relaxation's optimum (Dantzig 1957), exact: items by
    decreasing profit per weight, the first one that does not fit taken in
    part (items of weight 0 always fit). Checkable, and certified as such.
    Sums in integers; only the part item is a fraction."""
    left, total = capacity, 0
    for i in by_density(weights, profits):
        if weights[i] <= left:
            total += profits[i]
            left -= weights[i]
        else:
            return total + Fraction(profits[i] * left, weights[i])
    return Fraction(total)


def by_density(weights: Sequence[int], profits: Sequence[int]) -> list[int]:
    """Item indexes, weight 0 first, then by decreasing profit per weight (ties: index),
    compared exactly by cross-multiplying (no fraction is built)."""
    def before(i: int, j: int) -> int:
        if (weights[i] == 0) != (weights[j] == 0):
            return -1 if weights[i] == 0 else 1
        return (profits[j] * weights[i] - profits[i] * weights[j]) or (i - j)
    return sorted(range(len(weights)), key=cmp_to_key(before))


METRICS = {"weight": lambda instance, selected: instance.weight_of(selected)}


def gantt_bars(instance, selected) -> list[Bar]:
    """A selection has no time axis."""
    return []


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
