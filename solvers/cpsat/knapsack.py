"""CP-SAT knapsack model: take_i = 1 iff item i is selected,
sum w_i take_i <= C. Maximise sum p_i take_i, written as minimising its
negation (like the DSSP model) so the shared bound rounding of ``run``
applies unchanged; value and bound are negated back, the bound becoming
the proven upper bound on the profit."""

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run
from schedbench.solvers.exact.outcome import ModelOutcome, maximised


def solve(instance, time_limit: float, at_least: int | None = None) -> ModelOutcome:
    """``at_least``: only selections worth that much (a question asked to confirm a bound)."""
    model = cp_model.CpModel()
    take = [model.new_bool_var(f"take{i}") for i in range(len(instance.items))]
    # weighted_sum, not sum(): an instance without items still gives an expression
    model.add(cp_model.LinearExpr.weighted_sum(take, instance.weights) <= instance.capacity)
    profit = cp_model.LinearExpr.weighted_sum(take, instance.profits)
    if at_least is not None:
        model.add(profit >= at_least)
    model.minimize(-profit)
    return maximised(run(model, time_limit, take))
