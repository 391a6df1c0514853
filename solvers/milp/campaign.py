"""MILP campaign model through PuLP/CBC (see ``solvers.campaign.spec``).

Default formulation ``time-indexed``: x[j,t] = 1 iff job j starts at t, and
for every instant at most m jobs run (the pseudo-polynomial horizon stays
small on the instances exact methods target, and its LP relaxation is far
tighter than big-M). Machines are restored afterwards, as for CP-SAT.
The plain alternative ``big-m`` assigns machines and orders every pair of
jobs that may share one with big-M disjunctions, for the benchmark.

C_i = max_j (s_j + p_j) is exact: C_i >= every end, and a binary picks the
job that ends last with C_i <= its end + H (1 - z_j). Only campaigns whose
completion feeds a Δ limit need the binaries; elsewhere C_i >= ends
suffices (F_u telescopes to C_last minus constants).
"""

import pulp

from schedbench.solvers.campaign.spec import CampaignSpec
from schedbench.solvers.milp import UNKNOWN, affordable, run
from schedbench.solvers.exact.outcome import ModelOutcome

FORMULATIONS = ("time-indexed", "big-m")


def coefficients(spec: CampaignSpec) -> int:
    """The time-indexed model's capacity-row coefficients: each start
    variable counts once per instant its job runs."""
    lengths = spec.instance.lengths
    return sum(max(0, latest - earliest + 1) * lengths[j] for j, _, _, earliest, latest in spec.start_windows())


def _time_indexed(problem, spec: CampaignSpec):
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    x: dict[tuple[int, int], pulp.LpVariable] = {}
    starts = []
    for j, _, _, earliest, latest in spec.start_windows():
        times = range(earliest, latest + 1)
        for t in times:
            x[j, t] = problem.add_variable(f"x_{j}_{t}", cat=pulp.LpBinary)
        problem += pulp.lpSum(x[j, t] for t in times) == 1, f"once_{j}"
        starts.append(pulp.lpSum(t * x[j, t] for t in times))
    running: dict[int, list] = {}
    for (j, t), var in x.items():
        for tau in range(t, t + lengths[j]):
            running.setdefault(tau, []).append(var)
    for tau, active in running.items():
        if len(active) > m:
            problem += pulp.lpSum(active) <= m, f"capacity_{tau}"
    return starts, x


def _big_m(problem, spec: CampaignSpec):
    inst, horizon = spec.instance, spec.horizon
    lengths, m = inst.lengths, inst.machines
    owner = {}
    starts = []
    for j, u, i, earliest, latest in spec.start_windows():
        owner[j] = (u, i)
        starts.append(problem.add_variable(f"s_{j}", earliest, latest, pulp.LpInteger))
    y = {(j, q): problem.add_variable(f"y_{j}_{q}", cat=pulp.LpBinary) for j in range(len(starts)) for q in range(m)}
    for j in range(len(starts)):
        problem += pulp.lpSum(y[j, q] for q in range(m)) == 1, f"assign_{j}"
    for a in range(len(starts)):
        for b in range(a + 1, len(starts)):
            if owner[a][0] == owner[b][0] and owner[a] != owner[b]:
                continue  # campaigns of one user never overlap (barrier)
            before = problem.add_variable(f"o_{a}_{b}", cat=pulp.LpBinary)
            for q in range(m):
                shared = 2 - y[a, q] - y[b, q]
                problem += starts[b] >= starts[a] + lengths[a] - horizon * (1 - before) - horizon * shared
                problem += starts[a] >= starts[b] + lengths[b] - horizon * before - horizon * shared
    return starts, y


def _campaign_constraints(problem, spec: CampaignSpec, starts):
    inst, horizon = spec.instance, spec.horizon
    lengths = inst.lengths
    needs_exact = spec.delta_limit is not None
    completion, submission = [], []
    for u, user in enumerate(inst.users):
        c_row, t_row = [], []
        for i, camp in enumerate(user.campaigns):
            jobs = list(inst.campaign_slice(u, i))
            c = problem.add_variable(f"C_{u}_{i}", 0, horizon, pulp.LpInteger)
            t = user.release if i == 0 else c_row[-1] + camp.think_time
            for j in jobs:
                problem += c >= starts[j] + lengths[j]
                problem += starts[j] >= t
            problem += c >= t + spec.campaign_lower[u][i]
            exact = needs_exact and i + 1 < len(user.campaigns)
            if exact and len(jobs) > 1:
                last = {j: problem.add_variable(f"z_{j}", cat=pulp.LpBinary) for j in jobs}
                problem += pulp.lpSum(last.values()) == 1
                for j in jobs:
                    problem += c <= starts[j] + lengths[j] + horizon * (1 - last[j])
            elif exact:
                problem += c == starts[jobs[0]] + lengths[jobs[0]]
            c_row.append(c)
            t_row.append(t)
        completion.append(c_row)
        submission.append(t_row)
    for a, b in spec.equal_length_pairs():
        problem += starts[a] <= starts[b]
    return completion, submission


def solve(spec: CampaignSpec, time_limit: float) -> ModelOutcome:
    """Solve the model; ``solution`` holds every job's start time."""
    inst = spec.instance
    if spec.trivially_infeasible():
        return ModelOutcome("infeasible", None, None, None)
    # the completion and limit rows about double the capacity rows' cost
    if spec.formulation in ("default", "time-indexed") and not affordable(2 * coefficients(spec), time_limit):
        return UNKNOWN
    problem = pulp.LpProblem("campaign", pulp.LpMinimize)
    # A warm start is given only when the known schedule fits the (limited) domains.
    warm = False
    if spec.formulation in ("default", "time-indexed"):
        starts, x = _time_indexed(problem, spec)
        if spec.hint is not None and all((j, t) in x for j, t in enumerate(spec.hint)):
            warm = True
            for (j, t), var in x.items():
                var.setInitialValue(int(spec.hint[j] == t))
    else:
        starts, _ = _big_m(problem, spec)
        if spec.hint is not None and all(v.lowBound <= t <= v.upBound for v, t in zip(starts, spec.hint)):
            warm = True
            for var, value in zip(starts, spec.hint):
                var.setInitialValue(value)
    completion, submission = _campaign_constraints(problem, spec, starts)
    for u, user in enumerate(inst.users):
        if spec.flow_limit is not None and spec.flow_limit[u] is not None:
            problem += completion[u][-1] <= spec.flow_limit[u] + spec.flow_offset(u)
        if spec.delta_limit is not None:
            for i in range(len(user.campaigns)):
                if spec.delta_limit[u][i] is not None:
                    problem += completion[u][i] - submission[u][i] <= spec.delta_limit[u][i]
    objective = None
    if spec.objective == "sum-user-flow":
        objective = pulp.lpSum(completion[u][-1] - spec.flow_offset(u) for u in range(inst.n_users))
        problem += objective
        problem += objective >= spec.sum_flow_lower_bound, "lower_bound"
        if spec.cutoff is not None:
            problem += objective <= spec.cutoff, "cutoff"
    else:
        problem += pulp.lpSum([])  # feasibility
    return run(problem, time_limit, starts, objective=objective, warm_start=warm)
