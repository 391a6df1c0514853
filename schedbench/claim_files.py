"""Claims written by a user in a Python file, checked like the built-in ledgers.

A claim file names its ``FAMILY`` and lists its ``CLAIMS`` (``Claim``
objects whose check takes a ``Case``); it may define ``instances(count,
seed)`` (instances or their JSON), else random instances come from the
family's search start. ``check_file`` runs every claim on those instances
(``run_ledger``, which shrinks and saves each violation) and, with a
search budget, on the instances an adversarial search
(``schedbench.search``) drives towards the largest observed / bound.

The file is the user's input: a check that raises (other than
``NotProven``) or returns something else than a ``Check`` stops the command
with one line naming the file and the claim.
"""

import difflib
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from schedbench import families
from schedbench.claims import Check, Claim, Tally, record_violation, run_ledger
from schedbench.errors import InstanceError, NotProven, UserInputError
from schedbench.model import instance_to_json, parse_instance
from schedbench.result import OPTIMAL
from schedbench.schedule import Schedule
from schedbench.search import Limits, Scored, Start, mutate, search, smaller
from schedbench.solvers import solve
from schedbench.user_code import import_file
from schedbench.worst import draw_start, json_start


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

    def _objective(self, objective: str | None) -> str:
        """``objective``, or the family's first; an unknown one is named
        ``objective`` (solve() would name its --objective option, which a claim file has not)."""
        objective = objective or self.objective
        known = families.objectives(self.instance.family)
        if objective not in known:
            raise UserInputError("objective", f"{self.instance.family} has no objective {objective!r} "
                                              f"(known: {', '.join(known)})")
        return objective

    def optimum(self, objective: str | None = None) -> Fraction:
        """The proven optimum of ``objective`` (default: the family's first)."""
        objective = self._objective(objective)
        if objective not in self._optima:
            result = solve(self.instance, objective, None, self.time_limit)
            if result.status != OPTIMAL:
                raise NotProven(f"{objective} optimum not proven within {self.time_limit} s ({result.status})")
            self._optima[objective] = Fraction(result.objective)
        return self._optima[objective]

    def schedule(self, heuristic: str) -> Schedule:
        if heuristic not in self._schedules:
            known = families.heuristics(self.instance.family)
            if heuristic not in known:
                raise UserInputError("heuristic", f"{self.instance.family} has no heuristic {heuristic!r} "
                                                  f"(known: {', '.join(known) or 'none'})")
            self._schedules[heuristic] = known[heuristic](self.instance)
        return self._schedules[heuristic]

    def value(self, heuristic: str, objective: str | None = None) -> Fraction:
        """Heuristic ``heuristic``'s exact objective value; only for a schedule valid by the format's rules."""
        objective = self._objective(objective)
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
        """The file's own ``instances(count, seed)`` (instances or their JSON),
        else ``count`` draws of the family's search start within ``limits``."""
        own = getattr(self.module, "instances", None)
        if own is None:
            rng = random.Random(seed)
            return [draw_start(self.family, rng, limits) for _ in range(count)]
        field = f"{self.path.name}: instances"
        items = _called(own, self.path, count, seed, field=field)
        if isinstance(items, (str, bytes, dict)) or not hasattr(items, "__iter__"):
            raise UserInputError(field, f"must return a list of instances or their JSON, got {type(items).__name__}")
        items = _called(list, self.path, items, field=field)  # a generator runs the user's code here
        return [_instance(item, self.path, index) for index, item in enumerate(items)]


#: The names a claim file may define for schedbench (any other name is its own).
FILE_NAMES = ("FAMILY", "CLAIMS", "instances")


def load(path: str | Path) -> ClaimFile:
    """Import a claim file; what it lacks is named, never guessed. Each claim's
    check is guarded: the user's errors become one line naming the claim."""
    module = import_file(path, "FILE")
    name = Path(path).name
    _misspelled(module, name)
    family = getattr(module, "FAMILY", None)
    if family not in families.names():
        raise UserInputError(f"{name}: FAMILY", f"must name a family (known: {', '.join(families.names())}), "
                                                f"got {family!r}")
    claims = getattr(module, "CLAIMS", None)
    if not isinstance(claims, list) or not claims or not all(isinstance(c, Claim) for c in claims):
        raise UserInputError(f"{name}: CLAIMS", "must be a non-empty list of schedbench.claims.Claim")
    keys = [claim.key for claim in claims]
    repeated = next((key for index, key in enumerate(keys) if key in keys[:index]), None)
    if repeated is not None:  # the ledger has one row per key: two claims would be merged into it
        raise UserInputError(f"{name}: CLAIMS", f"two claims have the key {repeated!r}")
    return ClaimFile(Path(path), family, [_guarded(c, name) for c in claims], module)


def _misspelled(module: ModuleType, file: str) -> None:
    """Refuse a name that is one of ``FILE_NAMES`` misspelled while that name
    is absent (``instance`` for ``instances``): the file would silently be
    checked on the default instances instead of its own."""
    lowered = {known.lower(): known for known in FILE_NAMES}
    for attr in vars(module):
        if attr.startswith("_") or attr in FILE_NAMES:
            continue
        close = difflib.get_close_matches(attr.lower(), lowered, n=1, cutoff=0.75)
        if close and not hasattr(module, lowered[close[0]]):
            raise UserInputError(f"{file}: {attr}", f'unknown name (did you mean "{lowered[close[0]]}"?)')


def _guarded(claim: Claim, file: str) -> Claim:
    def check(case) -> Check:
        found = _called(claim.check, file, case, field=f"{file}: {claim.key}")
        if not isinstance(found, Check):
            raise UserInputError(f"{file}: {claim.key}", f"the check must return a Check, got {type(found).__name__}")
        if found.ratio is not None and (isinstance(found.ratio, bool) or not isinstance(found.ratio, (int, Fraction))):
            raise UserInputError(f"{file}: {claim.key}", f"the Check's ratio must be None, an int or a Fraction "
                                                         f"(exact), got {found.ratio!r}")
        return found

    def applies(instance) -> bool:
        return bool(_called(claim.applies, file, instance, field=f"{file}: {claim.key}.applies"))

    return replace(claim, check=check, applies=applies)


def _called(function: Callable, file, *args, field: str | None = None) -> Any:
    """``function(*args)``; NotProven passes, a UserInputError (a Case's
    objective or heuristic unknown) is named inside ``field``, any other
    error is the file's."""
    try:
        return function(*args)
    except NotProven:
        raise
    except UserInputError as exc:
        inner = f": {exc.field}" if exc.field else ""
        raise UserInputError(f"{field or file}{inner}", exc.message) from None
    except (Exception, SystemExit) as exc:  # the user's code: its error or its exit, in one line
        raise UserInputError(field or str(file), f"raised {type(exc).__name__}: {exc}") from None


def _instance(item: Any, path: Path, index: int):
    if isinstance(item, dict):
        try:
            return parse_instance(item)
        except InstanceError as exc:
            raise UserInputError(f"{path.name}: instances()[{index}]", str(exc)) from None
    if not hasattr(item, "family"):
        raise UserInputError(f"{path.name}: instances()[{index}]", f"not an instance: {type(item).__name__}")
    return item


def _smaller_instances(instance) -> Iterable:
    for data in smaller(instance_to_json(instance)):
        try:
            yield parse_instance(data)
        except (InstanceError, UserInputError):
            continue


#: Fresh starts drawn to learn whether the family's start covers a claim by
#: itself (a start is then redrawn until it does: cheaper than moving it) or
#: only after moves (a start is then walked).
PROBE_DRAWS = 20
#: Walks, and moves a walk, before a claim is judged to cover no instance the
#: search reaches (a claim about one construction: its ledger checks it on
#: the construction; a search has nothing to move).
START_DRAWS, START_WALK = 50, 20


def claim_start(family: str, claim: Claim, limits: Limits) -> Start | None:
    """Starts the claim covers: the family's start, redrawn until the claim
    covers it, or, where no start of a probe's ``PROBE_DRAWS`` does, the first
    instance a walk of random moves from a start reaches that the claim
    covers (a claim beyond the start's setting, several machines an
    organization say, is searched from there). None when none of
    ``START_DRAWS`` walks of a probe meets the claim."""
    begin = json_start(family)

    def covered(data: dict) -> bool:
        try:
            instance = parse_instance(data)
        except (InstanceError, UserInputError):
            return False
        return limits.admit(families.size(instance)) and bool(claim.applies(instance))

    def starts(draws: int, walk: int) -> Start:
        def start(rng: random.Random, scale: Limits) -> dict:
            """A covered start; after ``draws`` draws (and their walks) in vain, the
            last instance met (scored None, as any instance the claim does not cover)."""
            for _ in range(draws):
                data = begin(rng, scale)
                if covered(data):
                    return data
                for _ in range(walk):
                    data = mutate(data, rng, scale)
                    if covered(data):
                        return data
            return data
        return start

    probe = random.Random(0)
    if any(covered(begin(probe, limits)) for _ in range(PROBE_DRAWS)):
        return starts(START_DRAWS * START_WALK, 0)
    walked = starts(START_DRAWS, START_WALK)
    return walked if covered(walked(probe, limits)) else None


def claim_score(claim: Claim, make_case: Callable[[Any], Any]) -> Callable[[Any], Scored | None]:
    """observed / bound on one instance (a yes-or-no claim scores 0 when it
    holds and 2 when it fails, for the search only), or None where the claim
    does not apply or its numbers are not proven."""
    def score(instance) -> Scored | None:
        if not claim.applies(instance):
            return None
        try:
            check = claim.check(make_case(instance))
        except NotProven:
            return None
        ratio = check.ratio if check.ratio is not None else Fraction(0 if check.holds else 2)
        return Scored(ratio, {"check": check}, check.tiebreak)

    return score


@dataclass(frozen=True)
class Searched:
    """What the adversarial search saw for one claim."""
    evaluated: int
    worst: Fraction | None   # observed / bound at the search's best; None for a yes-or-no claim
    violated: bool
    reached: bool = True     # False: no instance the search reaches is covered by the claim (not searched)


def check_file(claim_file: ClaimFile, count: int, seed: int, limits: Limits, search_seconds: float,
               time_limit: float, out_dir: Path, progress: Callable | None = None
               ) -> tuple[list[Tally], dict[str, Searched]]:
    """Every claim on ``count`` instances, then ``search_seconds`` of
    adversarial search shared among the claims the search can reach (its
    best instance joins the tally); violations shrunk and saved."""
    make_case = lambda inst: Case(inst, time_limit)  # noqa: E731
    tallies = run_ledger(claim_file.claims, claim_file.instances(count, seed, limits), make_case,
                         _smaller_instances, instance_to_json, out_dir, progress)
    searched: dict[str, Searched] = {}
    if search_seconds <= 0:
        return tallies, searched
    starts = {t.claim.key: claim_start(claim_file.family, t.claim, limits) for t in tallies}
    share = search_seconds / max(1, sum(start is not None for start in starts.values()))
    for tally in tallies:
        start = starts[tally.claim.key]
        if start is None:
            searched[tally.claim.key] = Searched(0, None, False, reached=False)
            continue
        score = claim_score(tally.claim, make_case)
        found = search(start, score, families.size, limits, seed, budget=share, shrink_result=False)
        check: Check | None = None if found.scored is None else found.scored.numbers["check"]
        searched[tally.claim.key] = Searched(found.evaluated, None if check is None else check.ratio,
                                             check is not None and not check.holds)
        if check is None:
            continue
        tally.add(check)
        if not check.holds:
            violates = lambda inst: (s := score(inst)) is not None and not s.numbers["check"].holds  # noqa: E731
            record_violation(tally, parse_instance(found.data), check, violates, _smaller_instances, make_case,
                             instance_to_json, out_dir)
    return tallies, searched
