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


def round_bound(bound: float | None, minimize: bool = True, tolerance: float = 1e-6) -> int | None:
    """A float bound of an integer objective, rounded to the integer it proves."""
    if bound is None:
        return None
    return ceil(bound - tolerance) if minimize else floor(bound + tolerance)
