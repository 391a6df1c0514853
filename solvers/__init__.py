"""Exact solvers: ``solve(instance, objective, solver, time_limit)``.

One module per family (``solvers.pcmax``, ``solvers.campaign``) and one
folder per backend (``solvers.cpsat``, ``solvers.milp``) with one module
per family inside. A solver may call heuristics for warm starts.
"""

from importlib import import_module
from types import ModuleType

from schedbench.errors import UserInputError
from schedbench.result import Result
from schedbench.solvers import settings

SOLVERS = ("cpsat", "milp", "portfolio")  # portfolio: P||Cmax problems only


def backend(solver: str, family: str) -> ModuleType:
    """The model module of ``solver`` (cpsat or milp) for ``family``: one folder per backend."""
    return import_module(f"schedbench.solvers.{solver}.{family}")


def solve(instance, objective: str | None = None, solver: str = "cpsat",
          time_limit: float | None = None, formulation: str = "default") -> Result:
    from schedbench.model import family_module
    from schedbench.solvers import campaign, dssp, knapsack, mosp, pcmax, three_partition, workflow

    objectives = family_module(instance.family).OBJECTIVES
    objective = objective or objectives[0]
    if objective not in objectives:
        raise UserInputError("--objective", f"{objective!r} is not an objective of family {instance.family} "
                                            f"(known: {', '.join(objectives)})")
    if solver not in SOLVERS:
        raise UserInputError("--solver", f"unknown solver {solver!r} (known: {', '.join(SOLVERS)})")
    if time_limit is not None and time_limit <= 0:
        raise UserInputError("--time-limit", f"must be > 0, got {time_limit}")
    limit = settings.DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    if instance.family == "pcmax":
        return pcmax.solve(instance, objective, solver, limit)
    if solver == "portfolio" and objective != "unconstrained-makespan":
        raise UserInputError("--solver", "the portfolio is for P||Cmax problems; other models take cpsat or milp")
    if instance.family == "mosp":
        return mosp.solve(instance, objective, solver, limit)
    if instance.family == "three_partition":
        return three_partition.solve(instance, solver, limit)
    if instance.family == "knapsack":
        return knapsack.solve(instance, solver, limit)
    if instance.family == "dssp":
        return dssp.solve(instance, solver, limit)
    if instance.family == "workflow":
        return workflow.solve(instance, solver, limit)
    return campaign.solve(instance, objective, solver, limit, formulation)
