"""DSSP: the family entry of the exact solvers, and the bounds of the paper.

``reward``: the most reward of jobs completed by the deadline. The best of
the two-phase heuristics (LCPF, STCPU and RANDOM at the tuned r and at
r = 1, LCPF at r_0) and of the priority baseline is the warm start; the
model's proven bound is reported on a time limit. Before the whole model,
a kernel search asks the backend's model for a schedule earning the
knapsack value at r = 1 on small cuts of the instance (the selection
alone, then with the next jobs in the LP relaxation's order: a few dozen
tasks where the whole instance has thousands); such a schedule is optimal
when that value is the certified bound (the DP computed it, or it meets the
LP relaxation's floor).
Upper bounds to set heuristics against (tables show heuristic / optimum and
heuristic / bound side by side): the paper's, the knapsack optimum at r = 1
(a job set whose work exceeds P D cannot all finish), and its LP relaxation
(Dantzig's greedy by reward / work, fractional last item).
"""

import time
from dataclasses import replace
from fractions import Fraction
from math import floor

from schedbench.heuristics.dssp import dispatch, priority_scheduler
from schedbench.metrics.dssp import (candidates, completed_jobs, dp_fits, lp_bound, reward, selections, theorem1_parameter,
                                     tuned_parameter)
from schedbench.metrics.knapsack import by_density
from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL, Result
from schedbench.schedule import Schedule
from schedbench.solvers.cpsat import dssp as cpsat_model
from schedbench.solvers.milp import dssp as milp_model
from schedbench.solvers.exact.certificate import SEARCH_SHARE, confirm, other_methods
from schedbench.solvers.exact.hints import ordered_within
from schedbench.solvers.exact.machines import assign_machines


def incumbent(instance) -> tuple[Schedule, list[int]]:
    """The best of the two-phase schedules (the three dispatchers at the tuned
    r and at r = 1, LCPF at r_0) and the priority baseline, with the
    selection at r = 1 (its reward is the paper's bound): one selection
    table serves the three r."""
    tuned, one, r0 = selections(instance, [tuned_parameter(instance), Fraction(1), theorem1_parameter(instance)])
    runs = [dispatch(instance, jobs, policy) for jobs in (tuned, one) for policy in ("lcpf", "stcpu", "random")]
    runs += [dispatch(instance, r0, "lcpf"), priority_scheduler(instance)]
    return max(runs, key=lambda s: reward(instance, s)), one


#: Share of the time limit the kernel search may spend: CP-SAT schedules a
#: selection in hundredths of a second, CBC in 1 to 3 s on the frontier's
#: long-deadline instances (chosen on its training seeds).
KERNEL_SHARE = 0.3
#: Buckets the kernel search may add to the selection, each about P D of
#: work. One sufficed on the seven failed short-deadline instances tried; a
#: bucket runs only after the smaller kernel was refuted, so more cost
#: nothing where one suffices, and three keep the largest kernel to a few
#: hundred tasks for CBC's time-indexed model.
KERNEL_BUCKETS = 3


FAMILY = "dssp"
#: One model per backend (``solvers/cpsat``, ``solvers/milp``).
MODELS = {"cpsat": cpsat_model, "milp": milp_model}
BACKENDS = ("cpsat", "milp")
#: The strongest measured: the time-indexed MILP refuses models above 200,000
#: start variables, CP-SAT takes every size (bench/optimality_stress.py: equal
#: proofs on small workloads).
DEFAULT_SOLVER = "cpsat"


def solve(instance, objective: str, solver: str, time_limit: float, trust_bound: bool = True) -> Result:
    """``trust_bound=False`` always runs the whole model (no kernel search)
    and never uses the paper's bound, so the bound itself can be checked
    against the optimum (its certified bound is then the reward of every
    job that fits alone).

    The model's optimum, or its bound on a time limit, is a claim until an
    independent method refutes "a reward above it" (``solvers.exact.certificate``)."""
    began = time.monotonic()
    best, fullest = incumbent(instance)
    upper = sum(instance.jobs[j].reward for j in fullest)
    details = {"knapsack_bound": upper, "lp_bound": str(lp_bound(instance))}
    value = reward(instance, best)
    certified, proof = _certified_bound(instance, upper) if trust_bound else (
        sum(instance.jobs[j].reward for j in candidates(instance)), ("fitting-jobs",))
    if value >= certified:
        return Result(OPTIMAL, Fraction(value), Fraction(value), best, solver, "bounds",
                      time.monotonic() - began, details, proof)
    packed = kernel_search(instance, fullest, solver, KERNEL_SHARE * time_limit) if trust_bound else None
    if packed is not None and (earned := reward(instance, packed)) > value:
        best, value = packed, earned
        if value >= certified:
            return Result(OPTIMAL, Fraction(value), Fraction(value), best, solver, "kernel-search",
                          time.monotonic() - began, details, proof)
    seconds = SEARCH_SHARE * time_limit - (time.monotonic() - began)
    if solver == "cpsat":
        outcome = MODELS[solver].solve(instance, seconds, hint_jobs=completed_jobs(instance, best),
                                                hint_starts=hint_starts(instance, best))
    else:
        outcome = MODELS[solver].solve(instance, seconds)
    schedule = best
    if outcome.solution is not None and outcome.value > value:
        schedule = _schedule(instance, outcome.solution)
        value = reward(instance, schedule)
    claimed = value if outcome.status in (OPTIMAL, INFEASIBLE) else outcome.bound
    if claimed is not None and max(claimed, value) < certified:
        at_least = max(claimed, value) + 1

        def ask(model, seconds: float):
            found = model.solve(instance, seconds, at_least=at_least)
            return found.status, None if found.solution is None else _schedule(instance, found.solution)

        done = confirm(other_methods(MODELS, solver, ask), began + time_limit)
        details.update(done.details(claimed, solver, certified))
        if done.confirmed:
            certified, proof = at_least - 1, (solver, done.by)
        elif done.found is not None and reward(instance, done.found) > value:  # the claim was false
            schedule, value = done.found, reward(instance, done.found)
    status = OPTIMAL if value >= certified else FEASIBLE
    return Result(status, Fraction(value), Fraction(value if status == OPTIMAL else certified), schedule, solver,
                  "model", time.monotonic() - began, details, proof)


def kernel_search(instance, selection: list[int], solver: str, seconds: float) -> Schedule | None:
    """A schedule earning the reward of the knapsack ``selection``, or None
    (none found in ``seconds``). Kernel search (Angelelli, Mansini and
    Speranza, 2010): the backend's model of the instance cut down to the
    selection, then to it plus buckets of the other candidates in the LP
    relaxation's order (``by_density``; ties: shorter critical path, then
    less work), each about P D of work. With short deadlines a selection
    often cannot pack without idling where another set of equal reward
    can. A kernel's refutation proves nothing about the instance."""
    ends = time.monotonic() + seconds
    target = sum(instance.jobs[j].reward for j in selection)
    found = _schedule_within(instance, sorted(selection), solver, seconds, target)
    if found is not None:
        return found
    chosen = set(selection)
    others = sorted((j for j in candidates(instance) if j not in chosen),
                    key=lambda j: (instance.jobs[j].critical_path, instance.jobs[j].work))
    rest = iter([others[i] for i in by_density([instance.jobs[j].work for j in others],
                                               [instance.jobs[j].reward for j in others])])
    kernel, capacity = list(selection), instance.processors * instance.deadline
    for _ in range(KERNEL_BUCKETS):
        size, work = len(kernel), 0
        for j in rest:
            kernel.append(j)
            work += instance.jobs[j].work
            if work >= capacity:
                break
        left = ends - time.monotonic()
        if len(kernel) == size or left <= 0:
            return None
        found = _schedule_within(instance, sorted(kernel), solver, left, target)
        if found is not None:
            return found
    return None


def _schedule_within(instance, jobs: list[int], solver: str, seconds: float, at_least: int) -> Schedule | None:
    """A schedule running only jobs of ``jobs`` and earning ``at_least``,
    found by ``solver``'s model of the instance cut down to them, or None."""
    chosen = replace(instance, jobs=tuple(instance.jobs[j] for j in jobs))
    outcome = MODELS[solver].solve(chosen, seconds, at_least=at_least)
    if outcome.solution is None:
        return None
    part = _schedule(chosen, outcome.solution)
    machine: list[int | None] = [None] * len(instance.lengths)
    start: list[int | None] = [None] * len(instance.lengths)
    for j, whole in enumerate(jobs):
        for t, u in zip(chosen.task_slice(j), instance.task_slice(whole)):
            machine[u], start[u] = part.machine[t], part.start[t]
    return Schedule(tuple(machine), tuple(start))


def _certified_bound(instance, upper: int) -> tuple[int, tuple[str, ...]]:
    """The knapsack bound ``upper`` when DP by profits computed it (its table
    fits); past the table OR-Tools' branch and bound answered, one solver's
    word, so the floor of the LP relaxation is the certified bound and a
    model's claim above it needs confirming."""
    jobs = candidates(instance)
    if dp_fits(len(jobs), [instance.jobs[j].reward for j in jobs]):
        return upper, ("knapsack-bound",)
    return floor(lp_bound(instance)), ("lp-dantzig",)


def hint_starts(instance, schedule: Schedule) -> list[int | None]:
    """The starts of ``schedule``'s completed jobs (a task of a job that
    misses the deadline may lie outside its domain), each run of equal
    consecutive tasks of a stage in index order, as the CP-SAT model's
    symmetry breaking wants."""
    done = set(completed_jobs(instance, schedule))
    starts = [s if instance.job_of_task[t] in done else None for t, s in enumerate(schedule.start)]
    runs = []
    for j, job in enumerate(instance.jobs):
        for g in range(len(job.stages)):
            tasks = instance.stage_slice(j, g)
            run = [tasks[0]]
            for t in tasks[1:]:
                if instance.lengths[t] != instance.lengths[run[-1]]:
                    runs.append(run)
                    run = []
                run.append(t)
            runs.append(run)
    return ordered_within(starts, runs)


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
