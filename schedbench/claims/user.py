"""Claims written by a user in a Python file, checked like the built-in ledgers.

A claim file names its ``FAMILY`` and lists its ``CLAIMS`` (``Claim``
objects whose check takes a ``Case``); it may define ``instances(count,
seed)``, else random instances come from the family's search start.
``check_file`` runs every claim on those instances (``run_ledger``, which
shrinks and saves each violation) and, with a search budget, on the
instances an adversarial search (``schedbench.search``) drives towards the
largest observed / bound.
"""

import importlib.util
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from schedbench import families
from schedbench.claims import Check, Claim, Tally, run_ledger, save_counterexample, shrink
from schedbench.errors import InstanceError, NotProven, UserInputError
from schedbench.model import instance_to_json, parse_instance
from schedbench.result import OPTIMAL
from schedbench.schedule import Schedule
from schedbench.search import Limits, Scored, search, smaller
from schedbench.solvers import solve
from schedbench.worst import start_of


class Case:
    """An instance with its optima and heuristic values computed on first
    use; each raises ``NotProven`` (the instance is then skipped) when it
    cannot be stated exactly."""

    def __init__(self, instance, time_limit: float = 10.0):
        self.instance, self.time_limit = instance, time_limit
        self._optima: dict[str, Fraction] = {}
        self._schedules: dict[str, Schedule] = {}

    @cached_property
    def objective(self) -> str:
        return families.objectives(self.instance.family)[0]

    def optimum(self, objective: str | None = None) -> Fraction:
        """The proven optimum of ``objective`` (default: the family's first)."""
        objective = objective or self.objective
        if objective not in self._optima:
            result = solve(self.instance, objective, None, self.time_limit)
            if result.status != OPTIMAL:
                raise NotProven(f"{objective} optimum not proven within {self.time_limit} s ({result.status})")
            self._optima[objective] = Fraction(result.objective)
        return self._optima[objective]

    def schedule(self, heuristic: str) -> Schedule:
        if heuristic not in self._schedules:
            self._schedules[heuristic] = families.heuristics(self.instance.family)[heuristic](self.instance)
        return self._schedules[heuristic]

    def value(self, heuristic: str, objective: str | None = None) -> Fraction:
        """Heuristic ``heuristic``'s exact objective value; only for a schedule valid by SPEC's rules."""
        objective = objective or self.objective
        schedule = self.schedule(heuristic)
        status, why = families.heuristic_verdict(self.instance, schedule, objective, heuristic)
        if status != "feasible":
            raise NotProven(f"{heuristic}'s schedule is {status}: {why}")
        return families.objective_value(self.instance, schedule, objective, self.time_limit)


@dataclass
class ClaimFile:
    path: Path
    family: str
    claims: list[Claim]
    module: ModuleType

    def instances(self, count: int, seed: int, limits: Limits) -> Iterable:
        """The file's own ``instances(count, seed)``, else the family's search start."""
        own = getattr(self.module, "instances", None)
        if own is not None:
            return own(count, seed)
        begin = start_of(self.family)
        rng = random.Random(seed)
        return [begin(rng, limits) for _ in range(count)]


def load(path: str | Path) -> ClaimFile:
    """Import a claim file; what it lacks is named, never guessed."""
    path = Path(path)
    if path.suffix != ".py" or not path.is_file():
        raise UserInputError("FILE", f"{path} is not a Python file")
    spec = importlib.util.spec_from_file_location(f"schedbench_user_claims_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: report it as their input, in one line
        raise UserInputError("FILE", f"{path} failed to load: {type(exc).__name__}: {exc}") from None
    family = getattr(module, "FAMILY", None)
    if family not in families.names():
        raise UserInputError(f"{path.name}: FAMILY", f"must name a family (known: {', '.join(families.names())}), "
                                                     f"got {family!r}")
    claims = getattr(module, "CLAIMS", None)
    if not isinstance(claims, list) or not claims or not all(isinstance(c, Claim) for c in claims):
        raise UserInputError(f"{path.name}: CLAIMS", "must be a non-empty list of schedbench.claims.Claim")
    return ClaimFile(path, family, claims, module)


def _smaller_instances(instance) -> Iterable:
    for data in smaller(instance_to_json(instance)):
        try:
            yield parse_instance(data)
        except (InstanceError, UserInputError):
            continue


def claim_score(claim: Claim, make_case: Callable[[Any], Any]) -> Callable[[Any], Scored | None]:
    """observed / bound on one instance (a yes-or-no claim scores 0 when it
    holds and 2 when it fails), or None where the claim does not apply or
    its numbers are not proven."""
    def score(instance) -> Scored | None:
        if not claim.applies(instance):
            return None
        try:
            check = claim.check(make_case(instance))
        except NotProven:
            return None
        ratio = check.ratio if check.ratio is not None else Fraction(0 if check.holds else 2)
        return Scored(ratio, {"check": check})

    return score


@dataclass(frozen=True)
class Searched:
    """What the adversarial search saw for one claim."""
    evaluated: int
    worst: Fraction | None


def check_file(claim_file: ClaimFile, count: int, seed: int, limits: Limits, search_seconds: float,
               time_limit: float, out_dir: Path, progress: Callable | None = None
               ) -> tuple[list[Tally], dict[str, Searched]]:
    """Every claim on ``count`` instances, then ``search_seconds`` of
    adversarial search shared among the claims (its best instance joins
    the tally); violations shrunk and saved."""
    tallies = run_ledger(claim_file.claims, claim_file.instances(count, seed, limits),
                         lambda inst: Case(inst, time_limit), _smaller_instances, instance_to_json, out_dir, progress)
    searched: dict[str, Searched] = {}
    if search_seconds <= 0:
        return tallies, searched
    begin = start_of(claim_file.family)
    for tally in tallies:
        score = claim_score(tally.claim, lambda inst: Case(inst, time_limit))
        found = search(lambda rng, scale: instance_to_json(begin(rng, scale)), score, families.size, limits, seed,
                       budget=search_seconds / len(tallies), shrink_result=False)
        searched[tally.claim.key] = Searched(found.evaluated, None if found.scored is None else found.scored.ratio)
        if found.scored is None:
            continue
        check: Check = found.scored.numbers["check"]
        tally.add(check)
        if not check.holds:
            violates = lambda inst: (s := score(inst)) is not None and not s.numbers["check"].holds  # noqa: E731
            small = shrink(parse_instance(found.data), violates, _smaller_instances)
            small_check = score(small).numbers["check"]
            path = save_counterexample(out_dir, tally.claim, small, small_check, instance_to_json)
            if str(path) not in tally.counterexamples:
                tally.counterexamples.append(str(path))
    return tallies, searched
