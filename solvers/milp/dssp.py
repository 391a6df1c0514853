"""MILP DSSP model through PuLP/CBC (see ``solvers.dssp``), time-indexed, for
the scaled-down instances it targets (``milp.affordable`` refuses the rest):
x[t,s] = 1 iff task t starts at s (only starts with s + p_t <= D exist),
done_j = 1 iff job j completes. Every task of j starts once iff done_j; at
most P tasks run at any instant; with S_t = sum_s s x[t,s] and a stage end
E_{j,g} >= 0, stage precedence is E_{j,g} >= S_a + p_a done_j for a in stage
g and S_b >= E_{j,g} for b in stage g + 1 (linear, no big-M: every side is
0 when j does not run; one row per task instead of one per pair of tasks).
Maximise sum R_j done_j (as minimising its negation, like the CP-SAT model).
"""

import pulp

from schedbench.solvers.milp import UNKNOWN, affordable, run
from schedbench.solvers.exact.outcome import ModelOutcome, maximised


def solve(instance, time_limit: float, at_least: int | None = None) -> ModelOutcome:
    """``at_least``: only schedules earning that much (as the CP-SAT model)."""
    lengths, deadline = instance.lengths, instance.deadline
    # capacity rows (each start once per instant its task runs), plus its once and precedence rows
    if not affordable(sum(max(0, deadline - p + 1) * (p + 3) for p in lengths), time_limit):
        return UNKNOWN
    problem = pulp.LpProblem("dssp", pulp.LpMinimize)
    done = [problem.add_variable(f"done_{j}", cat=pulp.LpBinary) for j in range(len(instance.jobs))]
    x = {t: {s: problem.add_variable(f"x_{t}_{s}", cat=pulp.LpBinary) for s in range(deadline - p + 1)}
         for t, p in enumerate(lengths)}
    start = {t: pulp.lpSum(s * v for s, v in starts.items()) for t, starts in x.items()}
    objective = -pulp.lpSum(job.reward * done[j] for j, job in enumerate(instance.jobs))
    problem += objective
    if at_least is not None:
        problem += -objective >= at_least, "at_least"
    for j, job in enumerate(instance.jobs):
        for t in instance.task_slice(j):
            problem += pulp.lpSum(x[t].values()) == done[j], f"once_{t}"
        for g in range(1, len(job.stages)):
            end = problem.add_variable(f"end_{j}_{g - 1}", 0)  # E_{j,g-1}
            for a in instance.stage_slice(j, g - 1):
                problem += end >= start[a] + lengths[a] * done[j], f"ends_{a}"
            for b in instance.stage_slice(j, g):
                problem += start[b] >= end, f"after_{b}"
    running: dict[int, list] = {}
    for t, starts in x.items():
        for s, v in starts.items():
            for instant in range(s, s + lengths[t]):
                running.setdefault(instant, []).append(v)
    for instant, active in running.items():
        if len(active) > instance.processors:
            problem += pulp.lpSum(active) <= instance.processors, f"capacity_{instant}"
    return maximised(run(problem, time_limit, done + [start[t] for t in range(len(lengths))], objective=objective))
