"""CP-SAT for P||Cmax as bin packing, minimising the makespan between bounds.

Jobs of equal length are interchangeable, so the counts model counts them:
y[s][q] = how many jobs of length s machine q runs (0..min(count, C // s)),
every length fully placed, every machine's load <= C. Machines are
interchangeable, so their loads are ordered non-increasingly (and the
longest job is on machine 0), which removes the m! relabellings.

Both models are built against a ``deadline`` (``time.monotonic()``): past
``MAX_VARIABLES`` variables, or once the deadline passes while building,
the answer is "unknown" rather than a late one.
"""

import time
from collections import Counter
from collections.abc import Sequence

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run

#: Variables beyond which no model is built (building one costs about 10 s
#: per million variables in Python, before any search).
MAX_VARIABLES = 200_000

Answer = tuple[str, list[int] | None, int | None]


def minimize(lengths: Sequence[int], machines: int, lower: int, upper: int, deadline: float) -> Answer:
    """(status, machine of each job or None, proven lower bound or None) for a
    makespan in [lower, upper]; 'infeasible' means no schedule within upper.

    Many equal lengths: the counts model. Mostly distinct lengths (long
    jobs, as in the OStrich workload): the assignment model, which proves
    more of them (measured in bench/campaign_optima.py)."""
    if 2 * len(set(lengths)) > len(lengths):
        return assignment(lengths, machines, lower, upper, deadline)
    counts = Counter(lengths)
    sizes = sorted(counts, reverse=True)
    if len(sizes) * machines > MAX_VARIABLES:
        return "unknown", None, None
    model = cp_model.CpModel()
    y = {}
    for s in sizes:
        if time.monotonic() > deadline:
            return "unknown", None, None
        for q in range(machines):
            y[s, q] = model.new_int_var(0, min(counts[s], upper // s), f"y{s}_{q}")
        model.add(sum(y[s, q] for q in range(machines)) == counts[s])
    makespan = model.new_int_var(lower, upper, "makespan")
    loads = []
    for q in range(machines):
        load = sum(s * y[s, q] for s in sizes)
        model.add(load <= makespan)
        loads.append(load)
    for q in range(machines - 1):
        model.add(loads[q] >= loads[q + 1])
    model.minimize(makespan)
    keys = list(y)
    outcome = run(model, deadline - time.monotonic(), [y[k] for k in keys])
    if outcome.solution is None:
        return outcome.status, None, None
    free: dict[int, list[int]] = {}
    for (s, q), count in zip(keys, outcome.solution):
        free.setdefault(s, []).extend([q] * count)
    return outcome.status, [free[p].pop() for p in lengths], outcome.bound


def assignment(lengths: Sequence[int], machines: int, lower: int, upper: int, deadline: float) -> Answer:
    """x[j][q] = job j on machine q, jobs by non-increasing length and job j
    only on machines 0..j: any schedule can be relabelled so that machine q
    is the q-th one to receive a job, which removes the m! relabellings."""
    order = sorted(range(len(lengths)), key=lambda j: -lengths[j])
    if sum(min(rank + 1, machines) for rank in range(len(order))) > MAX_VARIABLES:
        return "unknown", None, None
    model = cp_model.CpModel()
    x = []
    for rank in range(len(order)):
        if rank % 256 == 0 and time.monotonic() > deadline:
            return "unknown", None, None
        x.append([model.new_bool_var("") for _ in range(min(rank + 1, machines))])
        model.add_exactly_one(x[-1])
    makespan = model.new_int_var(lower, upper, "makespan")
    for q in range(machines):
        model.add(sum(lengths[order[r]] * row[q] for r, row in enumerate(x) if q < len(row)) <= makespan)
    model.minimize(makespan)
    outcome = run(model, deadline - time.monotonic(), [v for row in x for v in row])
    if outcome.solution is None:
        return outcome.status, None, None
    machine_of = [0] * len(lengths)
    values = iter(outcome.solution)
    for rank, row in enumerate(x):
        for q in range(len(row)):
            if next(values):
                machine_of[order[rank]] = q
    return outcome.status, machine_of, outcome.bound
