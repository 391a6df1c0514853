"""Heuristics, one module per family; ``registry(family)`` lists them by name.

Every heuristic is ``name(instance, **options) -> Schedule`` and never calls
a solver. A family's module registers its heuristics in ``HEURISTICS``
(name -> function); ``registry`` finds it by the module's name, so a new
family needs no line here.
"""

from importlib import import_module
from types import ModuleType


def module_of(family: str) -> ModuleType | None:
    """``schedbench.heuristics.<family>``, or None when the family has no heuristics module."""
    name = f"{__name__}.{family}"
    try:
        return import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists but one of its imports is missing: a real error
            raise
        return None


def registry(family: str) -> dict:
    """``schedbench.heuristics.<family>.HEURISTICS``; empty when the family has none."""
    return dict(getattr(module_of(family), "HEURISTICS", {}))
