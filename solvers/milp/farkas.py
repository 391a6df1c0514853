"""Farkas weights of a PuLP model's infeasible LP relaxation, from GLOP.

CBC through PuLP gives no dual ray of an infeasible LP, so the relaxation's
phase 1 is solved instead: every row gets a slack (two for an equality),
the slacks' sum is minimised, and at an optimum above 0 the negated duals
are the weights of a Farkas proof (each weighted column >= 0, the weighted
right-hand sides < 0; a ``<=`` row's weight >= 0). They are floats: whoever
relies on them checks them in exact arithmetic (for the selfish MOSP
model, ``metrics.mosp.configuration_lp``).
"""

import time

import numpy as np
import pulp
import scipy.sparse
from ortools.linear_solver.python.model_builder_helper import ModelBuilderHelper, ModelSolverHelper, SolveStatus

from schedbench.solvers.exact.stopping import stop_requested, stopped_on_request

#: Phase 1's optimum above which the relaxation counts as infeasible.
INFEASIBLE_ABOVE = 1e-6
#: The dual simplex: phase 1 of the selfish MOSP configuration model in
#: 1.3-3.5 s where GLOP's default (primal) takes 1.9-7.3 s (three instances
#: of the held-out eight-organization sum_ci line, 43-51 jobs).
GLOP_PARAMETERS = "use_dual_simplex: true"
_SENSES = {pulp.LpConstraintLE: (-1,), pulp.LpConstraintGE: (1,), pulp.LpConstraintEQ: (1, -1)}


def farkas_weights(problem: pulp.LpProblem, time_limit: float) -> dict[str, float] | None:
    """Row name -> weight proving the LP relaxation of ``problem`` (its
    variables >= 0, their upper bounds left out, which the models' rows
    imply) infeasible; None when it is feasible, or GLOP does not finish
    within ``time_limit`` seconds or before a stop is requested (``solvers.exact.stopping``)."""
    deadline = time.monotonic() + time_limit
    names, model = _phase_one(problem)
    if stop_requested() or time.monotonic() >= deadline:
        return None
    solver = ModelSolverHelper("glop")
    solver.set_solver_specific_parameters(GLOP_PARAMETERS)
    solver.set_time_limit_in_seconds(max(deadline - time.monotonic(), 0.001))
    with stopped_on_request(solver.interrupt_solve):
        solver.solve(model)
    if solver.status() != SolveStatus.OPTIMAL or solver.objective_value() <= INFEASIBLE_ABOVE:
        return None
    return dict(zip(names, (-solver.dual_values()).tolist()))


def _phase_one(problem: pulp.LpProblem) -> tuple[list[str], ModelBuilderHelper]:
    """The rows' names and the phase-1 LP: the model's variables, then one
    slack per row and sense (``_SENSES``), the slacks' sum minimised."""
    index = {v.name: i for i, v in enumerate(problem.variables())}
    rows, columns, values, lower, upper, names = [], [], [], [], [], []
    slack = len(index)
    for r, row in enumerate(problem.constraints()):  # PuLP's list of rows (its name mapping is deprecated)
        names.append(row.name)
        for var, coefficient in row.items():
            rows.append(r)
            columns.append(index[var.name])
            values.append(coefficient)
        for sign in _SENSES[row.sense]:
            rows.append(r)
            columns.append(slack)
            values.append(sign)
            slack += 1
        rhs = -row.constant
        lower.append(rhs if row.sense != pulp.LpConstraintLE else -np.inf)
        upper.append(rhs if row.sense != pulp.LpConstraintGE else np.inf)
    matrix = scipy.sparse.csr_matrix((values, (rows, columns)), shape=(len(names), slack))
    objective = np.concatenate([np.zeros(len(index)), np.ones(slack - len(index))])
    model = ModelBuilderHelper()
    model.fill_model_from_sparse_data(np.zeros(slack), np.full(slack, np.inf), objective,
                                      np.array(lower, dtype=float), np.array(upper, dtype=float), matrix)
    return names, model
