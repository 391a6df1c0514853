"""Knapsack metrics (SPEC.md family ``knapsack``): a selection's profit and
weight, and the LP relaxation's bound, all exact."""

from fractions import Fraction

from schedbench.metrics import Bar


def objective(instance, selected, name: str, references: dict) -> Fraction:
    if name != "profit":
        raise ValueError(f"unknown knapsack objective {name!r}")
    return Fraction(instance.profit_of(selected))


def lower_bound(instance, name: str) -> Fraction:
    """An upper bound (profit is maximised): the LP relaxation, Dantzig's
    greedy by decreasing profit per weight with the first item that does
    not fit taken in part (items of weight 0 always fit)."""
    capacity, total = Fraction(instance.capacity), Fraction(0)
    for item in sorted(instance.items, key=_density):
        if item.weight == 0:
            total += item.profit
        elif capacity > 0:
            take = min(Fraction(1), capacity / item.weight)
            total += take * item.profit
            capacity -= take * item.weight
    return total


def _density(item) -> tuple[bool, Fraction]:
    """Items of weight 0 first, then by decreasing profit per weight."""
    return item.weight > 0, -Fraction(item.profit, item.weight) if item.weight else Fraction(0)


METRICS = {"weight": lambda instance, selected: instance.weight_of(selected)}


def gantt_bars(instance, selected) -> list[Bar]:
    """A selection has no time axis."""
    return []


def summary(instance, selected, heuristic: str | None, references: dict) -> dict:
    """The selection's profit and weight."""
    return {"profit": instance.profit_of(selected), "weight": instance.weight_of(selected)}
