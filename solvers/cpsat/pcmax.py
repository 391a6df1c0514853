"""CP-SAT for the P||Cmax decision "makespan <= C?" as bin packing.

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


def decide(lengths: Sequence[int], machines: int, capacity: int, time_limit: float,
           hint: Sequence[int] | None = None) -> tuple[str, list[int] | None]:
    """('feasible', machine of each job) | ('infeasible', None) | ('unknown', None)."""
    counts = Counter(lengths)
    sizes = sorted(counts, reverse=True)
    model = cp_model.CpModel()
    y = {(s, q): model.new_int_var(0, min(counts[s], capacity // s), f"y{s}_{q}")
         for s in sizes for q in range(machines)}
    for s in sizes:
        model.add(sum(y[s, q] for q in range(machines)) == counts[s])
    loads = []
    for q in range(machines):
        load = sum(s * y[s, q] for s in sizes)
        model.add(load <= capacity)
        loads.append(load)
    for q in range(machines - 1):
        model.add(loads[q] >= loads[q + 1])
    if hint is not None:
        per_machine = Counter((hint[j], p) for j, p in enumerate(lengths))
        order = sorted(range(machines), key=lambda q: -sum(p * c for (h, p), c in per_machine.items() if h == q))
        for rank, q in enumerate(order):
            for s in sizes:
                model.add_hint(y[s, rank], per_machine.get((q, s), 0))
    keys = list(y)
    outcome = run(model, time_limit, [y[k] for k in keys], has_objective=False)
    if outcome.status == "infeasible":
        return "infeasible", None
    if outcome.solution is None:
        return "unknown", None
    free: dict[int, list[int]] = {}
    for (s, q), count in zip(keys, outcome.solution):
        free.setdefault(s, []).extend([q] * count)
    return "feasible", [free[p].pop() for p in lengths]
