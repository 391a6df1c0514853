"""Knapsack metrics (SPEC.md family ``knapsack``): a selection's profit and
weight, and the LP relaxation's bound, all exact."""

from collections.abc import Sequence
from fractions import Fraction
from functools import cmp_to_key

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


def summary(instance, selected, heuristic: str | None, references: dict) -> dict:
    """The selection's profit and weight."""
    return {"profit": instance.profit_of(selected), "weight": instance.weight_of(selected)}
