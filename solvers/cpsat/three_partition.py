"""CP-SAT 3-PARTITION model: item i goes to triple t (x[i][t]), every triple
sums to B. Triples are interchangeable, so item i may only use triples
0..i/3 (the t-th triple is the one that holds the smallest-indexed item
not in an earlier triple, and it can be no later than that)."""

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run
from schedbench.solvers.exact.outcome import ModelOutcome


def solve(instance, time_limit: float) -> ModelOutcome:
    items, q, b = instance.items, instance.triples, instance.bound
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"x{i}_{t}") for t in range(min(q, i + 1))] for i in range(len(items))]
    for row in x:
        model.add_exactly_one(row)
    for t in range(q):
        model.add(sum(items[i] * row[t] for i, row in enumerate(x) if t < len(row)) == b)
    triple = [sum(t * v for t, v in enumerate(row)) for row in x]
    return run(model, time_limit, triple, has_objective=False)
