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
    makespan in [lower, upper]; 'infeasible' means no schedule within upper.

    Many equal lengths: the counts model. Mostly distinct lengths (long
    jobs, as in the OStrich workload): the assignment model, which proves
    more of them (measured in bench/campaign_optima.py)."""
    if 2 * len(set(lengths)) > len(lengths):
        return assignment(lengths, machines, lower, upper, time_limit, hint)
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


def assignment(lengths: Sequence[int], machines: int, lower: int, upper: int, time_limit: float,
               hint: Sequence[int] | None = None) -> tuple[str, list[int] | None, int | None]:
    """x[j][q] = job j on machine q, jobs by non-increasing length and job j
    only on machines 0..j: any schedule can be relabelled so that machine q
    is the q-th one to receive a job, which removes the m! relabellings."""
    order = sorted(range(len(lengths)), key=lambda j: -lengths[j])
    model = cp_model.CpModel()
    x = [[model.new_bool_var("") for _ in range(min(rank + 1, machines))] for rank in range(len(order))]
    for row in x:
        model.add_exactly_one(row)
    makespan = model.new_int_var(lower, upper, "makespan")
    for q in range(machines):
        model.add(sum(lengths[order[r]] * row[q] for r, row in enumerate(x) if q < len(row)) <= makespan)
    if hint is not None:
        relabel: dict[int, int] = {}
        for rank, j in enumerate(order):
            relabel.setdefault(hint[j], len(relabel))
            for q, var in enumerate(x[rank]):
                model.add_hint(var, relabel[hint[j]] == q)
    model.minimize(makespan)
    outcome = run(model, time_limit, [v for row in x for v in row])
    if outcome.solution is None:
        return outcome.status, None, None
    machine_of = [0] * len(lengths)
    values = iter(outcome.solution)
    for rank, row in enumerate(x):
        for q in range(len(row)):
            if next(values):
                machine_of[order[rank]] = q
    return outcome.status, machine_of, outcome.bound
