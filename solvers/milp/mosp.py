"""MILP MOSP models through PuLP/CBC (see ``solvers.mosp``).

Without selfishness, time-indexed: x[j,t] = 1 iff job j starts at t; only
starts meeting the job's latest completion exist. Machines are
interchangeable (local constraints only see completion times): one pool of
capacity m replaces them, as in the CP-SAT model, and ``assign_machines``
restores the machines.

With selfishness, the prefix form (the CP-SAT model's, where it is
derived): each machine q of organization k runs k's jobs placed on it
first, from 0 without a gap and shortest first, P_q in all; foreign jobs
start after P_q; every job of k starts by min over k's machines of P_q.
Own placements are y[i,q] (their starts follow); exported jobs are
time-indexed, x[j,q,t]; b[q,t] = 1 for t < P_q keeps them after the prefix.
"""

import pulp

from schedbench.solvers.machines import assign_machines
from schedbench.solvers.milp import UNKNOWN, affordable, run
from schedbench.solvers.outcome import ModelOutcome


def decide(spec, cap: int, time_limit: float) -> ModelOutcome:
    """A valid schedule with makespan <= ``cap``, or a refutation, as the CP-SAT model."""
    horizon = min(cap, spec.horizon)
    problem = pulp.LpProblem("mosp", pulp.LpMinimize)  # no objective: a feasibility question
    if spec.instance.selfish:
        return _selfish(problem, spec, horizon, time_limit)
    return _pooled(problem, spec, horizon, time_limit)


def _pooled(problem, spec, horizon: int, time_limit: float) -> ModelOutcome:
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    n = len(lengths)
    latest = [min(spec.latest_completion(j), horizon) for j in range(n)]
    if not affordable(sum(max(0, latest[j] - p + 1) * p for j, p in enumerate(lengths)), time_limit):
        return UNKNOWN
    x = {(j, t): problem.add_variable(f"x_{j}_{t}", cat=pulp.LpBinary)
         for j, p in enumerate(lengths) for t in range(latest[j] - p + 1)}
    of_job: list[list[tuple[int, object]]] = [[] for _ in range(n)]
    running: dict[int, list] = {}
    for (j, t), v in x.items():
        of_job[j].append((t, v))
        for tau in range(t, t + lengths[j]):
            running.setdefault(tau, []).append(v)
    for j in range(n):
        problem += pulp.lpSum(v for _, v in of_job[j]) == 1, f"once_{j}"
    start = [pulp.lpSum(t * v for t, v in of_job[j]) for j in range(n)]
    for a, b in spec.twins():
        problem += start[a] <= start[b], f"twins_{a}_{b}"
    for t, active in running.items():
        if len(active) > m:
            problem += pulp.lpSum(active) <= m, f"machines_{t}"
    if inst.local_objective == "sum_ci":
        for k, ref in enumerate(spec.references):
            problem += pulp.lpSum(start[j] + lengths[j] for j in inst.job_slice(k)) <= ref, f"local_{k}"
    outcome = run(problem, time_limit, start)
    if outcome.solution is not None:
        outcome.solution = assign_machines(outcome.solution, lengths, m) + outcome.solution
    return outcome


def _selfish(problem, spec, horizon: int, time_limit: float) -> ModelOutcome:
    """The selfish model in prefix form (module docstring): own jobs are
    placed by y[i,q] alone, their starts follow from the prefix's SPT order;
    exported jobs are time-indexed on the machines of other organizations."""
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    n = len(lengths)
    owner, home = inst.owner_of_job, inst.owner_of_machine
    latest = [min(spec.latest_completion(j), horizon) for j in range(n)]
    windows = [max(0, latest[j] - p + 1) for j, p in enumerate(lengths)]
    size = sum(windows[j] * lengths[j] * (m - len(inst.machine_slice(owner[j]))) for j in range(n)) + m * horizon
    if not affordable(size, time_limit):
        return UNKNOWN
    y = {(i, q): problem.add_variable(f"y_{i}_{q}", cat=pulp.LpBinary)
         for i in range(n) for q in inst.machine_slice(owner[i]) if lengths[i] <= latest[i]}
    x = {(j, q, t): problem.add_variable(f"x_{j}_{q}_{t}", cat=pulp.LpBinary)
         for j in range(n) for q in range(m) if home[q] != owner[j] for t in range(windows[j])}
    busy = {(q, t): problem.add_variable(f"b_{q}_{t}", cat=pulp.LpBinary) for q in range(m) for t in range(horizon)}
    placed: list[list] = [[] for _ in range(n)]
    machine_of: list[list] = [[] for _ in range(n)]
    for (j, q), v in y.items():
        placed[j].append(v)
        machine_of[j].append(q * v)
    exported_start: list[list] = [[] for _ in range(n)]
    for (j, q, t), v in x.items():
        placed[j].append(v)
        machine_of[j].append(q * v)
        exported_start[j].append(t * v)
    for j in range(n):
        problem += pulp.lpSum(placed[j]) == 1, f"once_{j}"
    prefix = {q: pulp.lpSum(lengths[i] * y[i, q] for i in inst.job_slice(home[q]) if (i, q) in y) for q in range(m)}
    running: dict[tuple[int, int], list] = {}
    for (j, q, t), v in x.items():
        for tau in range(t, t + lengths[j]):
            running.setdefault((q, tau), []).append(v)
    for q in range(m):
        problem += pulp.lpSum(busy[q, t] for t in range(horizon)) == prefix[q], f"prefix_{q}"
        for t in range(horizon):
            if t:
                problem += busy[q, t] <= busy[q, t - 1], f"from_zero_{q}_{t}"
            problem += busy[q, t] + pulp.lpSum(running.get((q, t), [])) <= 1, f"machine_{q}_{t}"
    for k in range(inst.n_organizations):
        own, mine = inst.job_slice(k), inst.machine_slice(k)
        if not own:
            continue
        for a, b in zip(mine, mine[1:]):
            problem += prefix[a] >= prefix[b], f"interchangeable_{a}_{b}"
        for q in mine:
            last = {i: problem.add_variable(f"l_{i}_{q}", cat=pulp.LpBinary) for i in own if (i, q) in y}
            for i, v in last.items():
                problem += v <= y[i, q], f"last_on_{i}_{q}"
            problem += pulp.lpSum(last.values()) <= 1, f"one_last_{q}"
            for r in mine:
                problem += prefix[q] - pulp.lpSum(lengths[i] * v for i, v in last.items()) <= prefix[r], f"last_{q}_{r}"
            for j in own:
                if exported_start[j]:
                    problem += pulp.lpSum(exported_start[j]) <= prefix[q], f"exported_{j}_{q}"
        if inst.local_objective == "cmax":
            for q in mine:
                problem += prefix[q] <= spec.references[k], f"local_{k}_{q}"
        else:
            problem += _prefix_completions(problem, spec, y, k) + pulp.lpSum(
                (t + lengths[j]) * x[j, q, t] for (j, q, t) in x if owner[j] == k) <= spec.references[k], f"local_{k}"
    outcome = run(problem, time_limit, [pulp.lpSum(terms) for terms in machine_of + exported_start])
    if outcome.solution is not None:
        outcome.solution = outcome.solution[:n] + _prefix_starts(spec, outcome.solution[:n], outcome.solution[n:])
    return outcome


def _prefix_completions(problem: pulp.LpProblem, spec, y: dict, k: int) -> pulp.LpAffineExpression:
    """The sum of completions of k's own-machine jobs in SPT order:
    job i ends after every h before it on its machine, so it adds p_h for
    each such h (z[h,i,q] >= y[h,q] + y[i,q] - 1, exact in a <= row)."""
    lengths = spec.instance.lengths
    order = spec.prefix_order(k)
    terms = []
    for q in spec.instance.machine_slice(k):
        on = [i for i in order if (i, q) in y]
        for position, i in enumerate(on):
            terms.append(lengths[i] * y[i, q])
            for h in on[:position]:
                z = problem.add_variable(f"z_{h}_{i}_{q}", lowBound=0)
                problem += z >= y[h, q] + y[i, q] - 1, f"before_{h}_{i}_{q}"
                terms.append(lengths[h] * z)
    return pulp.lpSum(terms)


def _prefix_starts(spec, machine: list[int], start: list[int]) -> list[int]:
    """Starts with each own-machine job at its place in its prefix
    (``MospSpec.prefixes``); the exported jobs keep theirs."""
    inst = spec.instance
    prefix, _ = spec.prefixes(machine)
    return [prefix[j] if inst.owner_of_job[j] == inst.owner_of_machine[q] else s
            for j, (q, s) in enumerate(zip(machine, start))]
