"""MILP knapsack model through PuLP/CBC: the CP-SAT model's binaries and
capacity row, maximising the profit as minimising its negation (so the
bound ``run`` reads from CBC's "Lower bound:" keeps its meaning; negated
back, it is the proven upper bound on the profit).

Items of profit 0 get no variable: they add nothing, and one that also
weighs 0 would be in no row, so CBC would give it no value at all.
"""

import pulp

from schedbench.solvers.milp import run
from schedbench.solvers.exact.outcome import ModelOutcome, maximised


def solve(instance, time_limit: float, at_least: int | None = None) -> ModelOutcome:
    """``at_least``: only selections worth that much (as the CP-SAT model)."""
    items = instance.items
    problem = pulp.LpProblem("knapsack", pulp.LpMinimize)
    take = {i: problem.add_variable(f"take_{i}", cat=pulp.LpBinary) for i, item in enumerate(items) if item.profit > 0}
    objective = -pulp.lpSum(items[i].profit * x for i, x in take.items())
    # a copy: with no variables the objective is a constant, and PuLP then
    # leaves a valueless dummy variable in the very expression it was given
    problem += objective.copy()
    problem += pulp.lpSum(items[i].weight * x for i, x in take.items()) <= instance.capacity, "capacity"
    if at_least is not None:
        problem += pulp.lpSum(items[i].profit * x for i, x in take.items()) >= at_least, "at_least"
    outcome = maximised(run(problem, time_limit, list(take.values()), objective=objective))
    if outcome.solution is not None:
        chosen = {i for i, x in zip(take, outcome.solution) if x}
        outcome.solution = [int(i in chosen) for i in range(len(items))]
    return outcome
