"""DSSP generators: the standard synthetic workload of the two-phase
rendering paper (§4.1), its transformations T1 (fixed number of stages,
§4.1/§4.3, Figures 14-17) and T2 (split the longest task, §4.1/§4.3,
Figures 18-20), and scaled-down workloads small enough for exact solving.

Time unit. The paper sets "D = 13 hours = 4680 x 10 seconds" and draws
task lengths from U[1, 600]. A job has at most 10 stages of at most 600,
so T_inf <= 6000: only if lengths count units of 10 seconds (D = 4680
units) can T_inf^max be close to D, as the paper says its standard
workloads are ("T_inf^max / D ≈ 1", Figure 13: "at least 97% of the
deadline"; §4.3: 5 stages give T_inf^max ≈ D/2 -- here T1 to 5 stages
gives about 0.62 D). With D = 46,800 seconds T_inf^max / D would be at
most 0.13. Every time here (lengths and the deadline) is therefore in
units of 10 seconds, default D = 4680.

U[a, b] is an integer drawn uniformly from {a, ..., b} (``rng.randint``).
All randomness comes from ``random.Random(seed)``, so a (generator,
parameters, seed) triple always gives byte-identical JSON.
"""

import heapq
import random
from dataclasses import replace
from fractions import Fraction
from typing import Literal, get_args

from schedbench.errors import UserInputError
from schedbench.instances.parameters import Count, Range, generator, integer_range
from schedbench.model import load_instance
from schedbench.model.dssp import DsspInstance, Job, critical_path

Reward = Literal["size", "unit"]
REWARDS = get_args(Reward)
# A guard against parameters where (almost) no job has T_inf <= D: the
# paper's loop would never end. Part of the procedure, so still deterministic.
MAX_CONSECUTIVE_DISCARDS = 10_000


def _reward(stages: tuple[tuple[int, ...], ...], reward: str) -> int:
    """``size``: R_j = T_1(j), the paper's default (§4.1); ``unit``: R_j = 1."""
    return sum(sum(stage) for stage in stages) if reward == "size" else 1


def _check_reward(reward: str) -> None:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")


def _draw_job(rng: random.Random, stages, tasks, length) -> tuple[tuple[int, ...], ...]:
    """One job in the draw order of §4.1: the number of stages, then per
    stage its number of tasks followed by its tasks' lengths."""
    drawn = []
    for _ in range(rng.randint(*stages)):
        count = rng.randint(*tasks)
        drawn.append(tuple(rng.randint(*length) for _ in range(count)))
    return tuple(drawn)


def _fill(rng: random.Random, processors: int, deadline: int, stages, tasks, length, demand_factor,
          min_jobs: int = 0, max_jobs: int | None = None) -> tuple[list[tuple[tuple[int, ...], ...]], int]:
    """§4.1's loop: while the total CPU demand (sum of T_1 of the kept jobs)
    does not exceed demand_factor * P * D, draw a job; keep it if
    T_inf <= D, else discard it (its draws are still consumed). The job
    that makes the demand exceed the target is kept, so the demand before
    the last job is <= demand_factor * P * D < the final demand. With
    ``min_jobs`` it goes on until that many jobs are kept, with
    ``max_jobs`` it stops once that many are kept (both only for
    ``small_workload``).
    Returns the kept jobs' stages and the number of discarded jobs."""
    if deadline < stages[0] * length[0]:
        raise ValueError(f"deadline {deadline} is below the shortest possible critical path "
                         f"{stages[0] * length[0]} ({stages[0]} stages of length {length[0]})")
    target = demand_factor * processors * deadline
    kept: list[tuple[tuple[int, ...], ...]] = []
    demand = discarded = in_a_row = 0
    while (demand <= target or len(kept) < min_jobs) and (max_jobs is None or len(kept) < max_jobs):
        job = _draw_job(rng, stages, tasks, length)
        if critical_path(job) <= deadline:
            kept.append(job)
            demand += sum(sum(stage) for stage in job)
            in_a_row = 0
        else:
            discarded += 1
            in_a_row += 1
            if in_a_row >= MAX_CONSECUTIVE_DISCARDS:
                raise ValueError(f"{in_a_row} jobs in a row had T_inf > D = {deadline}: "
                                 "the deadline is too short for these stage/task/length ranges")
    return kept, discarded


def _number(value: Fraction) -> int | list[int]:
    """An exact number for meta: an int when integral, else [num, den]."""
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else [value.numerator, value.denominator]


def _instance(processors: int, deadline: int, jobs, reward: str, name: str, meta: dict) -> DsspInstance:
    built = tuple(Job(_reward(stages, reward), stages) for stages in jobs)
    meta = {**meta, "job_count": len(built), "task_count": sum(len(s) for job in built for s in job.stages),
            "demand": sum(job.work for job in built),
            "max_critical_path": max((job.critical_path for job in built), default=0)}
    suffix = "-unit" if reward == "unit" else ""
    return DsspInstance(processors, deadline, built, name + suffix, meta)


def standard_workload(seed: int, processors: Count = 100, deadline: Count = 4680, stages: Range = (5, 10),
                      tasks: Range = (1, 10), length: Range = (1, 600), demand_factor: Fraction = 2,
                      reward: Reward = "size") -> DsspInstance:
    """§4.1, "a standard synthetic workload": P = 100 CPUs, D = 13 hours =
    4680 units of 10 seconds (see the module docstring), jobs added until
    the total CPU demand exceeds 2 x P x D. Each new job draws its number
    of stages from U[5, 10], per stage its number of tasks from U[1, 10],
    per task its length from U[1, 600]; it is kept if its critical path
    T_inf <= D, otherwise discarded. The job whose demand makes the total
    exceed 2PD is kept (the paper adds jobs "until the total CPU demand of
    the workload exceeds 2 x P x D"). Rewards: ``size`` R_j = T_1(j) (the
    paper's choice) or ``unit`` R_j = 1. meta records the parameters, the
    number of discarded jobs, the demand and T_inf^max."""
    _check_reward(reward)
    stages, tasks, length = integer_range(stages, "stages"), integer_range(tasks, "tasks"), integer_range(length, "length")
    rng = random.Random(seed)
    jobs, discarded = _fill(rng, processors, deadline, stages, tasks, length, demand_factor)
    meta = {"generator": "dssp-standard", "seed": seed, "processors": processors, "deadline": deadline,
            "time_unit_seconds": 10, "stages": list(stages), "tasks": list(tasks), "length": list(length),
            "demand_factor": _number(demand_factor), "reward": reward, "discarded": discarded}
    return _instance(processors, deadline, jobs, reward, f"dssp-standard-s{seed}", meta)


def _reassign(jobs, stages: int, rng: random.Random):
    """T1's move, job by job: every task of a stage g > ``stages`` (stages
    in order, tasks of a stage in order) draws its new stage from
    U[1, stages] and is appended to the end of that stage. Jobs with at
    most ``stages`` stages are left as they are and draw nothing."""
    out = []
    for job in jobs:
        kept = [list(stage) for stage in job[:stages]]
        for stage in job[stages:]:
            for p in stage:
                kept[rng.randint(1, stages) - 1].append(p)
        out.append(tuple(tuple(stage) for stage in kept))
    return out


def transform_t1(instance: DsspInstance, stages: int, seed: int) -> DsspInstance:
    """T1 (§4.1) on any instance, with its own ``random.Random(seed)``: each
    job keeps its stages 1..``stages`` and every task of a later stage moves
    to a stage drawn from U[1, stages] (see ``_reassign`` for the draw
    order). Jobs, tasks, task lengths and every job's T_1 (so also size
    rewards) are unchanged; rewards are copied. T_inf may grow (two long
    tasks of one old stage can land in two different new stages) and is
    not re-filtered against D: the paper's T1 keeps "the same number of
    jobs". meta counts the jobs whose T_inf now exceeds D."""
    if not isinstance(stages, int) or stages < 1:
        raise ValueError(f"stages must be an integer >= 1, got {stages!r}")
    moved = _reassign([job.stages for job in instance.jobs], stages, random.Random(seed))
    jobs = tuple(Job(job.reward, new) for job, new in zip(instance.jobs, moved))
    meta = {"generator": "dssp-t1", "stages": stages, "seed": seed, "source": instance.name,
            "source_meta": instance.meta,
            "over_deadline": sum(1 for job in jobs if job.critical_path > instance.deadline)}
    return DsspInstance(instance.processors, instance.deadline, jobs, f"{instance.name}-t1-g{stages}", meta)


def fixed_stages(seed: int, stages: Count, processors: Count = 100, deadline: Count = 4680, base_stages: Count = 10,
                 tasks: Range = (1, 10), length: Range = (1, 600), demand_factor: Fraction = 2,
                 reward: Reward = "size") -> DsspInstance:
    """§4.1's "workloads with a fixed number of stages" (T1; Figures 14-17).
    First a standard workload whose jobs all have exactly ``base_stages``
    (10) stages, lengths U[1, 600], generated by ``standard_workload``'s
    procedure with the same ``random.Random(seed)`` -- including its
    T_inf <= D filter, which applies to the 10-stage jobs as they are
    drawn. The same generator then goes on to T1's draws: job by job, each
    task of a stage > ``stages`` (stages in order, tasks in order) moves to
    the end of a stage drawn from U[1, stages]. So for a given seed all
    stage counts share one base workload (as Figure 14 plots one workload
    per line), and ``fixed_stages(seed, 10)`` is
    ``standard_workload(seed, stages=(10, 10))``. Jobs, tasks and the total
    work are unchanged by T1; T_inf is not re-filtered (it can exceed D
    only when stages * max length > D, i.e. stages >= 8 with the defaults);
    meta counts such jobs in ``over_deadline``."""
    _check_reward(reward)
    if not isinstance(stages, int) or not 1 <= stages <= base_stages:
        raise ValueError(f"stages must be an integer in [1, {base_stages}], got {stages!r}")
    tasks, length = integer_range(tasks, "tasks"), integer_range(length, "length")
    rng = random.Random(seed)
    base, discarded = _fill(rng, processors, deadline, (base_stages, base_stages), tasks, length, demand_factor)
    jobs = _reassign(base, stages, rng)
    meta = {"generator": "dssp-fixed-stages", "seed": seed, "stages": stages, "base_stages": base_stages,
            "processors": processors, "deadline": deadline, "time_unit_seconds": 10, "tasks": list(tasks),
            "length": list(length), "demand_factor": _number(demand_factor), "reward": reward, "discarded": discarded,
            "base_max_critical_path": max((critical_path(job) for job in base), default=0),
            "over_deadline": sum(1 for job in jobs if critical_path(job) > deadline)}
    return _instance(processors, deadline, jobs, reward, f"dssp-t1-g{stages}-s{seed}", meta)


def _split_job(stages, bound: int) -> tuple[tuple[tuple[int, ...], ...], int, bool]:
    """T2 on one job: while T_inf > bound, the longest task (ties: the first
    in flat order, stage by stage, task by task) is replaced in place by
    two tasks of lengths ceil(p/2) then floor(p/2). Returns the new stages,
    the number of splits and whether the bound was reached (it is not when
    the longest task has length 1, i.e. the job has more stages than the
    bound allows)."""
    tinf = critical_path(stages)
    if tinf <= bound:
        return stages, 0, True
    # Every task carries a key whose lexicographic order is the flat order:
    # (stage, index) for original tasks, extended by 0 / 1 for the first /
    # second half of a split (the halves take their parent's place).
    tasks = [(-p, (g, i)) for g, stage in enumerate(stages) for i, p in enumerate(stage)]
    heapq.heapify(tasks)
    stage_heaps = [[-p for p in stage] for stage in stages]
    for heap in stage_heaps:
        heapq.heapify(heap)
    splits = 0
    while tinf > bound:
        p = -tasks[0][0]
        if p == 1:
            break
        _, key = heapq.heappop(tasks)
        first, second = p - p // 2, p // 2
        heapq.heappush(tasks, (-first, key + (0,)))
        heapq.heappush(tasks, (-second, key + (1,)))
        # The longest task of the job is the longest of its stage, so it is
        # the top of its stage's heap (or ties with it).
        heap = stage_heaps[key[0]]
        heapq.heapreplace(heap, -first)
        heapq.heappush(heap, -second)
        tinf += -heap[0] - p
        splits += 1
    rebuilt: list[list[int]] = [[] for _ in stages]
    for negp, key in sorted(tasks, key=lambda t: t[1]):
        rebuilt[key[0]].append(-negp)
    return tuple(tuple(stage) for stage in rebuilt), splits, tinf <= bound


def transform_t2(instance: DsspInstance, max_critical_path: int) -> DsspInstance:
    """T2 (§4.1, used in §4.3 / Figures 18-20): for each job, while its T_inf
    exceeds the new T_inf^max, "find the task with the longest length and
    replace it with two tasks that are half as long (in the same stage)".
    With integer lengths a task p becomes ceil(p/2) followed by floor(p/2)
    at its place, so every stage's and job's T_1 is unchanged and rewards
    (R_j = T_1 or 1) are copied unchanged; the number of stages is kept.
    Ties between longest tasks go to the first in flat order. A task of
    length 1 cannot be split: a job whose longest task has length 1 while
    its T_inf (= its number of stages) still exceeds the bound stops there,
    with all tasks of length 1, and is listed in meta ``unreachable``.
    Jobs already within the bound are untouched. Deterministic: no seed."""
    if not isinstance(max_critical_path, int) or max_critical_path < 1:
        raise ValueError(f"max_critical_path must be an integer >= 1, got {max_critical_path!r}")
    jobs, unreachable, splits = [], [], 0
    for j, job in enumerate(instance.jobs):
        stages, count, reached = _split_job(job.stages, max_critical_path)
        splits += count
        new = job if count == 0 else Job(job.reward, stages)
        if not reached:
            unreachable.append({"job": j, "critical_path": new.critical_path})
        jobs.append(new)
    meta = {"generator": "dssp-t2", "max_critical_path_bound": max_critical_path, "source": instance.name,
            "source_meta": instance.meta, "splits": splits, "unreachable": unreachable,
            "max_critical_path": max((job.critical_path for job in jobs), default=0)}
    return DsspInstance(instance.processors, instance.deadline, tuple(jobs),
                        f"{instance.name}-t2-c{max_critical_path}", meta)


def small_workload(seed: int, processors: Range = (2, 4), deadline: Range = (5, 9), load: Range = (100, 200),
                   jobs: Range = (2, 8), stages: Range = (1, 3), tasks: Range = (1, 3), length: Range = (1, 6),
                   reward: Reward = "size") -> DsspInstance:
    """§4.1's procedure with small ranges, for exact solving (every range
    inclusive). Draw order: P from U[processors], D from U[deadline], a
    load percentage L from U[load] (the paper's demand factor 2 is
    L = 200), then jobs as in §4.1 (stages, per stage its task count and
    lengths), each kept only if T_inf <= D, until the total demand exceeds
    L% of P x D -- the job that makes it exceed is kept -- with at least
    jobs[0] and at most jobs[1] jobs. So every job has T_inf <= D, the
    demand is over 1-2 x P x D unless the cap of jobs[1] stops the loop
    first (meta ``load_percent`` is the achieved W / (P D)), and, as in the
    paper, T_inf^max is usually D or close to it. With the defaults: 2-8
    jobs, D <= 9 and at most 8 x 3 x 3 = 72 tasks (over seeds 0-1999:
    11 tasks typically, 29 at most, and every load >= 100%)."""
    _check_reward(reward)
    processors, deadline = integer_range(processors, "processors"), integer_range(deadline, "deadline")
    load, jobs = integer_range(load, "load"), integer_range(jobs, "jobs")
    stages, tasks, length = integer_range(stages, "stages"), integer_range(tasks, "tasks"), integer_range(length, "length")
    rng = random.Random(seed)
    p, d, percent = rng.randint(*processors), rng.randint(*deadline), rng.randint(*load)
    drawn, discarded = _fill(rng, p, d, stages, tasks, length, Fraction(percent, 100), *jobs)
    work = sum(sum(sum(stage) for stage in job) for job in drawn)
    meta = {"generator": "dssp-small", "seed": seed, "processors": list(processors), "deadline": list(deadline),
            "load": list(load), "jobs": list(jobs), "stages": list(stages), "tasks": list(tasks),
            "length": list(length), "reward": reward, "target_load_percent": percent, "discarded": discarded,
            "load_percent": round(100 * work / (p * d), 1)}
    return _instance(p, d, drawn, reward, f"dssp-small-s{seed}", meta)


def _div_round(a: int, b: int) -> int:
    """a / b rounded half up, at least 1."""
    return max(1, (2 * a + b) // (2 * b))


def scaled_workload(seed: int, scale: Count, processors: Count | None = None, stages: Range = (5, 10),
                    tasks: Range | None = None, demand_factor: Fraction = 2, reward: Reward = "size") -> DsspInstance:
    """§4.1's procedure with P, D, the longest task and the most tasks per
    stage all divided by ``scale`` (rounded half up, at least 1):
    P = 100/scale (or ``processors``), D = 4680/scale, lengths
    U[1, 600/scale], tasks per stage U[1, 10/scale] (or ``tasks``); stages
    stay U[5, 10]. D / (longest length) stays 7.8, so T_inf^max still comes
    close to D, and the demand is still just over 2PD. Tasks per stage
    shrink with P because a job's work must stay well below P x D (in the
    paper at most 10 x 10 x 600 = 0.13 PD); with the full U[1, 10] and
    P = 2 every job would have more work than P x D and none could finish.
    The number of jobs is about 2PD / (mean work), which stays near 75
    while P >= 10, so only scales of about 25 and more give instances an
    exact solver can finish (scale 25: P = 4, D = 187, lengths U[1, 24],
    chains of 5-10 tasks; scale 50: P = 2, D = 94, lengths U[1, 12]).
    Exact when scale divides 120 (gcd of 600 and 4680)."""
    if not isinstance(scale, int) or scale < 1:
        raise ValueError(f"scale must be an integer >= 1, got {scale!r}")
    p = processors if processors is not None else _div_round(100, scale)
    tasks = tasks if tasks is not None else (1, _div_round(10, scale))
    inst = standard_workload(seed, p, _div_round(4680, scale), stages, tasks, (1, _div_round(600, scale)),
                             demand_factor, reward)
    meta = {**inst.meta, "generator": "dssp-scaled", "scale": scale}
    suffix = "-unit" if reward == "unit" else ""
    return DsspInstance(inst.processors, inst.deadline, inst.jobs, f"dssp-scaled-x{scale}-s{seed}{suffix}", meta)


def _t2(source: str, max_critical_path: Count = 2340) -> DsspInstance:
    """T2 of the dssp instance in file ``source``."""
    base = load_instance(source)
    if base.family != "dssp":
        raise UserInputError("params.source", f"{source} is a {base.family} instance, not dssp")
    return transform_t2(base, max_critical_path)


def max_critical_path_workload(seed: int, max_cpl: Fraction, reward: Reward = "size") -> DsspInstance:
    """Figures 18-21: a standard workload (``standard_workload(seed)``), then
    T2 down to T_inf^max <= floor(max_cpl x D). The paper does not name
    T2's base workload; the standard one is §4.1's only other."""
    max_cpl = Fraction(max_cpl)
    if not 0 < max_cpl <= 1:
        raise UserInputError("params.max_cpl", f"must be a fraction of the deadline in (0, 1], got {max_cpl}")
    base = standard_workload(seed, reward=reward)
    inst = transform_t2(base, max(1, int(max_cpl * base.deadline)))
    meta = {**inst.meta, "generator": "dssp-maxcpl", "seed": seed, "max_cpl": _number(max_cpl)}
    return replace(inst, name=f"dssp-maxcpl-{max_cpl}-s{seed}".replace("/", "_"), meta=meta)


def search_start(rng: random.Random, limits) -> DsspInstance:
    """A start for ``schedbench worst``: a small workload of 1-2 stages of 1-2
    tasks per job, about ``max-jobs`` tasks in all; unit or size rewards drawn."""
    return small_workload(rng.randrange(1 << 30), processors=limits.machines or (2, 4),
                          jobs=(1, max(1, limits.max_jobs // 3)), stages=(1, 2), tasks=(1, 2),
                          length=(1, min(6, limits.max_value)), reward=rng.choice(("unit", "size")))


GENERATORS = {"dssp-standard": generator(standard_workload), "dssp-t1": generator(fixed_stages),
              "dssp-t2": generator(_t2), "dssp-maxcpl": generator(max_critical_path_workload),
              "dssp-small": generator(small_workload), "dssp-scaled": generator(scaled_workload)}
