"""MILP MOSP model through PuLP/CBC (see ``solvers.mosp``), time-indexed:
x[j,q,t] = 1 iff job j starts at t on machine q; only starts meeting the
job's latest completion exist. Without selfishness machines are
interchangeable (local constraints only see completion times): one pool
of capacity m replaces them, as in the CP-SAT model, which divides the
variables by m, and ``assign_machines`` restores the machines. Selfishness, with w[k,t] = 1 when a job of
k starts after t:
(a) no foreign job starts on a machine of k at t while w[k,t] = 1;
(b) every machine of k is busy at t while w[k,t] = 1.
"""

import pulp

from schedbench.solvers.machines import assign_machines
from schedbench.solvers.milp import UNKNOWN, affordable, run
from schedbench.solvers.outcome import ModelOutcome


def decide(spec, cap: int, time_limit: float) -> ModelOutcome:
    """A valid schedule with makespan <= ``cap``, or a refutation, as the CP-SAT model."""
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    horizon = min(cap, spec.horizon)
    n = len(lengths)
    pools, capacity = (range(m), 1) if inst.selfish else ((0,), m)
    windows = [max(0, min(spec.latest_completion(j), horizon) - p + 1) for j, p in enumerate(lengths)]
    size = len(pools) * sum(w * p for w, p in zip(windows, lengths))  # machine rows
    if inst.selfish:  # w[k,t] rows: every start of k after t, for every t
        size += m * sum(w * w for w in windows) // 2
    if not affordable(size, time_limit):
        return UNKNOWN
    problem = pulp.LpProblem("mosp", pulp.LpMinimize)  # no objective: a feasibility question
    x = {(j, q, t): problem.add_variable(f"x_{j}_{q}_{t}", cat=pulp.LpBinary)
         for j, p in enumerate(lengths) for q in pools for t in range(min(spec.latest_completion(j), horizon) - p + 1)}
    of_job: list[list[tuple[int, int, object]]] = [[] for _ in range(n)]
    for (j, q, t), v in x.items():
        of_job[j].append((q, t, v))
    completion = [pulp.lpSum((t + lengths[j]) * v for _, t, v in of_job[j]) for j in range(n)]
    for j in range(n):
        problem += pulp.lpSum(v for _, _, v in of_job[j]) == 1, f"once_{j}"
    start = [pulp.lpSum(t * v for _, t, v in of_job[j]) for j in range(n)]
    for a, b in spec.twins():
        problem += start[a] <= start[b], f"twins_{a}_{b}"
    running = _running(x, lengths)
    for (q, t), active in running.items():
        if len(active) > capacity:
            problem += pulp.lpSum(active) <= capacity, f"machine_{q}_{t}"
    if inst.local_objective == "sum_ci":
        for k, ref in enumerate(spec.references):
            problem += pulp.lpSum(completion[j] for j in inst.job_slice(k)) <= ref, f"local_{k}"
    if inst.selfish:
        _selfishness(problem, inst, x, of_job, running, horizon)
        machine = [pulp.lpSum(q * v for q, _, v in of_job[j]) for j in range(n)]
        return run(problem, time_limit, machine + start)
    outcome = run(problem, time_limit, start)
    if outcome.solution is not None:
        outcome.solution = assign_machines(outcome.solution, lengths, m) + outcome.solution
    return outcome


def _running(x, lengths) -> dict[tuple[int, int], list]:
    """Variables of the jobs running on machine q at instant t."""
    out: dict[tuple[int, int], list] = {}
    for (j, q, t), var in x.items():
        for tau in range(t, t + lengths[j]):
            out.setdefault((q, tau), []).append(var)
    return out


def _selfishness(problem, inst, x, of_job, running, horizon) -> None:
    starting: dict[tuple[int, int], list] = {}
    for (j, q, t), v in x.items():
        starting.setdefault((q, t), []).append((j, v))
    for k in range(inst.n_organizations):
        own = set(inst.job_slice(k))
        if not own:
            continue
        mine = set(inst.machine_slice(k))
        foreign = len(inst.lengths) - len(own)
        for t in range(horizon):
            w = problem.add_variable(f"w_{k}_{t}", cat=pulp.LpBinary)
            for j in own:
                problem += w >= pulp.lpSum(v for _, tau, v in of_job[j] if tau > t), f"w_{k}_{t}_{j}"
            arriving = [v for q in mine for i, v in starting.get((q, t), ()) if i not in own]
            if arriving:
                problem += pulp.lpSum(arriving) <= foreign * (1 - w), f"foreign_{k}_{t}"
            for q in mine:
                problem += pulp.lpSum(running.get((q, t), [])) >= w, f"busy_{k}_{q}_{t}"
