"""Exact 0-1 knapsack selectors for the DSSP job-selection phase (two-phase
rendering paper, §2.2, equations (1)-(2)): pick items of maximum total
profit whose total weight is at most the capacity.

Both take plain sequences of non-negative integers and return the selected
item indexes in increasing order. Neither ever takes an item of profit 0
(it earns nothing); an item of weight 0 and profit > 0 is in every optimum.
``HEURISTICS`` runs them on knapsack instances (so their "heuristic" values
are optima, a check of the exact solvers).
"""

from schedbench.metrics.knapsack import dp_by_profits, ortools_knapsack


def dp_selection(instance) -> tuple[int, ...]:
    """``dp_by_profits`` on a knapsack instance."""
    return dp_by_profits(instance.weights, instance.profits, instance.capacity)


def ortools_selection(instance) -> tuple[int, ...]:
    """``ortools_knapsack`` on a knapsack instance."""
    return ortools_knapsack(instance.weights, instance.profits, instance.capacity)


HEURISTICS = {"dp": dp_selection, "ortools": ortools_selection}
