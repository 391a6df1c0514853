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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import ceil, floor
from types import ModuleType

from schedbench.result import FEASIBLE, OPTIMAL
from schedbench.solvers.exact.certificate import (SEARCH_SHARE, Confirmation, confirm, is_checked, other_methods,
                                                  is_refutation, refutation_by)

#: Share of the confirmation's time kept for the claim before the last: the
#: last claim is often the search's hardest refutation, and should a second
#: method not repeat it in time, the bound is that earlier claim (confirmed
#: in turn) rather than the search's certified start (often 1).
FALLBACK_SHARE = 0.1

#: ask(model module, limits, seconds) -> (status, schedule or None): "N_k <= limits[k] for every k?";
#: a checked refutation (``certificate.FORMULA``) when the limits leave a start window empty (no model asked).
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
                       models: Mapping[str, ModuleType], solver: str, ask: Ask, time_limit: float) -> RatioSearch:
    """Bisection with the family's ``models[solver]``; ``upper`` is the exact
    value of ``schedule`` (a heuristic's, say) and ``lower`` a certified lower
    bound on the optimum (``lower_proof`` says how).

    Refutations are the backend's claims: the one the answer rests on (the
    target just below the answer, or the last refuted one on a time limit)
    is asked again by an independent method (``solvers.exact.certificate``);
    where it is not repeated in time, the refutation before it is asked
    again instead, within ``FALLBACK_SHARE`` of the time left."""
    began = time.monotonic()
    search_end, deadline = began + SEARCH_SHARE * time_limit, began + time_limit
    search = _Bisection(denominators, value_of, models, solver, ask, upper, schedule,
                        certified=lower, proof=lower_proof, claimed=lower)
    search.bisect(models[solver], search_end)
    details = search.confirm_claim(deadline)
    upper, certified = search.upper, search.certified
    if upper <= certified or largest_candidate_below(upper, denominators) < certified:
        return RatioSearch(OPTIMAL, upper, upper, search.schedule, search.questions, search.proof, details)
    return RatioSearch(FEASIBLE, upper, certified, search.schedule, search.questions, search.proof, details)


@dataclass
class _Bisection:
    """The search of ``minimize_max_ratio``: what it asks (the candidates'
    ``denominators``, a schedule's exact value, the backend's ``ask``) and
    where it stands: the best schedule and its value ``upper``, the bound
    ``certified`` (``proof`` says how) and the one ``claimed`` by the
    model's refutations, not confirmed yet; the last target refuted and
    every one the model refuted, increasing."""
    denominators: Sequence[Fraction]
    value_of: Callable[[object], Fraction]
    models: Mapping[str, ModuleType]
    solver: str
    ask: Ask
    upper: Fraction
    schedule: object
    certified: Fraction
    proof: tuple[str, ...]
    claimed: Fraction
    refuted: Fraction | None = None
    refutations: list[Fraction] = field(default_factory=list)
    questions: int = 0

    def limits(self, target: Fraction) -> list[int]:
        """The numerators' limits of the question "is the maximum ratio <= ``target``?"."""
        return [floor(target * d) for d in self.denominators]

    def bisect(self, model, search_end: float) -> None:
        """Ask ``model`` about the middle of the candidates between the claimed
        bound and the best value until none is left, the model answers
        neither way, or ``search_end``."""
        while time.monotonic() < search_end:
            below = largest_candidate_below(self.upper, self.denominators)
            if self.upper <= self.claimed or below < self.claimed:
                break
            target = (self.claimed + below) / 2
            status, found = self.ask(model, self.limits(target), search_end - time.monotonic())
            self.questions += 1
            if found is not None:
                value = self.value_of(found)
                if value > target:
                    raise AssertionError(f"model broke its limits: value {value} > target {target}")
                self.upper, self.schedule = value, found
            elif is_refutation(status):
                self.claimed, self.refuted = smallest_candidate_above(target, self.denominators), target
                if is_checked(status):  # a checkable refutation: certified as it stands
                    self.certified, self.proof = self.claimed, (refutation_by(status, ""),)
                else:
                    self.refutations.append(target)
            else:
                break

    def confirm_claim(self, deadline: float) -> dict:
        """Have the claimed bound confirmed by another method (see
        ``minimize_max_ratio``); the confirmation's details, empty when
        nothing above the certified bound is claimed."""
        below = largest_candidate_below(self.upper, self.denominators)
        if not (self.claimed > self.certified and below >= self.certified):
            return {}
        question = below if below < self.claimed else self.refuted  # the weakest question the claim needs
        earlier = next((r for r in reversed(self.refutations)  # a strictly weaker question than the last, if any
                        if self.certified < smallest_candidate_above(r, self.denominators) <= question), None)
        reserve = 0.0 if earlier is None else FALLBACK_SHARE * (deadline - time.monotonic())
        done = self.confirmed(question, deadline - reserve)
        if done.found is None and not done.confirmed and earlier is not None:
            # the claim before it, as the bound if confirmed instead
            again = self.confirmed(earlier, deadline)
            done = replace(done, seconds=done.seconds + again.seconds, found=again.found, found_by=again.found_by)
        return done.details(self.claimed, self.solver, self.certified)

    def confirmed(self, target: Fraction, until: float) -> Confirmation:
        """The refutation of ``target`` asked again by the other methods; the
        bound it certifies, or the better schedule one of them found (the
        claim was false), is taken."""
        done = confirm(other_methods(self.models, self.solver,
                                     lambda other, seconds: self.ask(other, self.limits(target), seconds)), until)
        if done.confirmed:
            self.certified, self.proof = smallest_candidate_above(target, self.denominators), (self.solver, done.by)
        elif done.found is not None and (value := self.value_of(done.found)) < self.upper:
            self.upper, self.schedule = value, done.found
        return done
