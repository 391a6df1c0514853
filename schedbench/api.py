"""The Python front door: load or generate an instance, solve it exactly,
run a heuristic, validate a schedule, measure it and draw it.

    import schedbench as sb

    instance = sb.generate("pcmax-uniform", seed=3, jobs=8, machines=3)
    solution = sb.solve(instance, time_limit=10)
    solution.status, solution.objective, solution.bound, solution.proof
    schedule = sb.heuristic("lpt", instance)
    sb.validate(instance, schedule)      # [] when valid
    sb.metrics(instance, schedule)       # exact values: ints and Fractions

Every function takes and returns the objects the command line uses (the
instance classes of ``schedbench.model``, ``Schedule``), and refuses bad
input with ``UserInputError`` naming the field, as the command line does.
"""

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Any

from schedbench import families
from schedbench.errors import UserInputError
from schedbench.harness.plots import gantt_figure
from schedbench.model import instance_to_json, load_instance, parse_instance
from schedbench.schedule import Schedule
from schedbench.solvers import solve as exact_solve
from schedbench.solvers.exact.settings import DEFAULT_TIME_LIMIT
from schedbench.validator import Violation


class Status(str, Enum):
    """How far a solve got: ``OPTIMAL`` only when proven (twice, where a
    refutation is involved); ``FEASIBLE``, a schedule and a proven bound
    that do not meet; ``INFEASIBLE``, proven to have no solution (a "no"
    3-PARTITION instance); ``UNKNOWN``, nothing proven in time."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Solution:
    """What ``solve`` returns. ``objective`` is the exact value of
    ``schedule`` (recomputed, never a solver's float), ``bound`` the proven
    bound (lower when minimised, upper when maximised), ``proof`` the methods
    behind it: one checkable computation, or a refutation and the
    independent method that confirmed it."""

    status: Status
    objective: Fraction | None
    bound: Fraction | None
    schedule: Any
    objective_name: str
    solver: str
    proof: tuple[str, ...]
    wall_time: float
    details: dict = field(default_factory=dict)


def load(source: str | Path | Sequence[str | Path] | Mapping[str, Any], format: str | None = None,
         **options: Any) -> Any:
    """An instance from a JSON file or from its parsed JSON (a dict), or,
    with ``format``, from a file of a community format (``schedbench
    convert --help`` lists them: ``pcmax``, ``pcmax-mn``, ``stg``,
    ``wfformat``, ``pisinger``), with that format's ``options`` (``cores=4``
    for a task graph; a list of paths for several task graphs, with
    ``arrivals``)."""
    if format in (None, "json"):
        if options:
            raise UserInputError(f"options.{next(iter(options))}", "instance JSON takes no options")
        return parse_instance(dict(source)) if isinstance(source, Mapping) else load_instance(source)
    known = families.converters()
    if format not in known:
        raise UserInputError("format", f"unknown format {format!r} (known: json, {', '.join(known)})")
    files = [str(path) for path in source] if isinstance(source, (list, tuple)) else str(source)
    return parse_instance(instance_to_json(known[format](file=files, **options)))


def generate(name: str, seed: int = 0, **params: Any) -> Any:
    """The instance generator ``name`` (``schedbench generate --help`` lists
    them) called with ``params``: the same seed and parameters give the same
    instance, byte for byte."""
    known = families.generators()
    if name not in known:
        raise UserInputError("name", f"unknown generator {name!r} (known: {', '.join(known)})")
    if "seed" in inspect.signature(known[name].__wrapped__).parameters:
        params["seed"] = seed
    return known[name](**params)


def solve(instance: Any, objective: str | None = None, solver: str | None = None,
          time_limit: float = DEFAULT_TIME_LIMIT, **options: Any) -> Solution:
    """The optimum of ``instance`` (the family's first objective unless
    named), or within ``time_limit`` seconds the best schedule found and the
    proven bound; ``solver`` defaults to the family's strongest measured."""
    result = exact_solve(instance, objective, solver, time_limit, **options)
    name = objective or families.objectives(instance.family)[0]
    return Solution(Status(result.status), result.objective, result.bound, result.schedule, name, result.solver,
                    tuple(result.proof), result.wall_time, dict(result.details))


def heuristic(name: str, instance: Any, **options: Any) -> Any:
    """The schedule heuristic ``name`` makes for ``instance`` (options as on
    the command line's ``-o``, e.g. ``inner="spt"``)."""
    known = families.heuristics(instance.family)
    if name not in known:
        raise UserInputError("name", f"unknown {instance.family} heuristic {name!r} (known: {', '.join(known)})")
    return known[name](instance, **families.heuristic_arguments(instance.family, name, instance, options))


def validate(instance: Any, schedule: Any, objective: str | None = None,
             time_limit: float = DEFAULT_TIME_LIMIT) -> list[Violation]:
    """Every rule ``schedule`` breaks (empty when valid), checked by the
    independent validator; the optima a rule is measured against (MOSP's
    ref_k) are proven first, within ``time_limit``."""
    return families.violations(instance, schedule, objective, time_limit=time_limit)


def metrics(instance: Any, schedule: Any) -> dict[str, Any]:
    """Every metric of the family for ``schedule``, exact (ints and Fractions)."""
    return {name: measure(instance, schedule) for name, measure in families.metrics(instance.family).items()}


def gantt(instance: Any, schedule: Any, title: str = ""):
    """The Gantt chart of ``schedule`` as a matplotlib ``Figure`` (save it
    with ``figure.savefig("gantt.pdf")``)."""
    return gantt_figure(families.gantt_bars(instance, schedule), title or instance.name or instance.family)


__all__ = ["Schedule", "Solution", "Status", "Violation", "gantt", "generate", "heuristic", "load", "metrics",
           "solve", "validate"]
