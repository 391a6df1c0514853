"""3-PARTITION decision: the triples, or a proof that there are none.

The answer is ``feasible`` with the certificate (q triples of item indexes)
as the result's solution, ``infeasible`` when the model's refutation is
confirmed by an independent method (``solvers.exact.certificate``), ``unknown``
on the time limit or when no second method confirms it (the claim is then
named in ``details["unconfirmed"]``). As a number the answer is 1 (yes) or
0 (no). Items lie strictly between B/4 and B/2, so a set summing to B has
exactly three items and the model only needs sums.
"""

import time
from fractions import Fraction

from schedbench.result import FEASIBLE, INFEASIBLE, UNKNOWN, Result
from schedbench.solvers.cpsat import three_partition as cpsat_model
from schedbench.solvers.milp import three_partition as milp_model
from schedbench.solvers.exact.certificate import SEARCH_SHARE, confirm, other_methods


FAMILY = "three_partition"
#: One model per backend (``solvers/cpsat``, ``solvers/milp``).
MODELS = {"cpsat": cpsat_model, "milp": milp_model}
BACKENDS = ("cpsat", "milp")
#: Both decide every stress instance (bench/optimality_stress.py); CP-SAT runs in-process.
DEFAULT_SOLVER = "cpsat"


def solve(instance, objective: str, solver: str, time_limit: float) -> Result:
    began = time.monotonic()
    outcome = MODELS[solver].solve(instance, SEARCH_SHARE * time_limit)
    details: dict = {}
    if outcome.status == INFEASIBLE:
        done = confirm(other_methods(MODELS, solver,
                                     lambda model, seconds: _answer(model.solve(instance, seconds))), began + time_limit)
        details.update(done.details("infeasible", solver, None))
        if done.confirmed:
            return Result(INFEASIBLE, Fraction(0), Fraction(0), None, solver, "model", time.monotonic() - began,
                          details, (solver, done.by))
        if done.found is None:
            return Result(UNKNOWN, None, None, None, solver, "model", time.monotonic() - began, details)
        outcome = done.found
    if outcome.solution is None:
        return Result(UNKNOWN, None, None, None, solver, "model", time.monotonic() - began, details)
    q = instance.triples
    triples = tuple(tuple(i for i, t in enumerate(outcome.solution) if t == triple) for triple in range(q))
    return Result(FEASIBLE, Fraction(1), Fraction(1), triples, solver, "model", time.monotonic() - began, details,
                  ("certificate",))


def _answer(outcome):
    """A confirming model's answer; its outcome itself is the solution kept."""
    return outcome.status, None if outcome.solution is None else outcome
