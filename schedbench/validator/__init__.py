"""Independent schedule validator: re-derives every rule of the format from
the instance and the schedule alone. It imports neither heuristics nor
solvers, so a bug there cannot hide here.

One module per family, with ``FAMILY`` and ``check(instance, schedule,
objective=None, references=None)``; ``validate`` finds them by scanning
this package, so a new family adds a module and edits nothing here.
"""

import sys
from functools import cache
from types import ModuleType

from schedbench.model.discovery import family_modules
from schedbench.schedule import Schedule
from schedbench.validator.violation import Violation

__all__ = ["Violation", "validate"]


@cache
def _checkers() -> dict[str, ModuleType]:
    """Every module of this package that defines ``FAMILY``, by family."""
    return family_modules(sys.modules[__name__])


def validate(instance, schedule: Schedule, objective: str | None = None, references=None) -> list[Violation]:
    """Every violated rule; an empty list means the schedule is valid.

    Only MOSP's objective changes the rules: ``unconstrained-makespan`` drops
    the local constraints and selfishness. ``references`` are MOSP's ref_k
    (required when they are optimal P||Cmax makespans: the validator proves
    nothing itself)."""
    return _checkers()[instance.family].check(instance, schedule, objective, references)
