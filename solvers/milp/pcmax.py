"""MILP for P||Cmax: the assignment model with the same symmetry breaking as
the CP-SAT model (job j of the LPT order only on machines 0..j)."""

from collections.abc import Sequence

import pulp

from schedbench.solvers.milp import run
from schedbench.solvers.outcome import ModelOutcome


def solve(lengths: Sequence[int], machines: int, lower: int, upper: int, hint: Sequence[int],
          time_limit: float) -> ModelOutcome:
    order = sorted(range(len(lengths)), key=lambda j: -lengths[j])
    problem = pulp.LpProblem("pcmax", pulp.LpMinimize)
    x = {(j, q): problem.add_variable(f"x_{j}_{q}", cat=pulp.LpBinary)
         for j in range(len(order)) for q in range(min(j + 1, machines))}
    makespan = problem.add_variable("makespan", lower, upper, pulp.LpInteger)
    problem += makespan
    for j in range(len(order)):
        problem += pulp.lpSum(x[j, q] for q in range(min(j + 1, machines))) == 1
    for q in range(machines):
        problem += pulp.lpSum(lengths[order[j]] * x[j, q] for j in range(len(order)) if (j, q) in x) <= makespan
    relabel: dict[int, int] = {}
    for j, job in enumerate(order):
        relabel.setdefault(hint[job], len(relabel))
        for q in range(min(j + 1, machines)):
            x[j, q].setInitialValue(int(relabel[hint[job]] == q))
    makespan.setInitialValue(upper)
    keys = sorted(x)
    outcome = run(problem, time_limit, [x[key] for key in keys], objective=makespan, warm_start=True)
    if outcome.solution is not None:
        machine_of = [0] * len(lengths)
        for (j, q), value in zip(keys, outcome.solution):
            if value:
                machine_of[order[j]] = q
        outcome.solution = machine_of
    return outcome
