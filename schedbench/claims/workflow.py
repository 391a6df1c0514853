"""The claims of the P-SLR paper, checked by simulation and against exact
max-SLR optima.

- Each policy against the optimum of the format's ``max-slr`` (no network): a
  policy can never beat it (a check of the simulator and the solver), and
  the ratios policy / OPT are the ledger's distribution.
- §3, starvation: P-SLR is starvation-free, SRTF and LRTF are not. On the
  ``starvation-stream`` construction (a lone long, short or wide job in a
  sustained overload stream of other jobs) the lone job must not wait as
  long as the overload lasts under P-SLR; SRTF (lone long job) and LRTF
  (lone short job) make it wait at least that long.
- §3 / §4.1, transient overload: every job finishes under every policy
  (the simulation checks it), and, this project's reading of
  "starvation-free" on a finite overload, P-SLR's worst task wait stays
  below SRTF's and LRTF's, the policies the paper says can starve.
- §3, classes on the SLR distribution of a 120% transient overload:
  FIFO and LRTF Class 1 (long jobs favoured), SRTF Class 2, P-SLR Class 3
  (``metrics.workflow.slr_class``: Spearman rho of SLR against CP).
"""

from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from functools import cached_property

from schedbench.claims import PAPER, PROJECT, Check, Claim, NotProven, drawn_or_moved, generated_by
from schedbench.heuristics.workflow import HEURISTICS, POLICIES
from schedbench.metrics.workflow import max_slr, slr_class, waiting_times
from schedbench.model.workflow import WorkflowInstance, WorkflowJob
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.validator import validate


class WorkflowCase:
    """An instance with every policy's schedule and the exact optimum, computed once."""

    def __init__(self, instance: WorkflowInstance, solver: str = "cpsat", time_limit: float = 20.0):
        self.instance = instance
        self.solver = solver
        self.time_limit = time_limit

    @cached_property
    def schedules(self) -> dict:
        out = {name: run(self.instance) for name, run in HEURISTICS.items()}
        for name, schedule in out.items():
            if validate(self.instance, schedule):
                raise AssertionError(f"{self.instance.name}: invalid {name} schedule")
        return out

    @cached_property
    def optimum(self) -> Fraction:
        result = solve(self.instance, "max-slr", self.solver, self.time_limit)
        if result.status != OPTIMAL:
            raise NotProven("max-slr")
        if validate(self.instance, result.schedule):
            raise AssertionError(f"{self.instance.name}: invalid optimal schedule from {self.solver}")
        return result.objective


def against_optimum(policy: str) -> Callable[[WorkflowCase], Check]:
    def check(case: WorkflowCase) -> Check:
        value = max_slr(case.instance, case.schedules[policy])
        ratio = value / case.optimum
        return Check(ratio >= 1, ratio, {policy: value, "OPT": case.optimum})
    return check


def _lone_wait(case: WorkflowCase, policy: str) -> tuple[int, int]:
    """The lone job's wait (it is job 0 of the construction) and the overload's length."""
    return waiting_times(case.instance, case.schedules[policy])[0], case.instance.meta["length"]


def not_starved(policy: str) -> Callable[[WorkflowCase], Check]:
    def check(case: WorkflowCase) -> Check:
        wait, length = _lone_wait(case, policy)
        return Check(wait < length, Fraction(wait, length), {"wait": wait, "overload length": length})
    return check


def starved(policy: str) -> Callable[[WorkflowCase], Check]:
    def check(case: WorkflowCase) -> Check:
        wait, length = _lone_wait(case, policy)
        return Check(wait >= length, Fraction(length, max(wait, 1)), {"wait": wait, "overload length": length})
    return check


def waits_less_than_the_starving_policies(case: WorkflowCase) -> Check:
    worst = {policy: max(waiting_times(case.instance, case.schedules[policy]))
             for policy in ("pslr", "srtf", "lrtf")}
    bound = min(worst["srtf"], worst["lrtf"])
    return Check(worst["pslr"] < bound, Fraction(worst["pslr"], max(bound, 1)), worst)


def in_class(policy: str, expected: int) -> Callable[[WorkflowCase], Check]:
    def check(case: WorkflowCase) -> Check:
        rho, found = slr_class(case.instance, case.schedules[policy])
        return Check(found == expected, None, {"spearman rho": rho, "class": found})
    return check


def stream(lone: str) -> Callable[[WorkflowInstance], bool]:
    return lambda inst: inst.meta.get("construction") == "starvation-stream" and inst.meta.get("lone") == lone


LONE = ("long", "short", "wide")
transient = generated_by("workflow-synthetic")
small = drawn_or_moved("workflow-small")   # not a §3 construction, a trace or an overload workload


PAPER_CLASSES = {"fifo-task": 1, "fifo-job": 1, "lrtf": 1, "srtf": 2, "pslr": 3}

CLAIMS = [
    *(Claim(f"workflow.opt.{policy}", f"{policy} max-SLR >= OPT (column: worst {policy} / OPT)", small,
            against_optimum(policy), PROJECT) for policy in POLICIES),
    Claim("workflow.pslr.starvation", "§3: P-SLR starvation-free: a lone long, short or wide job in an "
          "overload stream waits less than the stream lasts", lambda inst: any(stream(lone)(inst) for lone in LONE),
          not_starved("pslr"), PAPER),
    Claim("workflow.srtf.starvation", "§3: SRTF starves a lone long job for as long as the overload lasts",
          stream("long"), starved("srtf"), PAPER),
    Claim("workflow.lrtf.starvation", "§3: LRTF starves a lone short job for as long as the overload lasts",
          stream("short"), starved("lrtf"), PAPER),
    Claim("workflow.pslr.transient", "§3 as read here: 120% transient overload, P-SLR's worst task wait < SRTF's "
          "and LRTF's (column: P-SLR / the smaller)", transient, waits_less_than_the_starving_policies, PROJECT),
    *(Claim(f"workflow.class.{policy}", f"§3: {policy} is Class {expected} on a 120% transient overload (yes/no)",
            transient, in_class(policy, expected), PAPER) for policy, expected in PAPER_CLASSES.items()),
]


def smaller_instances(inst: WorkflowInstance) -> Iterator[WorkflowInstance]:
    """One-step reductions of small random instances, biggest first (for
    shrinking): drop a job, a task, an edge; shorten a task; move an arrival
    earlier. Constructions and synthetic workloads are not shrunk: their
    claims are about them as they are."""
    if not small(inst):
        return
    jobs = list(inst.jobs)

    def with_job(k: int, job: WorkflowJob) -> WorkflowInstance:
        return replace(inst, jobs=tuple(jobs[:k] + [job] + jobs[k + 1:]))

    if len(jobs) > 1:
        for k in range(len(jobs)):
            yield replace(inst, jobs=tuple(jobs[:k] + jobs[k + 1:]))
    for k, job in enumerate(jobs):
        tasks = list(job.tasks)
        if len(tasks) > 1:
            for i in range(len(tasks)):
                kept = [replace(t, succ=tuple(s - (s > i) for s in t.succ if s != i)) for t in tasks[:i] + tasks[i + 1:]]
                yield with_job(k, replace(job, tasks=tuple(kept)))
        for i, task in enumerate(tasks):
            for s in task.succ:
                dropped = replace(task, succ=tuple(x for x in task.succ if x != s))
                yield with_job(k, replace(job, tasks=tuple(tasks[:i] + [dropped] + tasks[i + 1:])))
            for shorter in sorted({1, task.exec // 2, task.exec - 1} - {0, task.exec}):
                yield with_job(k, replace(job, tasks=tuple(tasks[:i] + [replace(task, exec=shorter)] + tasks[i + 1:])))
        if job.arrival > 0:
            yield with_job(k, replace(job, arrival=job.arrival - 1))
