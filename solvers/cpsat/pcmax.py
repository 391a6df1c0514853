"""CP-SAT for P||Cmax as bin packing, minimising the makespan between bounds.

Jobs of equal length are interchangeable, so the model counts them:
y[s][q] = how many jobs of length s machine q runs (0..min(count, C // s)),
every length fully placed, every machine's load <= C. Machines are
interchangeable, so their loads are ordered non-increasingly (and the
longest job is on machine 0), which removes the m! relabellings.
A hint (a heuristic's schedule) starts the search.
"""

from collections import Counter
from collections.abc import Sequence

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run


def minimize(lengths: Sequence[int], machines: int, lower: int, upper: int, time_limit: float,
             hint: Sequence[int] | None = None) -> tuple[str, list[int] | None, int | None]:
    """(status, machine of each job or None, proven lower bound or None) for a
    makespan in [lower, upper]; 'infeasible' means no schedule within upper."""
    counts = Counter(lengths)
    sizes = sorted(counts, reverse=True)
    model = cp_model.CpModel()
    y = {(s, q): model.new_int_var(0, min(counts[s], upper // s), f"y{s}_{q}")
         for s in sizes for q in range(machines)}
    for s in sizes:
        model.add(sum(y[s, q] for q in range(machines)) == counts[s])
    makespan = model.new_int_var(lower, upper, "makespan")
    loads = []
    for q in range(machines):
        load = sum(s * y[s, q] for s in sizes)
        model.add(load <= makespan)
        loads.append(load)
    for q in range(machines - 1):
        model.add(loads[q] >= loads[q + 1])
    if hint is not None:
        per_machine = Counter((hint[j], p) for j, p in enumerate(lengths))
        order = sorted(range(machines), key=lambda q: -sum(p * c for (h, p), c in per_machine.items() if h == q))
        for rank, q in enumerate(order):
            for s in sizes:
                model.add_hint(y[s, rank], per_machine.get((q, s), 0))
    model.minimize(makespan)
    keys = list(y)
    outcome = run(model, time_limit, [y[k] for k in keys])
    if outcome.solution is None:
        return outcome.status, None, None
    free: dict[int, list[int]] = {}
    for (s, q), count in zip(keys, outcome.solution):
        free.setdefault(s, []).extend([q] * count)
    return outcome.status, [free[p].pop() for p in lengths], outcome.bound
