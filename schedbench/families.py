"""The family registry: every door (the command line, the harness, the
reports, the claims) reaches a family only through these functions.

Each finds the family's pieces by module convention, so a new family plugs
in by adding one module per folder, never by editing a shared file:

- ``schedbench.model.<family>``: ``FAMILY``, ``OBJECTIVES`` (first =
  default), ``parse`` and the JSON converters, and, where an objective is
  maximised, ``MAXIMIZED``;
- ``schedbench.validator.<family>``: ``check``;
- ``schedbench.instances.<module>``: ``GENERATORS`` (name -> generator);
  ``schedbench.instances.<family>`` (for a family with heuristics):
  ``search_start(rng, limits)``, where the worst-case search starts
  (``schedbench.worst``);
- ``schedbench.heuristics.<family>`` (optional): ``HEURISTICS`` and,
  optionally, ``options(instance, raw)`` (raw option values -> keyword
  arguments) and ``violations(instance, schedule, objective, heuristic)``
  (a heuristic checked against its own references instead of SPEC's);
- ``schedbench.solvers.<family>``: ``BACKENDS``, ``DEFAULT_SOLVER`` and
  ``solve(instance, objective, solver, time_limit, **options)``;
- ``schedbench.metrics.<family>``: ``objective(instance, schedule, name,
  references)``, ``lower_bound(instance, name)``, ``METRICS`` (each a
  function of instance and schedule, and of ``references`` when it measures
  against exact optima), ``gantt_bars(instance, schedule)`` and, with
  heuristics, ``summary(instance, schedule, heuristic, references)``;
- ``schedbench.claims.<family>_run`` (optional): the claims ledger.

``tests/test_families.py`` checks every family against this contract.
"""

import inspect
import pkgutil
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from importlib import import_module
from types import ModuleType
from typing import Any

from schedbench.errors import UserInputError
from schedbench.heuristics import module_of, registry
from schedbench.metrics import Bar
from schedbench.model import FAMILIES, family_module
from schedbench.model.fields import Size
from schedbench.solvers import family_solver
from schedbench.solvers.settings import DEFAULT_TIME_LIMIT
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


def names() -> tuple[str, ...]:
    """Every family, as found in ``schedbench.model``."""
    return tuple(FAMILIES)


def backends(family: str) -> tuple[str, ...]:
    """The exact solvers ``family`` takes, its default first."""
    module = family_solver(family)
    return (module.DEFAULT_SOLVER, *(b for b in module.BACKENDS if b != module.DEFAULT_SOLVER))


def ledger(family: str) -> ModuleType | None:
    """``schedbench.claims.<family>_run``, or None when the family has no claims ledger."""
    family_module(family)
    name = f"schedbench.claims.{family}_run"
    try:
        return import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def rule_references(instance, time_limit: float = DEFAULT_TIME_LIMIT, objective: str | None = None):
    """What the validator checks ``instance``'s schedules against (MOSP's
    ref_k), proven by the family's solvers within ``time_limit`` seconds, or
    None: computed here, upstream, so the validator calls no solver."""
    compute = getattr(family_solver(instance.family), "rule_references", None)
    return None if compute is None else compute(instance, time_limit, objective)


def metric_references(instance, time_limit: float = DEFAULT_TIME_LIMIT, objective: str | None = None) -> dict:
    """The exact optima ``objective``'s value (every metric, with None)
    is measured against (campaign F_u*, MOSP C^(k)alone), proven by the
    family's solvers within ``time_limit``: the metrics call no solver."""
    compute = getattr(family_solver(instance.family), "metric_references", None)
    return {} if compute is None else compute(instance, time_limit, objective)


def summary(instance, schedule: Schedule, heuristic: str | None, time_limit: float) -> dict[str, Any]:
    """A schedule's metrics as JSON (exact values as [num, den]), what
    ``schedbench heuristic`` prints; references proven within ``time_limit``."""
    return _metrics_module(instance.family).summary(instance, schedule, heuristic,
                                                    metric_references(instance, time_limit))


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


def heuristic_arguments(family: str, name: str, instance, raw: dict) -> dict[str, Any]:
    """``heuristic_options`` bound to heuristic ``name``'s own parameters: an
    option the family knows but this heuristic does not take (``r`` for the
    priority baseline) is refused, naming it."""
    converted = heuristic_options(family, instance, raw)
    try:
        inspect.signature(heuristics(family)[name]).bind(instance, **converted)
    except TypeError:
        raise UserInputError("options", f"{name} takes no option {', '.join(sorted(raw))}") from None
    return converted


def size(instance) -> Size:
    """(jobs, machines) as the family counts them (tasks, processors, clusters: see its ``size``)."""
    return family_module(instance.family).size(instance)


def objectives(family: str) -> tuple[str, ...]:
    return tuple(family_module(family).OBJECTIVES)


def maximized(family: str, objective: str) -> bool:
    return objective in getattr(family_module(family), "MAXIMIZED", ())


def objective_value(instance, schedule: Schedule, objective: str, time_limit: float) -> Fraction:
    """The exact objective value; raises ``NotProven`` when it needs an
    optimum not proven within ``time_limit`` seconds."""
    references = metric_references(instance, time_limit, objective)
    return Fraction(_metrics_module(instance.family).objective(instance, schedule, objective, references))


def lower_bound(instance, objective: str) -> Fraction | None:
    """A cheap valid bound on the optimum (an upper bound when maximised), or None."""
    bound = _metrics_module(instance.family).lower_bound(instance, objective)
    return None if bound is None else Fraction(bound)


def metrics(family: str) -> dict[str, Callable[[Any, Schedule], Any]]:
    """Each metric as a function of (instance, schedule); a metric that
    measures against exact optima takes a third parameter, ``references``,
    which is proven here upstream (``metric_references`` for its name,
    within the default limit), so that no metric calls a solver."""
    out: dict[str, Callable[[Any, Schedule], Any]] = {}
    for name, measure in _metrics_module(family).METRICS.items():
        wants = "references" in inspect.signature(measure).parameters
        out[name] = partial(_referenced, measure, name) if wants else measure
    return out


def _referenced(measure: Callable, name: str, instance, schedule: Schedule) -> Any:
    return measure(instance, schedule, metric_references(instance, DEFAULT_TIME_LIMIT, name))


def violations(instance, schedule: Schedule, objective: str | None, heuristic: str | None = None,
               time_limit: float = DEFAULT_TIME_LIMIT) -> list[Violation]:
    """The validator's verdict against the rule references proven here
    (``rule_references``); a heuristic's family may check it against its own
    references instead (MOSP: the heuristic's own local schedule)."""
    if heuristic is not None:
        check = getattr(module_of(instance.family), "violations", None)
        if check is not None:
            return check(instance, schedule, objective, heuristic)
    return validate(instance, schedule, objective, rule_references(instance, time_limit, objective))


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
