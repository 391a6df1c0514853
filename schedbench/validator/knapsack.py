"""Knapsack selections: distinct item indexes whose total weight fits the capacity."""

from collections import Counter

from schedbench.validator.violation import Violation

FAMILY = "knapsack"


def check(instance, selected, objective: str | None = None, references=None) -> list[Violation]:
    n = len(instance.items)
    out = []
    for i, times in sorted(Counter(selected).items()):
        if not 0 <= i < n:
            out.append(Violation("item-range", f"item {i}", f"is not in 0..{n - 1}"))
        elif times > 1:
            out.append(Violation("item-twice", f"item {i}", f"is selected {times} times"))
    weight = instance.weight_of({i for i in selected if 0 <= i < n})
    if weight > instance.capacity:
        out.append(Violation("capacity", "selected",
                             f"total weight {weight} exceeds the capacity {instance.capacity}"))
    return out
