"""The DSSP paper's two-phase method (§2.2) and its priority-scheduler baseline.

1. Selection: the jobs that can finish at all (T_inf <= D) form a 0-1
   knapsack, weight T_1, profit the reward, capacity floor(r P D); it is
   solved exactly by DP by profits (as the paper) or by OR-Tools' knapsack
   solver. r_0 = 1 - (1 - 1/P) T_inf^max / D is Theorem 1's parameter,
   1 - 0.2 (1 - 1/P) T_inf^max / D the tuned one of §4.4.
2. Dispatch: a non-delay list scheduler on P processors (no processor idles
   while a task is runnable, until the deadline; nothing starts at or after
   D, since it could not earn anything). A task is runnable once every task
   of its job's previous stage has finished. Policies: LCPF, a task of the
   job with the longest critical path; STCPU, of the job with the shortest
   total CPU time; RANDOM, any runnable task uniformly (seeded). Within a
   job, LCPF and STCPU take its longest runnable task first (the paper does
   not say; longest first shortens the stage). Ties: lowest index.
   LCPF's critical path is the job's static T_inf (the paper's words);
   ``lcpf-remaining`` reads it as the critical path of the stages not yet
   released (the current stage's included), the alternative on record in
   docs/readings.md.
The baseline ``priority`` selects nothing: every job is dispatched, the
highest reward first (the ordinal priority of a priority scheduler).
"""

import random
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import partial
from heapq import heapify, heappop, heappush

from schedbench.errors import UserInputError, unknown_key
from schedbench.metrics.dssp import TUNED_WEIGHT, select, theorem1_parameter, tuned_parameter
from schedbench.model.options import exact, integer
from schedbench.schedule import Schedule

def _job_key(instance, policy: str) -> Callable[[int, int], tuple]:
    """A job's priority when its stage g is released (smallest first)."""
    jobs = instance.jobs
    return {"lcpf": lambda j, g: (-jobs[j].critical_path, j),
            "lcpf-remaining": lambda j, g: (-jobs[j].remaining_critical_path[g], j),
            "stcpu": lambda j, g: (jobs[j].work, j),
            "priority": lambda j, g: (-jobs[j].reward, j)}[policy]


def dispatch(instance, jobs: Iterable[int], policy: str, seed: int = 0) -> Schedule:
    """Non-delay dispatch of ``jobs``' tasks with ``policy`` (event-driven)."""
    lengths, deadline = instance.lengths, instance.deadline
    machine: list[int | None] = [None] * len(lengths)
    start: list[int | None] = [None] * len(lengths)
    rng = random.Random(seed)
    job_key = None if policy == "random" else _job_key(instance, policy)
    runnable: list = []  # a heap of (job key, -length, task), or a plain list for RANDOM
    left: dict[int, list[int]] = {}  # job -> [current stage, its tasks not finished]

    def release(j: int, g: int) -> None:
        tasks = instance.stage_slice(j, g)
        left[j] = [g, len(tasks)]
        key = None if job_key is None else job_key(j, g)
        for t in tasks:
            if key is None:
                runnable.append(t)
            else:
                heappush(runnable, (key, -lengths[t], t))

    def take() -> int:
        if job_key is not None:
            return heappop(runnable)[2]
        i = rng.randrange(len(runnable))
        runnable[i], runnable[-1] = runnable[-1], runnable[i]
        return runnable.pop()

    for j in jobs:
        release(j, 0)
    idle = list(range(instance.processors))
    heapify(idle)
    running: list[tuple[int, int, int]] = []  # (end, task, processor)
    now = 0
    while True:
        while idle and runnable and now < deadline:
            t, q = take(), heappop(idle)
            machine[t], start[t] = q, now
            heappush(running, (now + lengths[t], t, q))
        if not running:
            return Schedule(tuple(machine), tuple(start))
        now = running[0][0]
        while running and running[0][0] == now:
            _, t, q = heappop(running)
            heappush(idle, q)
            j = instance.job_of_task[t]
            left[j][1] -= 1
            if not left[j][1] and left[j][0] + 1 < len(instance.jobs[j].stages):
                release(j, left[j][0] + 1)


def two_phase(instance, policy: str = "lcpf", r: Fraction | None = None, selector: str = "dp",
              seed: int = 0, weight: Fraction = TUNED_WEIGHT) -> Schedule:
    """Select with parameter ``r``, or with §4.4's r = 1 - λ (1 - 1/P)
    T_inf^max / D for λ = ``weight`` (default: the paper's tuned λ = 0.2),
    then dispatch."""
    if r is None:
        r = tuned_parameter(instance, weight)
    return dispatch(instance, select(instance, r, selector), policy, seed)


def priority_scheduler(instance) -> Schedule:
    """No selection: every job, the highest reward first."""
    return dispatch(instance, range(len(instance.jobs)), "priority")


def lcpf_r0(instance) -> Schedule:
    """LCPF selecting with Theorem 1's r_0."""
    return two_phase(instance, "lcpf", theorem1_parameter(instance))


#: lcpf, lcpf-remaining, stcpu and random take the options ``r`` and ``seed`` of ``two_phase``.
HEURISTICS: dict[str, Callable] = {
    "lcpf": partial(two_phase, policy="lcpf"),
    "lcpf-remaining": partial(two_phase, policy="lcpf-remaining"),
    "stcpu": partial(two_phase, policy="stcpu"),
    "random": partial(two_phase, policy="random"),
    "lcpf-r0": lcpf_r0,
    "priority": priority_scheduler,
}


def options(instance, raw: dict) -> dict:
    """``r``: the selection parameter (a number or a fraction such as "43/50",
    exact, >= 0); ``lambda``: §4.4's λ in [0, 1] instead (r = 1 - λ (1 - 1/P)
    T_inf^max / D; Fig. 21); ``seed``: RANDOM's seed (an integer)."""
    out: dict = {}
    for name, value in raw.items():
        if name == "r":
            out["r"] = exact(value, "options.r")
            if out["r"] < 0:
                raise UserInputError("options.r", f"must be >= 0, got {out['r']}")
        elif name == "lambda":
            out["weight"] = exact(value, "options.lambda")
            if not 0 <= out["weight"] <= 1:
                raise UserInputError("options.lambda", f"must be in [0, 1], got {out['weight']}")
        elif name == "seed":
            out["seed"] = integer(value, "options.seed")
        else:
            raise unknown_key(UserInputError, "options", name, ("r", "lambda", "seed"))
    if "r" in out and "weight" in out:
        raise UserInputError("options.lambda", "give r or lambda, not both")
    return out
