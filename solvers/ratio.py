"""Exact minimisation of a maximum of ratios, with integer models only.

The objectives max-user-stretch (F_u / F_u*) and max-campaign-stretch
(Δ_i / l_i) are ``max_k N_k / D_k``: integer numerators decided by the
schedule over fixed rational denominators. Their optimum is one of the
values N / D_k, so it is found by bisection over those candidates with
integer feasibility models: "is there a schedule with N_k <= floor(r D_k)
for every k?". Every question is an integer model with integer data, so no
float scale factor ever enters, and the answer is exact:

- a feasible answer gives a schedule whose exact value v <= r: new upper end;
- an infeasible answer proves OPT > r, so OPT >= the smallest candidate above r.

It stops when no candidate lies in [lower, upper): then upper is optimal.
"""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL


@dataclass
class RatioSearch:
    status: str
    value: Fraction
    bound: Fraction
    schedule: object
    questions: int


def largest_candidate_below(value: Fraction, denominators: Sequence[Fraction]) -> Fraction:
    return max(Fraction(ceil(value * d) - 1) / d for d in denominators)


def smallest_candidate_above(value: Fraction, denominators: Sequence[Fraction]) -> Fraction:
    return min(Fraction(floor(value * d) + 1) / d for d in denominators)


def minimize_max_ratio(denominators: Sequence[Fraction], lower: Fraction, upper: Fraction, schedule,
                       value_of: Callable[[object], Fraction],
                       feasible: Callable[[list[int], float], tuple[str, object]],
                       deadline: float) -> RatioSearch:
    """``feasible(limits, seconds)`` answers (status, schedule) for N_k <= limits[k].

    ``upper`` is the exact value of ``schedule`` (a heuristic's, say) and
    ``lower`` a proven lower bound on the optimum.
    """
    questions = 0
    while True:
        below = largest_candidate_below(upper, denominators)
        if upper <= lower or below < lower:
            return RatioSearch(OPTIMAL, upper, upper, schedule, questions)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return RatioSearch(FEASIBLE, upper, lower, schedule, questions)
        target = (lower + below) / 2
        limits = [floor(target * d) for d in denominators]
        status, found = feasible(limits, remaining)
        questions += 1
        if found is not None:
            value = value_of(found)
            if value > target:
                raise AssertionError(f"model broke its limits: value {value} > target {target}")
            upper, schedule = value, found
        elif status == INFEASIBLE:
            lower = smallest_candidate_above(target, denominators)
        else:
            return RatioSearch(FEASIBLE, upper, lower, schedule, questions)
