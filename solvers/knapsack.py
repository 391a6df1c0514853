"""0-1 knapsack: the most profitable selection that fits, and its proven bound.

The result's solution is the tuple of selected item indexes; its objective
is the profit recomputed from that selection, its bound the certified
upper bound: the model's optimum (or its bound on a time limit) counts once
an independent method refutes "a profit above it" (``solvers.exact.certificate``):
first the exact dynamic program by profits where its table is small, then
the other backend, then CP-SAT's confirming configuration. The empty
selection always fits, so the answer is never ``infeasible``.
"""

import time
from fractions import Fraction
from math import floor

from schedbench.errors import ModelTooLarge
from schedbench.metrics.dssp import dp_fits
from schedbench.heuristics.knapsack import dp_selection
from schedbench.metrics.knapsack import by_density, dantzig
from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL, Result
from schedbench.solvers.cpsat import knapsack as cpsat_model
from schedbench.solvers.milp import knapsack as milp_model
from schedbench.solvers.exact.certificate import SEARCH_SHARE, confirm, other_methods


FAMILY = "knapsack"
#: One model per backend (``solvers/cpsat``, ``solvers/milp``).
MODELS = {"cpsat": cpsat_model, "milp": milp_model}
BACKENDS = ("cpsat", "milp")
#: CP-SAT and CBC prove every stress instance (bench/optimality_stress.py);
#: CP-SAT runs in-process, CBC as a subprocess.
DEFAULT_SOLVER = "cpsat"


def _greedy(instance) -> tuple[int, ...]:
    """Items by profit per unit of weight, each taken while it fits."""
    left, chosen = instance.capacity, []
    for i in by_density(instance.weights, instance.profits):
        if instance.weights[i] <= left:
            left -= instance.weights[i]
            chosen.append(i)
    return tuple(sorted(chosen))


def solve(instance, objective: str, solver: str, time_limit: float) -> Result:
    began = time.monotonic()
    outcome = MODELS[solver].solve(instance, SEARCH_SHARE * time_limit)
    # without a model's answer, the greedy selection by profit per weight (Dantzig's, whole items only)
    selected = (tuple(i for i, x in enumerate(outcome.solution) if x) if outcome.solution is not None
                else _greedy(instance))
    value = instance.profit_of(selected)
    certified, proof = floor(dantzig(instance.weights, instance.profits, instance.capacity)), ("lp-dantzig",)
    claimed = value if outcome.status == OPTIMAL else outcome.bound
    details: dict = {}
    if claimed is not None and max(claimed, value) < certified:
        at_least = max(claimed, value) + 1

        def by_dynamic_program(seconds: float):
            if not dp_fits(len(instance.items), instance.profits, seconds):
                raise ModelTooLarge("the dynamic program's table is too large for the time left")
            best = dp_selection(instance)
            return (INFEASIBLE, None) if instance.profit_of(best) < at_least else (FEASIBLE, best)

        def ask(model, seconds: float):
            found = model.solve(instance, seconds, at_least=at_least)
            return found.status, None if found.solution is None else tuple(i for i, x in enumerate(found.solution) if x)

        methods = [("dp-by-profits", by_dynamic_program), *other_methods(MODELS, solver, ask)]
        done = confirm(methods, began + time_limit)
        details.update(done.details(claimed, solver, certified))
        if done.confirmed:
            certified, proof = at_least - 1, (solver, done.by)
        elif done.found is not None:  # the claim was false
            selected, value = done.found, instance.profit_of(done.found)
    status = OPTIMAL if value >= certified else FEASIBLE
    return Result(status, Fraction(value), Fraction(value if status == OPTIMAL else certified), selected, solver,
                  "model", time.monotonic() - began, details, proof)
