"""MILP 3-PARTITION model through PuLP/CBC: the same assignment as the
CP-SAT model (x[i,t], item i only in triples 0..i, every triple sums to B),
a pure feasibility question."""

import pulp

from schedbench.solvers.milp import run
from schedbench.solvers.outcome import ModelOutcome


def solve(instance, time_limit: float) -> ModelOutcome:
    items, q, b = instance.items, instance.triples, instance.bound
    problem = pulp.LpProblem("three_partition", pulp.LpMinimize)
    x = {(i, t): problem.add_variable(f"x_{i}_{t}", cat=pulp.LpBinary)
         for i in range(len(items)) for t in range(min(q, i + 1))}
    problem += pulp.lpSum([])
    for i in range(len(items)):
        problem += pulp.lpSum(v for (j, _), v in x.items() if j == i) == 1, f"once_{i}"
    for t in range(q):
        problem += pulp.lpSum(items[i] * v for (i, s), v in x.items() if s == t) == b, f"sum_{t}"
    triple = [pulp.lpSum(t * v for (j, t), v in x.items() if j == i) for i in range(len(items))]
    return run(problem, time_limit, triple)
