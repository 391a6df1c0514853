"""CP-SAT DSSP model (see ``solvers.dssp``).

done_j: job j completes by D. Each task is an optional interval, present
iff done_j, inside [0, D). Stage g + 1 of a job starts after the end of its
stage g (an auxiliary stage end per stage, so precedence costs one
constraint per task, not one per pair). A capacity-P cumulative bounds the
tasks running at once; processors are restored afterwards. Identical tasks
of one stage have ordered starts. Maximise sum R_j done_j, written as
minimising its negation so the shared bound rounding applies unchanged.
"""

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run
from schedbench.solvers.exact.outcome import ModelOutcome, maximised


def solve(instance, time_limit: float, at_least: int | None = None, hint_jobs: list[int] | None = None,
          hint_starts=None) -> ModelOutcome:
    """``at_least``: only schedules earning that much (a question asked to
    confirm a bound). ``hint_jobs`` / ``hint_starts``: a valid schedule's
    completed jobs and task starts, identical tasks in the model's order."""
    lengths, deadline = instance.lengths, instance.deadline
    model = cp_model.CpModel()
    done = [model.new_bool_var(f"done{j}") for j in range(len(instance.jobs))]
    start = [model.new_int_var(0, max(deadline - p, 0), f"s{t}") for t, p in enumerate(lengths)]
    intervals = []
    for j, job in enumerate(instance.jobs):
        if job.critical_path > deadline:
            model.add(done[j] == 0)
        previous_end = None
        for g, stage in enumerate(job.stages):
            tasks = instance.stage_slice(j, g)
            stage_end = model.new_int_var(0, deadline, f"e{j}_{g}")
            for t in tasks:
                intervals.append(model.new_optional_fixed_size_interval_var(start[t], lengths[t], done[j], ""))
                model.add(start[t] + lengths[t] <= stage_end).only_enforce_if(done[j])
                if previous_end is not None:
                    model.add(start[t] >= previous_end).only_enforce_if(done[j])
            for a, b in zip(tasks, tasks[1:]):
                if lengths[a] == lengths[b]:
                    model.add(start[a] <= start[b])
            previous_end = stage_end
    model.add_cumulative(intervals, [1] * len(intervals), instance.processors)
    earned = sum(job.reward * done[j] for j, job in enumerate(instance.jobs))
    if at_least is not None:
        model.add(earned >= at_least)
    model.minimize(-earned)
    if hint_jobs is not None:
        hinted = set(hint_jobs)
        for j in range(len(instance.jobs)):
            model.add_hint(done[j], j in hinted)
        for t, s in enumerate(hint_starts):
            if s is not None:
                model.add_hint(start[t], s)
    return maximised(run(model, time_limit, done + start))
