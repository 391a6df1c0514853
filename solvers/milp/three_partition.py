"""MILP 3-PARTITION model through PuLP/CBC: the same assignment as the
CP-SAT model (x[i,t], item i only in triples 0..i, every triple sums to B),
a pure feasibility question."""

import pulp

from schedbench.solvers.milp import require_small, run
from schedbench.solvers.exact.outcome import ModelOutcome


def solve(instance, time_limit: float) -> ModelOutcome:
    """Built in one pass over x (per item and per triple lists: a scan of
    every x per row took 23 s at 300 triples, past any time limit)."""
    items, q, b = instance.items, instance.triples, instance.bound
    require_small(2 * sum(min(q, i + 1) for i in range(len(items))))  # x in one once_ row and one sum_ row
    problem = pulp.LpProblem("three_partition", pulp.LpMinimize)
    x = [[problem.add_variable(f"x_{i}_{t}", cat=pulp.LpBinary) for t in range(min(q, i + 1))]
         for i in range(len(items))]
    problem += pulp.lpSum([])
    for i, row in enumerate(x):
        problem += pulp.lpSum(row) == 1, f"once_{i}"
    for t in range(q):
        problem += pulp.lpSum(items[i] * row[t] for i, row in enumerate(x) if t < len(row)) == b, f"sum_{t}"
    triple = [pulp.lpSum(t * v for t, v in enumerate(row)) for row in x]
    return run(problem, time_limit, triple)
