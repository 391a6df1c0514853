"""Knapsack metrics (SPEC.md family ``knapsack``): a selection's profit and
weight, and the LP relaxation's bound, all exact."""

from collections.abc import Sequence
from fractions import Fraction

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
    part (items of weight 0 always fit). Checkable, and certified as such."""
    left, total = Fraction(capacity), Fraction(0)
    for i in by_density(weights, profits):
        if weights[i] == 0:
            total += profits[i]
        elif left > 0:
            take = min(Fraction(1), left / weights[i])
            total += take * profits[i]
            left -= take * weights[i]
    return total


def by_density(weights: Sequence[int], profits: Sequence[int]) -> list[int]:
    """Item indexes, weight 0 first, then by decreasing profit per weight (ties: index)."""
    return sorted(range(len(weights)), key=lambda i: (weights[i] > 0, -Fraction(profits[i], weights[i])
                                                      if weights[i] else Fraction(0), i))


METRICS = {"weight": lambda instance, selected: instance.weight_of(selected)}


def gantt_bars(instance, selected) -> list[Bar]:
    """A selection has no time axis."""
    return []


def summary(instance, selected, heuristic: str | None, references: dict) -> dict:
    """The selection's profit and weight."""
    return {"profit": instance.profit_of(selected), "weight": instance.weight_of(selected)}
