"""The raw answer of one backend model, before the family layer turns it
into a ``Result`` with an exact, recomputed objective."""

from dataclasses import dataclass
from math import ceil, floor


@dataclass
class ModelOutcome:
    status: str                 # optimal | feasible | infeasible | unknown
    value: int | None           # the model's objective (integer models only)
    bound: int | None           # proven bound on the objective, rounded inward
    solution: list[int] | None  # starts or machine indexes, per job


def maximised(outcome: ModelOutcome) -> ModelOutcome:
    """The outcome of a maximisation written as minimising the negated
    objective (so ``round_bound`` and CBC's "Lower bound:" keep their
    meaning): value and bound back in the maximisation's sign, the bound
    becoming the proven upper bound."""
    if outcome.value is not None:
        outcome.value = -outcome.value
    if outcome.bound is not None:
        outcome.bound = -outcome.bound
    return outcome


def round_bound(bound: float | None, minimize: bool = True, tolerance: float = 1e-6) -> int | None:
    """A float bound of an integer objective, rounded to the integer it proves."""
    if bound is None:
        return None
    return ceil(bound - tolerance) if minimize else floor(bound + tolerance)
