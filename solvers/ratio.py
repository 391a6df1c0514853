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
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import ceil, floor

from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL
from schedbench.solvers import backend
from schedbench.solvers.certificate import FORMULA, SEARCH_SHARE, confirm, other_methods

#: Share of the confirmation's time kept for the claim before the last: the
#: last claim is often the search's hardest refutation, and should a second
#: method not repeat it in time, the bound is that earlier claim (confirmed
#: in turn) rather than the search's certified start (often 1).
FALLBACK_SHARE = 0.1

#: ask(model module, limits, seconds) -> (status, schedule or None): "N_k <= limits[k] for every k?";
#: status FORMULA when the limits leave a start window empty (no model asked).
Ask = Callable[[object, list[int], float], tuple[str, object]]


@dataclass
class RatioSearch:
    status: str
    value: Fraction
    bound: Fraction
    schedule: object
    questions: int
    proof: tuple[str, ...] = ()
    details: dict = field(default_factory=dict)


def largest_candidate_below(value: Fraction, denominators: Sequence[Fraction]) -> Fraction:
    return max(Fraction(ceil(value * d) - 1) / d for d in denominators)


def smallest_candidate_above(value: Fraction, denominators: Sequence[Fraction]) -> Fraction:
    return min(Fraction(floor(value * d) + 1) / d for d in denominators)


def minimize_max_ratio(denominators: Sequence[Fraction], lower: Fraction, lower_proof: tuple[str, ...],
                       upper: Fraction, schedule, value_of: Callable[[object], Fraction],
                       family: str, solver: str, ask: Ask, time_limit: float) -> RatioSearch:
    """Bisection with ``solver``'s model of ``family``; ``upper`` is the exact
    value of ``schedule`` (a heuristic's, say) and ``lower`` a certified lower
    bound on the optimum (``lower_proof`` says how).

    Refutations are the backend's claims: the one the answer rests on (the
    target just below the answer, or the last refuted one on a time limit)
    is asked again by an independent method (``solvers.certificate``);
    where it is not repeated in time, the refutation before it is asked
    again instead, within ``FALLBACK_SHARE`` of the time left."""
    began = time.monotonic()
    search_end, deadline = began + SEARCH_SHARE * time_limit, began + time_limit
    model = backend(solver, family)

    def limits(target: Fraction) -> list[int]:
        return [floor(target * d) for d in denominators]

    certified, claimed, refuted, questions = lower, lower, None, 0
    refutations: list[Fraction] = []  # the targets the model refuted, increasing
    while time.monotonic() < search_end:
        below = largest_candidate_below(upper, denominators)
        if upper <= claimed or below < claimed:
            break
        target = (claimed + below) / 2
        status, found = ask(model, limits(target), search_end - time.monotonic())
        questions += 1
        if found is not None:
            value = value_of(found)
            if value > target:
                raise AssertionError(f"model broke its limits: value {value} > target {target}")
            upper, schedule = value, found
        elif status in (INFEASIBLE, FORMULA):
            claimed, refuted = smallest_candidate_above(target, denominators), target
            if status == FORMULA:  # a checkable refutation: certified as it stands
                certified, lower_proof = claimed, ("windows",)
            else:
                refutations.append(target)
        else:
            break
    proof, details = lower_proof, {}
    below = largest_candidate_below(upper, denominators)
    if claimed > certified and below >= certified:
        question = below if below < claimed else refuted  # the weakest question the claim needs

        def confirmed(target: Fraction, until: float):
            return confirm(other_methods(family, solver, lambda other, seconds: ask(other, limits(target), seconds)),
                           until)

        earlier = next((r for r in reversed(refutations)  # a strictly weaker question than the last, if any
                        if certified < smallest_candidate_above(r, denominators) <= question), None)
        reserve = 0.0 if earlier is None else FALLBACK_SHARE * (deadline - time.monotonic())
        done = confirmed(question, deadline - reserve)
        if done.confirmed:
            certified, proof = smallest_candidate_above(question, denominators), (solver, done.by)
        elif done.found is not None and value_of(done.found) < upper:  # the claim was false
            upper, schedule = value_of(done.found), done.found
        elif done.found is None and earlier is not None:  # the claim before it, as the bound if confirmed instead
            again = confirmed(earlier, deadline)
            if again.confirmed:
                certified, proof = smallest_candidate_above(earlier, denominators), (solver, again.by)
            elif again.found is not None and value_of(again.found) < upper:  # both claims were false
                upper, schedule = value_of(again.found), again.found
            done = replace(done, seconds=done.seconds + again.seconds, found=again.found, found_by=again.found_by)
        details.update(done.details(claimed, solver, certified))
    if upper <= certified or largest_candidate_below(upper, denominators) < certified:
        return RatioSearch(OPTIMAL, upper, upper, schedule, questions, proof, details)
    return RatioSearch(FEASIBLE, upper, certified, schedule, questions, proof, details)
