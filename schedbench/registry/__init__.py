"""The typed family registry: each family declares its parts once, in a
module of this package (``schedbench/registry/<family>.py`` holding
``FAMILY = Family(...)``), and every door (the command line, the harness,
the reports, the claims, the worst-case search) reaches a family through
``schedbench.families``, which reads this registry only.

A declaration names its modules and functions directly, so a part that does
not exist fails when the declaration is imported, naming it; ``Family``
checks the parts each module must hold and says which one is missing.
"""

import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from types import ModuleType
from typing import Any

from schedbench.model import FAMILIES as FORMATS

#: What each declared module must define.
REQUIRED = {
    "model": ("FAMILY", "OBJECTIVES", "INSTANCE", "SCHEDULE", "parse", "to_json", "size", "schedule_to_json",
              "schedule_from_json"),
    "metrics": ("objective", "lower_bound", "METRICS", "gantt_bars"),
    "solvers": ("BACKENDS", "DEFAULT_SOLVER", "solve"),
    "ledger": ("instances", "run", "report"),
}


class RegistryError(TypeError):
    """A family's declaration lacks a part it needs (named in the message)."""


@dataclass(frozen=True)
class Family:
    """A family's parts. ``model``, ``metrics`` and ``solvers`` are its
    modules in those layers (``REQUIRED`` lists what each holds); the rest
    are the functions other doors call, ``None`` where the family has none.

    - ``generators``: name -> seeded instance generator; ``converters``:
      format -> reader of a community file format (``schedbench convert``);
    - ``heuristics``: name -> ``heuristic(instance, **options) -> schedule``,
      with ``heuristic_options(instance, raw)`` turning written options
      into keyword arguments and ``own_violations(instance, schedule,
      objective, heuristic)`` checking a heuristic against its own
      references (MOSP);
    - ``summary(instance, schedule, heuristic, references)``: what
      ``schedbench heuristic`` prints; ``search_start(rng, limits)``: where
      the worst-case search starts (both needed with heuristics);
    - ``rule_references(instance, time_limit, objective)`` /
      ``metric_references(instance, time_limit, objective, schedule)``: the
      exact optima the validator's rules / the metrics (of that schedule)
      are measured against, proven by the solvers;
    - ``result_fields(instance, schedule)``: keys ``solve --json`` adds;
    - ``maximized``: the objectives maximised (the others are minimised);
    - ``ledger``: the claims ledger module (``instances``, ``run``, ``report``).
    """

    model: ModuleType
    metrics: ModuleType
    solvers: ModuleType
    generators: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    converters: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    heuristics: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    heuristic_options: Callable[..., dict] | None = None
    own_violations: Callable[..., list] | None = None
    summary: Callable[..., dict] | None = None
    search_start: Callable[..., Any] | None = None
    rule_references: Callable[..., Any] | None = None
    metric_references: Callable[..., dict] | None = None
    result_fields: Callable[..., dict] | None = None
    maximized: tuple[str, ...] = ()
    ledger: ModuleType | None = None

    def __post_init__(self) -> None:
        for part, names in REQUIRED.items():
            module = getattr(self, part)
            missing = [name for name in names if module is not None and not hasattr(module, name)]
            if missing:
                raise RegistryError(f"family {self.name}: {part} module {module.__name__} lacks {', '.join(missing)}")
        if self.heuristics and (self.summary is None or self.search_start is None):
            raise RegistryError(f"family {self.name}: with heuristics, declare its summary and search_start")
        unknown = set(self.maximized) - set(self.model.OBJECTIVES)
        if unknown:
            raise RegistryError(f"family {self.name}: maximized names no objective of it: {', '.join(unknown)}")

    @property
    def name(self) -> str:
        return self.model.FAMILY

    @property
    def objectives(self) -> tuple[str, ...]:
        return tuple(self.model.OBJECTIVES)


def _declared() -> dict[str, Family]:
    """Every ``FAMILY`` of this package's modules, by family name; each
    instance format of ``schedbench.model`` must have one."""
    found: dict[str, Family] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        declaration = getattr(import_module(f"{__name__}.{info.name}"), "FAMILY", None)
        if not isinstance(declaration, Family):
            raise RegistryError(f"{__name__}.{info.name} must define FAMILY = Family(...)")
        found[declaration.name] = declaration
    undeclared = set(FORMATS) - set(found)
    if undeclared:
        raise RegistryError(f"no declaration in {__name__} for the families {', '.join(sorted(undeclared))}")
    return {name: found[name] for name in FORMATS}


FAMILIES: dict[str, Family] = _declared()
