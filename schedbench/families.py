"""The door to the families: every caller outside the layers (the command
line, the harness, the reports, the claims, the worst-case search) reaches
a family's parts through these functions, which read the typed registry
(``schedbench.registry``: one declaration per family) and nothing else.
"""

import inspect
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache, partial
from types import ModuleType
from typing import Any

from schedbench.errors import UserInputError
from schedbench.metrics import Bar
from schedbench.model import family_module
from schedbench.model.fields import Size
from schedbench.registry import FAMILIES, Family
from schedbench.schedule import Schedule
from schedbench.solvers.exact.settings import DEFAULT_TIME_LIMIT
from schedbench.validator import Violation, validate


def family(name: str) -> Family:
    """The declaration of family ``name``; an unknown name is one error naming the known ones."""
    family_module(name)  # the same message as reading an instance of an unknown family
    return FAMILIES[name]


def generators() -> dict[str, Callable[..., Any]]:
    """Every family's generators, by name (a name is one generator's only)."""
    return _merged("generators")


def converters() -> dict[str, Callable[..., Any]]:
    """Every family's readers of community file formats, by format name."""
    return _merged("converters")


def _merged(part: str) -> dict[str, Callable[..., Any]]:
    """Every family's ``part`` (a name -> function map) in one map; a name two families declare is an error."""
    out: dict[str, Callable[..., Any]] = {}
    for declared in FAMILIES.values():
        for name, function in getattr(declared, part).items():
            if name in out:
                raise RuntimeError(f"{part}: {name!r} is declared twice (again by {declared.name})")
            out[name] = function
    return out


def names() -> tuple[str, ...]:
    """Every family, as declared."""
    return tuple(FAMILIES)


def backends(name: str) -> tuple[str, ...]:
    """The exact solvers the family takes, its default first."""
    module = family(name).solvers
    return (module.DEFAULT_SOLVER, *(b for b in module.BACKENDS if b != module.DEFAULT_SOLVER))


def model_backends() -> tuple[str, ...]:
    """The exact backends every family takes (each a folder of models, one
    module per family): what tests and the certified corpus run on each."""
    common = set.intersection(*(set(declared.solvers.BACKENDS) for declared in FAMILIES.values()))
    return tuple(sorted(common))


def ledger(name: str) -> ModuleType | None:
    """The family's claims ledger module, or None when it has none."""
    return family(name).ledger


def search_start(name: str) -> Callable[..., Any] | None:
    """Where the worst-case search starts for the family, or None."""
    return family(name).search_start


def rule_references(instance, time_limit: float = DEFAULT_TIME_LIMIT, objective: str | None = None):
    """What the validator checks ``instance``'s schedules against (MOSP's
    ref_k), proven by the family's solvers within ``time_limit`` seconds, or
    None: computed here, upstream, so the validator calls no solver."""
    compute = family(instance.family).rule_references
    return None if compute is None else compute(instance, time_limit, objective)


def metric_references(instance, time_limit: float = DEFAULT_TIME_LIMIT, objective: str | None = None,
                      schedule: Schedule | None = None) -> dict:
    """The exact optima ``objective``'s value (every metric, with None)
    is measured against (campaign F_u*, MOSP C^(k)alone), proven by the
    family's solvers within ``time_limit``: the metrics call no solver.
    Some depend on the ``schedule`` measured (MOSP: only the C^(k)alone
    that decide its Stretch are proven)."""
    compute = family(instance.family).metric_references
    return {} if compute is None else compute(instance, time_limit, objective, schedule)


def summary(instance, schedule: Schedule, heuristic: str | None, time_limit: float) -> dict[str, Any]:
    """A schedule's metrics as JSON (exact values as [num, den]), what
    ``schedbench heuristic`` prints; references proven within ``time_limit``."""
    return family(instance.family).summary(instance, schedule, heuristic,
                                           metric_references(instance, time_limit, schedule=schedule))


def heuristics(name: str) -> dict[str, Callable[..., Schedule]]:
    return dict(family(name).heuristics)


def heuristic_options(name: str, instance, raw: dict) -> dict[str, Any]:
    """Option values as written in TOML or on the command line -> keyword arguments."""
    convert = family(name).heuristic_options
    if convert is None:
        if raw:
            raise UserInputError(f"options.{next(iter(raw))}", f"{name} heuristics take no options")
        return {}
    return convert(instance, dict(raw))


def heuristic_arguments(family_name: str, name: str, instance, raw: dict) -> dict[str, Any]:
    """``heuristic_options`` bound to heuristic ``name``'s own parameters: an
    option the family knows but this heuristic does not take (``r`` for the
    priority baseline) is refused, naming it."""
    converted = heuristic_options(family_name, instance, raw)
    try:
        inspect.signature(heuristics(family_name)[name]).bind(instance, **converted)
    except TypeError:
        raise UserInputError("options", f"{name} takes no option {', '.join(sorted(raw))}") from None
    return converted


def size(instance) -> Size:
    """(jobs, machines) as the family counts them (tasks, processors, clusters: see its ``size``)."""
    return family(instance.family).model.size(instance)


def objectives(name: str) -> tuple[str, ...]:
    return family(name).objectives


def maximized(name: str, objective: str) -> bool:
    return objective in family(name).maximized


def objective_value(instance, schedule: Schedule, objective: str, time_limit: float) -> Fraction:
    """The exact objective value; raises ``NotProven`` when it needs an
    optimum not proven within ``time_limit`` seconds."""
    references = metric_references(instance, time_limit, objective)
    return Fraction(family(instance.family).metrics.objective(instance, schedule, objective, references))


def lower_bound(instance, objective: str) -> Fraction | None:
    """A cheap valid bound on the optimum (an upper bound when maximised), or None."""
    bound = family(instance.family).metrics.lower_bound(instance, objective)
    return None if bound is None else Fraction(bound)


def metrics(name: str, time_limit: float = DEFAULT_TIME_LIMIT) -> dict[str, Callable[[Any, Schedule], Any]]:
    """Each metric as a function of (instance, schedule); a metric that
    measures against exact optima takes a third parameter, ``references``,
    which is proven here upstream (``metric_references`` for its name,
    within ``time_limit``), so that no metric calls a solver."""
    out: dict[str, Callable[[Any, Schedule], Any]] = {}
    for metric, measure in family(name).metrics.METRICS.items():
        out[metric] = partial(_referenced, measure, metric, time_limit) if _wants_references(measure) else measure
    return out


@lru_cache(maxsize=None)
def _wants_references(measure: Callable) -> bool:
    """Whether ``measure`` takes ``references``: asked once a metric, where
    reading its signature every cell was 6% of a MOSP Fig. 5 cell's time."""
    return "references" in inspect.signature(measure).parameters


def _referenced(measure: Callable, name: str, time_limit: float, instance, schedule: Schedule) -> Any:
    return measure(instance, schedule, metric_references(instance, time_limit, name, schedule))


def violations(instance, schedule: Schedule, objective: str | None, heuristic: str | None = None,
               time_limit: float = DEFAULT_TIME_LIMIT) -> list[Violation]:
    """The validator's verdict against the rule references proven here
    (``rule_references``); a heuristic's family may check it against its own
    references instead (MOSP: the heuristic's own local schedule)."""
    if heuristic is not None:
        check = family(instance.family).own_violations
        if check is not None:
            return check(instance, schedule, objective, heuristic)
    return validate(instance, schedule, objective, rule_references(instance, time_limit, objective))


def heuristic_verdict(instance, schedule: Schedule, objective: str | None, heuristic: str | None,
                      time_limit: float = DEFAULT_TIME_LIMIT) -> tuple[str, str]:
    """(status, why) of a heuristic's schedule. feasible: valid by the format's rules.
    relaxed: valid only against the heuristic's own references (a MOSP
    heuristic keeps the local constraints of its own local schedule, not
    the format's ref_k), so its value may be compared with lower bounds but never
    with the format's optimum. invalid: neither. With no ``heuristic`` named (a
    user's function) only the format's rules apply: feasible or invalid.
    The format's references are proven within ``time_limit``."""
    breach = violations(instance, schedule, objective, time_limit=time_limit)
    if not breach:
        return "feasible", ""
    own = violations(instance, schedule, objective, heuristic=heuristic)
    if own:
        return "invalid", str(own[0])
    return "relaxed", f"valid against its own references, not the format's: {breach[0]}"


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    return family(instance.family).metrics.gantt_bars(instance, schedule)
