"""MILP DSSP model through PuLP/CBC (see ``solvers.dssp``), time-indexed, for
the scaled-down instances it targets (up to ``MAX_STARTS`` start variables, e.g. D = 100 and 2,000 tasks):
x[t,s] = 1 iff task t starts at s (only starts with s + p_t <= D exist),
done_j = 1 iff job j completes. Every task of j starts once iff done_j; at
most P tasks run at any instant; with S_t = sum_s s x[t,s], stage
precedence is S_b >= S_a + p_a done_j for a in stage g, b in stage g + 1
(linear, no big-M: both sides are 0 when j does not run). Maximise
sum R_j done_j (as minimising its negation, like the CP-SAT model).
"""

import pulp

from schedbench.errors import ModelTooLarge

from schedbench.solvers.milp import run
from schedbench.solvers.outcome import ModelOutcome, maximised


#: Start variables beyond which the time-indexed model is refused (it would
#: exhaust memory before the time limit could apply): use CP-SAT there.
MAX_STARTS = 200_000


def solve(instance, time_limit: float, at_least: int | None = None) -> ModelOutcome:
    """``at_least``: only schedules earning that much (as the CP-SAT model)."""
    lengths, deadline = instance.lengths, instance.deadline
    starts = sum(max(0, deadline - p + 1) for p in lengths)
    if starts > MAX_STARTS:
        raise ModelTooLarge(f"the time-indexed MILP would need {starts:,} start variables "
                                         f"(limit {MAX_STARTS:,}); use --solver cpsat for this instance")
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
            for a in instance.stage_slice(j, g - 1):
                for b in instance.stage_slice(j, g):
                    problem += start[b] >= start[a] + lengths[a] * done[j], f"stage_{a}_{b}"
    running: dict[int, list] = {}
    for t, starts in x.items():
        for s, v in starts.items():
            for instant in range(s, s + lengths[t]):
                running.setdefault(instant, []).append(v)
    for instant, active in running.items():
        if len(active) > instance.processors:
            problem += pulp.lpSum(active) <= instance.processors, f"capacity_{instant}"
    return maximised(run(problem, time_limit, done + [start[t] for t in range(len(lengths))], objective=objective))
