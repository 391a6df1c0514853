"""Exact solvers: ``solve(instance, objective, solver, time_limit, **options)``.

One module per family (``solvers.knapsack``, ...), or one package where a
family has several modules (``solvers.pcmax``: the P||Cmax engine;
``solvers.mosp``: its local search; ``solvers.campaign``, ``solvers.workflow``),
one folder per backend (``solvers.cpsat``, ``solvers.milp``) with one model
module per family inside, and the machinery every family shares in
``solvers.exact``. A family module has ``FAMILY``, ``BACKENDS`` (the solvers
it takes), ``DEFAULT_SOLVER`` (the strongest measured, the benchmark cited
beside it), ``MODELS`` (backend -> model module) where it has backend
models, and ``solve(instance, objective, solver, time_limit, **options)``;
the options are its keyword parameters after those four. A solver may call
heuristics for warm starts.
"""

import inspect
import sys
import time
import typing
from functools import cache
from types import ModuleType
from typing import Any

from schedbench.errors import UserInputError
from schedbench.model import family_module
from schedbench.model.discovery import family_modules
from schedbench.model.shape import keys_of
from schedbench.result import Result
from schedbench.solvers.exact import settings


@cache
def _family_solvers() -> dict[str, ModuleType]:
    """Every module or package of this package that defines ``FAMILY``, by
    family: a new family adds its module and edits nothing here."""
    return family_modules(sys.modules[__name__])


def family_solver(family: str) -> ModuleType:
    """The solver module of ``family`` (an unknown family is an error)."""
    family_module(family)
    return _family_solvers()[family]


def solve_options(family: str) -> dict[str, Any]:
    """The options ``family``'s solve takes: name -> annotation."""
    function = family_solver(family).solve
    hints = typing.get_type_hints(function)
    names = list(inspect.signature(function).parameters)[4:]
    return {name: hints.get(name, Any) for name in names}


def solve(instance, objective: str | None = None, solver: str | None = None,
          time_limit: float | None = None, started: float | None = None, **options: Any) -> Result:
    """Solve ``instance`` exactly, or return the best schedule and the
    certified bound within ``time_limit`` seconds; ``solver`` defaults to the
    family's strongest measured backend. ``started``: the ``time.monotonic()``
    at which the command whose limit it is began (``schedbench solve``), so
    that its start-up counts against the limit too."""
    module = family_solver(instance.family)
    objectives = family_module(instance.family).OBJECTIVES
    objective = objectives[0] if objective is None else objective
    if objective not in objectives:
        raise UserInputError("--objective", f"{objective!r} is not an objective of family {instance.family} "
                                            f"(known: {', '.join(objectives)})")
    solver = module.DEFAULT_SOLVER if solver is None else solver
    if solver not in module.BACKENDS:
        raise UserInputError("--solver", f"{instance.family} takes {', '.join(module.BACKENDS)}, not {solver!r}")
    problem = None if time_limit is None else settings.seconds_problem(time_limit)
    if problem:
        raise UserInputError("--time-limit", problem)
    known = solve_options(instance.family)
    keys_of(options, known, "options")
    limit = settings.DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    spent = 0.0 if started is None else time.monotonic() - started
    # a fifth kept for what surrounds a solve (loading, validating, printing) and for what overruns its own
    # limit (CBC's presolve), and the command's start-up deducted: the format's T + 2 s is the whole command
    return module.solve(instance, objective, solver, max(limit * SOLVE_SHARE - spent, limit * MIN_SOLVE_SHARE),
                        **options)


#: The share of the limit a solve gets, and at least, after the command's
#: start-up: importing the families' solvers (OR-Tools' CP-SAT, pandas
#: with it, SciPy) took 1.2-1.6 s on a slow machine, where a selfish MOSP
#: race at ``--time-limit 1`` then returned in 3.0 s, over the T + 2 s.
SOLVE_SHARE = 0.8
MIN_SOLVE_SHARE = 0.25
