"""CP-SAT for P||Cmax: assignment (bin-packing) model.

Jobs are sorted by non-increasing length and job j may only use machines
0..j: any schedule can be relabelled so that machine q's first job is the
q-th job to open a machine, which removes the m! machine permutations.
The makespan is bounded below by L0/L1 and above by the LPT hint.
"""

from collections.abc import Sequence

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run
from schedbench.solvers.outcome import ModelOutcome


def solve(lengths: Sequence[int], machines: int, lower: int, upper: int, hint: Sequence[int],
          time_limit: float) -> ModelOutcome:
    """Minimise the makespan; ``solution`` is the machine of each job."""
    order = sorted(range(len(lengths)), key=lambda j: -lengths[j])
    model = cp_model.CpModel()
    # x[j][q] = 1 iff job order[j] runs on machine q (q <= j: symmetry breaking)
    x = [[model.new_bool_var(f"x{j}_{q}") for q in range(min(j + 1, machines))] for j in range(len(order))]
    for row in x:
        model.add_exactly_one(row)
    makespan = model.new_int_var(lower, upper, "makespan")
    for q in range(machines):
        terms = [(lengths[order[j]], x[j][q]) for j in range(len(order)) if q < len(x[j])]
        if terms:
            model.add(sum(p * v for p, v in terms) <= makespan)
    # Warm start: the heuristic's machines relabelled in order of first use.
    relabel: dict[int, int] = {}
    for j, job in enumerate(order):
        relabel.setdefault(hint[job], len(relabel))
        for q, var in enumerate(x[j]):
            model.add_hint(var, relabel[hint[job]] == q)
    model.minimize(makespan)
    flat = [x[j] for j in range(len(order))]
    outcome = run(model, time_limit, [v for row in flat for v in row])
    if outcome.solution is not None:
        machine_of = [0] * len(lengths)
        values = iter(outcome.solution)
        for j, row in enumerate(flat):
            for q in range(len(row)):
                if next(values):
                    machine_of[order[j]] = q
        outcome.solution = machine_of
    return outcome
