"""The claims of the DSSP paper, checked against exact optima.

Theorem 1 (unit rewards): the two-phase method with r_0 = 1 - (1 - 1/P)
T_inf^max / D and any non-delay dispatcher completes at least r_0 OPT - 1
jobs. A lower bound, so the ratio reported is claimed / observed (<= 1 iff
it holds; with nothing completed, 1 + claimed). The paper's upper bound
(knapsack at r = 1) must never be below the optimum.
"""

from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from functools import cached_property

from schedbench.claims import PAPER, Check, Claim, NotProven
from schedbench.heuristics.dssp import two_phase
from schedbench.metrics.dssp import completed_jobs, theorem1_parameter
from schedbench.model.dssp import DsspInstance, Job
from schedbench.result import OPTIMAL
from schedbench.metrics.dssp import knapsack_bound, lp_bound
from schedbench.solvers.dssp import solve
from schedbench.validator import validate


class DsspCase:
    """An instance with its exact optimum, computed once."""

    def __init__(self, instance: DsspInstance, solver: str = "cpsat", time_limit: float = 20.0):
        self.instance = instance
        self.solver = solver
        self.time_limit = time_limit

    @cached_property
    def optimum(self) -> int:
        """Proven by the model alone: the paper's bound is one of the claims checked."""
        result = solve(self.instance, "reward", self.solver, self.time_limit, trust_bound=False)
        if result.status != OPTIMAL:
            raise NotProven("reward")
        if validate(self.instance, result.schedule):
            raise AssertionError(f"{self.instance.name}: invalid optimal schedule from {self.solver}")
        return int(result.objective)


def unit_rewards(inst) -> bool:
    return all(job.reward == 1 for job in inst.jobs)


def theorem1(policy: str) -> Callable[[DsspCase], Check]:
    """Theorem 1 for one dispatcher."""
    def check(case: DsspCase) -> Check:
        inst = case.instance
        r0 = theorem1_parameter(inst)
        schedule = two_phase(inst, policy, r0)
        if validate(inst, schedule):
            raise AssertionError(f"{inst.name}: invalid {policy} schedule")
        done = len(completed_jobs(inst, schedule))
        claimed = r0 * case.optimum - 1
        ratio = claimed / done if done else 1 + claimed
        return Check(done >= claimed, ratio, {policy: done, "OPT": case.optimum, "r0": r0})
    return check


def paper_bound(case: DsspCase) -> Check:
    """The knapsack value at r = 1 (and its LP relaxation) bound the optimum."""
    bound, relaxed = knapsack_bound(case.instance), lp_bound(case.instance)
    return Check(case.optimum <= bound <= relaxed, Fraction(case.optimum, bound) if bound else Fraction(0),
                 {"OPT": case.optimum, "knapsack bound": bound, "LP bound": relaxed})


CLAIMS = [
    *(Claim(f"dssp.thm1.{policy}", f"Thm. 1: unit rewards, r = r_0, {policy}: completed >= r_0 OPT - 1",
            unit_rewards, theorem1(policy), PAPER) for policy in ("lcpf", "stcpu", "random")),
    Claim("dssp.bound", "§2.2: OPT <= knapsack value at r = 1 <= its LP relaxation", lambda inst: True, paper_bound, PAPER),
]


def smaller_instances(inst: DsspInstance) -> Iterator[DsspInstance]:
    """One-step reductions, biggest first (for shrinking): drop a job, a
    processor, a stage, a task; shorten a task; move the deadline earlier."""
    jobs = list(inst.jobs)

    def with_job(j: int, stages):
        return replace(inst, jobs=tuple(jobs[:j] + [Job(jobs[j].reward, tuple(stages))] + jobs[j + 1:]))

    if len(jobs) > 1:
        for j in range(len(jobs)):
            yield replace(inst, jobs=tuple(jobs[:j] + jobs[j + 1:]))
    if inst.processors > 1:
        yield replace(inst, processors=inst.processors - 1)
    for j, job in enumerate(jobs):
        stages = list(job.stages)
        if len(stages) > 1:
            for g in range(len(stages)):
                yield with_job(j, stages[:g] + stages[g + 1:])
        for g, stage in enumerate(stages):
            for i, p in enumerate(stage):
                if len(stage) > 1:
                    yield with_job(j, stages[:g] + [stage[:i] + stage[i + 1:]] + stages[g + 1:])
                for shorter in sorted({1, p // 2, p - 1} - {0, p}):
                    yield with_job(j, stages[:g] + [stage[:i] + (shorter,) + stage[i + 1:]] + stages[g + 1:])
    if inst.deadline > 1:
        yield replace(inst, deadline=inst.deadline - 1)
