"""Exact workflow scheduling (``max-slr``): the family entry of both backends.

max_k SLR_k = max_k (finish_k - arrival_k) / CP_k is a maximum of ratios
with integer numerators over fixed integer denominators CP_k, so it is
solved by the exact candidate bisection of ``solvers.exact.ratio``: each
question "finish_k - arrival_k <= limits[k] for every k" is a deadline per
job, answered by an integer feasibility model (``solvers.cpsat.workflow``,
``solvers.milp.workflow``). Lower bound 1 (no job beats its critical path);
upper bound and first schedule the best online heuristic. No question is
hinted: every target lies below every schedule known, so none fits.

The data both models share (start windows, the clusters each task may use,
the start orderings they respect, the energy rows) is in
``solvers.workflow.structure``, beneath both.
"""

import time
from fractions import Fraction
from math import floor

from schedbench.heuristics.workflow import HEURISTICS
from schedbench.metrics.workflow import critical_path, max_slr
from schedbench.model.workflow import WorkflowInstance, WorkflowSchedule
from schedbench.result import OPTIMAL, Result
from schedbench.solvers.cpsat import workflow as cpsat_model
from schedbench.solvers.milp import workflow as milp_model
from schedbench.solvers.exact.certificate import FORMULA
from schedbench.solvers.exact.ratio import minimize_max_ratio
from schedbench.solvers.workflow.structure import domains
from schedbench.validator import validate

#: Every SLR is at least 1: a job cannot finish before its critical path.
LOWER_BOUND = Fraction(1)


def incumbent(instance: WorkflowInstance) -> tuple[Fraction, str, WorkflowSchedule]:
    """The best online heuristic by exact max-SLR (ties: the first in the
    registry's order), with its value and name: the search's upper bound and
    first schedule. A heuristic's invalid schedule is a bug, never skipped."""
    scored = []
    for order, (name, run) in enumerate(HEURISTICS.items()):
        schedule = run(instance)
        violations = validate(instance, schedule)
        if violations:
            raise AssertionError(f"{name} produced an invalid schedule: {violations[0]}")
        scored.append((max_slr(instance, schedule), order, name, schedule))
    value, _, name, schedule = min(scored, key=lambda entry: entry[:2])
    return value, name, schedule


def _deadlines(instance: WorkflowInstance, limits: list[int]) -> list[int]:
    """finish_k - arrival_k <= limits[k] as the absolute deadline of job k."""
    return [job.arrival + limit for job, limit in zip(instance.jobs, limits)]


def deadlines_at(instance: WorkflowInstance, target: Fraction) -> list[int]:
    """Every job's deadline in the question "max-SLR <= target": its arrival
    plus floor(target x its critical path), as the search asks it."""
    return _deadlines(instance, [floor(target * critical_path(job)) for job in instance.jobs])


def _schedule(solution: list[int]) -> WorkflowSchedule:
    """A model's flat solution (clusters, then starts) as a schedule."""
    n = len(solution) // 2
    return WorkflowSchedule(tuple(solution[:n]), tuple(solution[n:]))


FAMILY = "workflow"
#: One model per backend (``solvers/cpsat``, ``solvers/milp``).
MODELS = {"cpsat": cpsat_model, "milp": milp_model}
BACKENDS = ("cpsat", "milp")
#: The strongest measured: the time-indexed MILP refuses models past the MILP
#: coefficient limit and is slower below (bench/optimality_stress.py).
DEFAULT_SOLVER = "cpsat"


def solve(instance: WorkflowInstance, objective: str, solver: str, time_limit: float) -> Result:
    """Minimise max-SLR exactly with ``solver`` (cpsat or milp) within
    ``time_limit`` seconds; on a time limit, the best schedule and the proven bound."""
    began = time.monotonic()
    if not instance.jobs:
        return Result(OPTIMAL, Fraction(0), Fraction(0), WorkflowSchedule((), ()), solver, "empty",
                      time.monotonic() - began, proof=("empty",))
    value, name, schedule = incumbent(instance)
    denominators = [Fraction(critical_path(job)) for job in instance.jobs]
    if solver == "milp" and value > LOWER_BOUND:
        # the largest question the search can ask: every later target is smaller
        MODELS[solver].require_small(instance, deadlines_at(instance, value))

    def ask(backend_model, limits: list[int], seconds: float):
        deadlines = _deadlines(instance, limits)
        if any(earliest > latest for earliest, latest in domains(instance, deadlines)):
            return FORMULA, None  # an empty start window refutes the deadlines before any model
        outcome = backend_model.solve(instance, deadlines, seconds)
        return outcome.status, None if outcome.solution is None else _schedule(outcome.solution)

    search = minimize_max_ratio(denominators, LOWER_BOUND, ("SLR>=1",), value, schedule, lambda s: max_slr(instance, s),
                                MODELS, solver, ask, max(time_limit - (time.monotonic() - began), 0.01))
    return Result(search.status, search.value, search.bound, search.schedule, solver, f"{solver}:ratio-bisection",
                  time.monotonic() - began, {"incumbent": name, "incumbent_value": str(value),
                                             "questions": search.questions, **search.details}, search.proof)
