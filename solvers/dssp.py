"""DSSP: the family entry of the exact solvers, and the bounds of the paper.

``reward``: the most reward of jobs completed by the deadline. The best of
the two-phase heuristics (LCPF, STCPU and RANDOM at the tuned r and at
r = 1, LCPF at r_0) and of the priority baseline is the warm start; the
model's proven bound is reported on a time limit.
Upper bounds to set heuristics against (tables show heuristic / optimum and
heuristic / bound side by side): the paper's, the knapsack optimum at r = 1
(a job set whose work exceeds P D cannot all finish), and its LP relaxation
(Dantzig's greedy by reward / work, fractional last item).
"""

import time
from fractions import Fraction

from schedbench.heuristics.dssp import candidates, select
from schedbench.metrics.dssp import completed_jobs, reward, theorem1_parameter, tuned_parameter
from schedbench.result import FEASIBLE, OPTIMAL, Result
from schedbench.schedule import Schedule
from schedbench.solvers.machines import assign_machines


def knapsack_bound(instance) -> int:
    """The paper's upper bound: the knapsack value at r = 1."""
    return _total_reward(instance, select(instance, Fraction(1)))


def _total_reward(instance, jobs) -> int:
    return sum(instance.jobs[j].reward for j in jobs)


def lp_bound(instance) -> Fraction:
    """The LP relaxation of the r = 1 knapsack: weaker than ``knapsack_bound``, and free."""
    capacity = Fraction(instance.processors * instance.deadline)
    total = Fraction(0)
    jobs = sorted(candidates(instance), key=lambda j: (-Fraction(instance.jobs[j].reward, instance.jobs[j].work), j))
    for j in jobs:
        job = instance.jobs[j]
        take = min(Fraction(1), capacity / job.work)
        total += take * job.reward
        capacity -= take * job.work
        if capacity <= 0:
            break
    return total


def incumbent(instance) -> tuple[Schedule, int]:
    """The best of the two-phase schedules (the three dispatchers at the tuned
    r and at r = 1, LCPF at r_0) and the priority baseline, with the paper's
    bound: one selection table serves the three r, r = 1 giving the bound."""
    from schedbench.heuristics.dssp import dispatch, priority_scheduler, selections

    tuned, one, r0 = selections(instance, [tuned_parameter(instance), Fraction(1), theorem1_parameter(instance)])
    runs = [dispatch(instance, jobs, policy) for jobs in (tuned, one) for policy in ("lcpf", "stcpu", "random")]
    runs += [dispatch(instance, r0, "lcpf"), priority_scheduler(instance)]
    return max(runs, key=lambda s: reward(instance, s)), _total_reward(instance, one)


def solve(instance, solver: str, time_limit: float, trust_bound: bool = True) -> Result:
    """``trust_bound=False`` always runs the model and never uses the paper's
    bound, so the bound itself can be checked against the optimum."""
    began = time.perf_counter()
    best, upper = incumbent(instance)
    details = {"knapsack_bound": upper, "lp_bound": str(lp_bound(instance))}
    if trust_bound and reward(instance, best) >= upper:
        return Result(OPTIMAL, Fraction(reward(instance, best)), Fraction(upper), best, solver, "bounds",
                      time.perf_counter() - began, details)
    if solver == "cpsat":
        from schedbench.solvers.cpsat.dssp import solve as model

        outcome = model(instance, time_limit, completed_jobs(instance, best), best.start)
    else:
        from schedbench.solvers.milp.dssp import solve as model

        outcome = model(instance, time_limit)
    schedule, status = best, FEASIBLE
    if outcome.solution is not None and outcome.value > reward(instance, best):
        schedule = _schedule(instance, outcome.solution)
    value = reward(instance, schedule)
    bound = outcome.bound if not trust_bound else upper if outcome.bound is None else min(upper, outcome.bound)
    if outcome.status == OPTIMAL or bound is not None and value >= bound:
        status, bound = OPTIMAL, value
    return Result(status, Fraction(value), None if bound is None else Fraction(bound), schedule, solver, "model",
                  time.perf_counter() - began, details)


def _schedule(instance, solution: list[int]) -> Schedule:
    """Model values (done per job, then starts) to a schedule: tasks of jobs
    that do not complete do not run; processors by interval colouring."""
    jobs, lengths = len(instance.jobs), instance.lengths
    done, starts = solution[:jobs], solution[jobs:]
    runs = [t for t in range(len(lengths)) if done[instance.job_of_task[t]]]
    processors = assign_machines([starts[t] for t in runs], [lengths[t] for t in runs], instance.processors)
    machine: list[int | None] = [None] * len(lengths)
    start: list[int | None] = [None] * len(lengths)
    for t, q in zip(runs, processors):
        machine[t], start[t] = q, starts[t]
    return Schedule(tuple(machine), tuple(start))
