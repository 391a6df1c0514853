"""``schedbench worst``: how bad can a heuristic get against the optimum?

The score of an instance is heuristic / OPT (OPT / heuristic where the
objective is maximised), both exact: the heuristic's schedule must be
valid by the format's rules and its value proven (a campaign metric needs F_u*),
and OPT must be ``optimal`` (proven twice, as everywhere). An instance that
falls short of either, or where the objective is not defined (campaign
user-flow on several users), is skipped. A maximised objective on which
the heuristic gets 0 against a positive optimum is unbounded: the search
stops there. The search (``schedbench.search``) starts from the family's
``search_start`` in ``schedbench.instances.<family>``; the heuristic is a
registered one or the user's ``path/to/file.py:FUNCTION``.
"""

import math
import random
from collections.abc import Callable
from contextlib import nullcontext
from fractions import Fraction
from functools import partial
from typing import Any

from schedbench import families
from schedbench.errors import NotProven, UserInputError
from schedbench.harness.runner import dask_client, map_unordered
from schedbench.model import instance_to_json
from schedbench.result import OPTIMAL
from schedbench.search import Found, Limits, Scored, search
from schedbench.solvers import solve
from schedbench.user_code import load_function

#: Draws of a family's start before giving up on meeting the limits.
START_TRIES = 100


def resolve_objective(family: str, objective: str | None) -> str:
    """The objective named (checked) or the family's first."""
    known = families.objectives(family)
    if objective is None:
        return known[0]
    if objective not in known:
        raise UserInputError("--objective", f"{objective!r} is not an objective of family {family} "
                                            f"(known: {', '.join(known)})")
    return objective


def heuristic_function(family: str, heuristic: str) -> Callable:
    """A registered heuristic of ``family``, or the user's ``file.py:FUNCTION`` / ``module:FUNCTION``."""
    known = families.heuristics(family)
    if heuristic in known:
        return known[heuristic]
    if ":" in heuristic:
        return load_function(heuristic, "HEURISTIC")
    raise UserInputError("HEURISTIC", f"unknown heuristic {heuristic!r} for family {family} "
                                      f"(known: {', '.join(known) or 'none'}; or path/to/file.py:FUNCTION)")


def ratio_score(family: str, heuristic: str, objective: str, time_limit: float) -> Callable[[Any], Scored | None]:
    """heuristic / OPT on one instance, or None where either is not proven."""
    run = heuristic_function(family, heuristic)
    registered = heuristic if heuristic in families.heuristics(family) else None
    maximized = families.maximized(family, objective)

    def score(instance) -> Scored | None:
        try:
            result = solve(instance, objective, None, time_limit)
        except UserInputError:  # the objective is not defined here (campaign user-flow: one user only)
            return None
        if result.status != OPTIMAL:
            return None
        try:
            schedule = run(instance)
            verdict, why = families.heuristic_verdict(instance, schedule, objective, registered)
        except (NotProven, UserInputError):  # the references' solves, not the heuristic
            raise
        except (Exception, SystemExit) as exc:
            if registered is not None:  # a registered heuristic's crash is the project's bug
                raise
            raise UserInputError("HEURISTIC", f"{heuristic} failed on a {family} instance: "
                                              f"{type(exc).__name__}: {exc}") from None
        if verdict == "invalid" and registered is None:  # what the search found in the user's code, in one line
            raise UserInputError("HEURISTIC", f"{heuristic} returned an invalid schedule: {why}")
        if verdict != "feasible":
            return None
        try:
            value = families.objective_value(instance, schedule, objective, time_limit)
        except NotProven:
            return None
        optimum = result.objective
        over, under = (optimum, value) if maximized else (value, optimum)
        numbers = {"heuristic_value": value, "optimum": optimum}
        if under == 0:
            return Scored(math.inf, numbers) if over > 0 else None   # 0 / 0 says nothing
        return Scored(Fraction(over) / Fraction(under), numbers)

    return score


def start_of(family: str) -> Callable[[random.Random, Limits], Any]:
    """Where the worst-case search starts for ``family`` (its declared ``search_start``)."""
    if family not in families.names():
        raise UserInputError("--family", f"unknown family {family!r} (known: {', '.join(families.names())})")
    start = families.search_start(family)
    if start is None:
        raise UserInputError("--family", f"family {family} has no search start (it has no heuristics)")
    return start


def draw_start(family: str, rng: random.Random, limits: Limits):
    """A start of ``family`` within ``limits`` (redrawn until it fits)."""
    begin = start_of(family)
    for _ in range(START_TRIES):
        instance = begin(rng, limits)
        size = families.size(instance)
        if limits.admit(size):
            return instance
    field = "--max-jobs" if size.jobs > limits.max_jobs else "--machines"
    raise UserInputError(field, f"no start of family {family} fits within {START_TRIES} draws "
                                f"(the last: {size.jobs} jobs, {size.machines} machines)")


def json_start(family: str) -> Callable[[random.Random, Limits], dict]:
    """What a search starts from: the family's start within the limits, as JSON."""
    start_of(family)
    return lambda rng, limits: instance_to_json(draw_start(family, rng, limits))


def worst(heuristic: str, family: str, objective: str | None = None, limits: Limits = Limits(),
          seed: int = 0, strategy: str = "anneal", budget: float | None = 60.0, evaluations: int | None = None,
          time_limit: float = 5.0, chains: int = 1, workers: int = 1, cluster: Any = None,
          stop_at: Fraction | None = None, shrink: bool = True) -> Found:
    """The instance of largest heuristic / OPT the search finds, shrunk
    (unless ``shrink`` is false; ``stop_at``: stop at a ratio known to be
    tight, when calibrating). ``chains`` > 1 runs independent searches
    (seeds seed * 1009 + i), on ``workers`` processes or a Dask
    ``cluster``, and keeps the best."""
    objective = resolve_objective(family, objective)
    heuristic_function(family, heuristic)
    start_of(family)
    runs = [partial(_chain, heuristic, family, objective, limits, seed if chains == 1 else seed * 1009 + i, strategy,
                    budget, evaluations, time_limit, stop_at, shrink) for i in range(chains)]
    client = dask_client(cluster) if cluster is not None else None
    with client or nullcontext():
        finished = map_unordered(_call, list(enumerate(runs)), workers if chains > 1 else 1, client)
        found = [f for _, f in sorted(finished, key=lambda pair: pair[0])]  # chain order: ties go the same way every run
    best = max((f for f in found if f.scored is not None), key=lambda f: f.scored.ratio, default=found[0])
    best.evaluated, best.skipped = sum(f.evaluated for f in found), sum(f.skipped for f in found)
    return best


def _chain(heuristic: str, family: str, objective: str, limits: Limits, seed: int, strategy: str,
           budget: float | None, evaluations: int | None, time_limit: float, stop_at: Fraction | None,
           shrink: bool) -> Found:
    return search(json_start(family), ratio_score(family, heuristic, objective, time_limit), families.size, limits,
                  seed, strategy, evaluations, budget, shrink_result=shrink, stop_at=stop_at)


def _call(indexed: tuple[int, Callable[[], Found]]) -> tuple[int, Found]:
    index, run = indexed
    return index, run()


def as_json(found: Found, heuristic: str, family: str, objective: str) -> dict:
    """What ``schedbench worst --json`` prints; an unbounded ratio is ``null`` with ``unbounded: true``."""
    scored = found.scored
    unbounded = scored is not None and scored.ratio == math.inf
    exact = scored is not None and not unbounded
    return {"heuristic": heuristic, "family": family, "objective": objective,
            "ratio": _ratio(scored.ratio) if exact else None,
            "ratio_float": float(scored.ratio) if exact else None, "unbounded": unbounded,
            "instance": found.data,
            "heuristic_value": None if scored is None else _exact(scored.numbers["heuristic_value"]),
            "optimum": None if scored is None else _exact(scored.numbers["optimum"]),
            "evaluated": found.evaluated, "skipped": found.skipped,
            "trajectory": [{"evaluation": e, "seconds": t, "ratio": _ratio(r)} for e, t, r in found.trajectory]}


def _ratio(ratio) -> list[int] | None:
    """A ratio in JSON, as every ratio schedbench writes: [numerator,
    denominator], or null when unbounded."""
    return None if ratio == math.inf else [ratio.numerator, ratio.denominator]


def _exact(value: Fraction) -> int | list[int]:
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else [value.numerator, value.denominator]
