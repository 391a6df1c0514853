"""The family door: the harness reaches a family only through these functions.

Each finds the family's pieces by module convention, so a new family plugs
in by adding its modules, never by editing the harness:

- ``schedbench.model.<family>``: ``OBJECTIVES`` (first = default) and,
  where an objective is maximised, ``MAXIMIZED``;
- ``schedbench.instances.<module>``: ``GENERATORS`` (name -> generator);
- ``schedbench.heuristics.<family>``: ``HEURISTICS`` and, optionally,
  ``options(instance, raw)`` (raw option values -> keyword arguments) and
  ``violations(instance, schedule, objective, heuristic)`` (a heuristic
  checked against its own references instead of SPEC's);
- ``schedbench.metrics.<family>``: ``objective(instance, schedule, name,
  time_limit)``, ``lower_bound(instance, name)``, ``METRICS`` and
  ``gantt_bars(instance, schedule)``.
"""

import pkgutil
from collections.abc import Callable
from fractions import Fraction
from importlib import import_module
from types import ModuleType
from typing import Any

from schedbench.errors import UserInputError
from schedbench.heuristics import module_of, registry
from schedbench.metrics import Bar
from schedbench.model import family_module
from schedbench.schedule import Schedule
from schedbench.validator import Violation, validate


def generators() -> dict[str, Callable[..., Any]]:
    """Every ``GENERATORS`` entry of every module of ``schedbench.instances``."""
    import schedbench.instances as package

    out: dict[str, Callable[..., Any]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = import_module(f"{package.__name__}.{info.name}")
        for name, function in getattr(module, "GENERATORS", {}).items():
            if name in out:
                raise RuntimeError(f"generator {name!r} is defined twice (again in {module.__name__})")
            out[name] = function
    return out


def heuristics(family: str) -> dict[str, Callable[..., Schedule]]:
    family_module(family)  # an unknown family is an error, not an empty registry
    return registry(family)


def heuristic_options(family: str, instance, raw: dict) -> dict[str, Any]:
    """Option values as written in TOML or on the command line -> keyword arguments."""
    family_module(family)
    convert = getattr(module_of(family), "options", None)
    if convert is None:
        if raw:
            raise UserInputError(f"options.{next(iter(raw))}", f"{family} heuristics take no options")
        return {}
    return convert(instance, dict(raw))


def objectives(family: str) -> tuple[str, ...]:
    return tuple(family_module(family).OBJECTIVES)


def maximized(family: str, objective: str) -> bool:
    return objective in getattr(family_module(family), "MAXIMIZED", ())


def objective_value(instance, schedule: Schedule, objective: str, time_limit: float) -> Fraction:
    """The exact objective value; raises ``NotProven`` when it needs an
    optimum not proven within ``time_limit`` seconds."""
    return Fraction(_metrics_module(instance.family).objective(instance, schedule, objective, time_limit))


def lower_bound(instance, objective: str) -> Fraction | None:
    """A cheap valid bound on the optimum (an upper bound when maximised), or None."""
    bound = _metrics_module(instance.family).lower_bound(instance, objective)
    return None if bound is None else Fraction(bound)


def metrics(family: str) -> dict[str, Callable[[Any, Schedule], Any]]:
    return dict(_metrics_module(family).METRICS)


def violations(instance, schedule: Schedule, objective: str | None,
               heuristic: str | None = None) -> list[Violation]:
    """The validator's verdict; a heuristic's family may check it against its
    own references instead (MOSP: the heuristic's own local schedule)."""
    if heuristic is not None:
        check = getattr(module_of(instance.family), "violations", None)
        if check is not None:
            return check(instance, schedule, objective, heuristic)
    return validate(instance, schedule, objective)


def heuristic_verdict(instance, schedule: Schedule, objective: str | None,
                      heuristic: str | None) -> tuple[str, str]:
    """(status, why) of a heuristic's schedule. feasible: valid by SPEC's rules.
    relaxed: valid only against the heuristic's own references (a MOSP
    heuristic keeps the local constraints of its own local schedule, not
    SPEC's ref_k), so its value may be compared with lower bounds but never
    with SPEC's optimum. invalid: neither. With no ``heuristic`` named (a
    user's function) only SPEC's rules apply: feasible or invalid."""
    breach = violations(instance, schedule, objective)
    if not breach:
        return "feasible", ""
    own = violations(instance, schedule, objective, heuristic=heuristic)
    if own:
        return "invalid", str(own[0])
    return "relaxed", f"valid against its own references, not SPEC's: {breach[0]}"


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    return _metrics_module(instance.family).gantt_bars(instance, schedule)


def _metrics_module(family: str) -> ModuleType:
    family_module(family)
    return import_module(f"schedbench.metrics.{family}")
