"""MILP MOSP model through PuLP/CBC (see ``solvers.mosp``), time-indexed:
x[j,q,t] = 1 iff job j starts at t on machine q; only starts meeting the
job's latest completion exist. Selfishness, with w[k,t] = 1 when a job of
k starts after t:
(a) no foreign job starts on a machine of k at t while w[k,t] = 1;
(b) every machine of k is busy at t while w[k,t] = 1.
"""

import pulp

from schedbench.solvers.milp import run
from schedbench.solvers.outcome import ModelOutcome


def solve(spec, time_limit: float, hint=None, cap: int | None = None) -> ModelOutcome:
    """Minimise the makespan, capped at ``cap`` (``hint`` is for CP-SAT; CBC takes none here)."""
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    horizon = spec.horizon if cap is None else min(cap, spec.horizon)
    n = len(lengths)
    problem = pulp.LpProblem("mosp", pulp.LpMinimize)
    x = {(j, q, t): problem.add_variable(f"x_{j}_{q}_{t}", cat=pulp.LpBinary)
         for j, p in enumerate(lengths) for q in range(m) for t in range(min(spec.latest_completion(j), horizon) - p + 1)}
    cmax = problem.add_variable("cmax", min(spec.lower_bound(), horizon), horizon, pulp.LpInteger)
    problem += cmax
    completion = [pulp.lpSum((t + lengths[j]) * v for (i, _, t), v in x.items() if i == j) for j in range(n)]
    for j in range(n):
        problem += pulp.lpSum(v for (i, _, _), v in x.items() if i == j) == 1, f"once_{j}"
        problem += cmax >= completion[j], f"cmax_{j}"
    start = [pulp.lpSum(t * v for (i, _, t), v in x.items() if i == j) for j in range(n)]
    for a, b in spec.twins():
        problem += start[a] <= start[b], f"twins_{a}_{b}"
    running = _running(x, lengths)
    for (q, t), active in running.items():
        if len(active) > 1:
            problem += pulp.lpSum(active) <= 1, f"machine_{q}_{t}"
    if inst.local_objective == "sum_ci":
        for k, ref in enumerate(spec.references):
            problem += pulp.lpSum(completion[j] for j in inst.job_slice(k)) <= ref, f"local_{k}"
    if inst.selfish:
        _selfishness(problem, inst, x, running, horizon)
    machine = [pulp.lpSum(q * v for (i, q, _), v in x.items() if i == j) for j in range(n)]
    return run(problem, time_limit, machine + start, objective=cmax)


def _running(x, lengths) -> dict[tuple[int, int], list]:
    """Variables of the jobs running on machine q at instant t."""
    out: dict[tuple[int, int], list] = {}
    for (j, q, t), var in x.items():
        for tau in range(t, t + lengths[j]):
            out.setdefault((q, tau), []).append(var)
    return out


def _selfishness(problem, inst, x, running, horizon) -> None:
    for k in range(inst.n_organizations):
        own = set(inst.job_slice(k))
        if not own:
            continue
        mine = set(inst.machine_slice(k))
        foreign = len(inst.lengths) - len(own)
        for t in range(horizon):
            w = problem.add_variable(f"w_{k}_{t}", cat=pulp.LpBinary)
            for j in own:
                problem += w >= pulp.lpSum(v for (i, _, tau), v in x.items() if i == j and tau > t), f"w_{k}_{t}_{j}"
            arriving = [v for (i, q, tau), v in x.items() if tau == t and q in mine and i not in own]
            if arriving:
                problem += pulp.lpSum(arriving) <= foreign * (1 - w), f"foreign_{k}_{t}"
            for q in mine:
                problem += pulp.lpSum(running.get((q, t), [])) >= w, f"busy_{k}_{q}_{t}"
