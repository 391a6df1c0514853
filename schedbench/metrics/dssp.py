"""DSSP metrics (the format reference family ``dssp``; DSSP paper §2): rewards earned by
the deadline, and the quantities of the paper's analysis."""

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from math import floor

from schedbench.metrics import Bar, machine_bars
from schedbench.metrics.knapsack import dantzig, dp_by_profits, dp_by_profits_many, ortools_knapsack
from schedbench.schedule import Schedule


def completed_jobs(instance, schedule: Schedule) -> list[int]:
    """Jobs whose every task runs and ends by the deadline."""
    lengths = instance.lengths
    return [j for j in range(len(instance.jobs))
            if all(schedule.start[t] is not None and schedule.start[t] + lengths[t] <= instance.deadline
                   for t in instance.task_slice(j))]


def reward(instance, schedule: Schedule) -> int:
    return sum(instance.jobs[j].reward for j in completed_jobs(instance, schedule))


def theorem1_parameter(instance) -> Fraction:
    """r_0 = 1 - (1 - 1/P) T_inf^max / D (Theorem 1), exact; T_inf^max over the
    jobs that can finish at all (§2.2 discards the others before selection).
    With D = 0 nothing can finish and the capacity r P D is 0 whatever r is."""
    deadline = instance.deadline
    longest = max((job.critical_path for job in instance.jobs if job.critical_path <= deadline), default=0)
    if deadline == 0:
        return Fraction(0)
    return 1 - (1 - Fraction(1, instance.processors)) * Fraction(longest, deadline)


#: §4.4's λ, the paper's tuned choice for LCPF.
TUNED_WEIGHT = Fraction(1, 5)


def tuned_parameter(instance, weight: Fraction = TUNED_WEIGHT) -> Fraction:
    """§4.4: r = 1 - λ (1 - 1/P) T_inf^max / D with λ = 0.2, the paper's tuned choice for LCPF."""
    return 1 - weight * (1 - theorem1_parameter(instance))


def objective(instance, schedule: Schedule, name: str, references: dict) -> Fraction:
    if name != "reward":
        raise ValueError(f"unknown dssp objective {name!r}")
    return Fraction(reward(instance, schedule))


def lower_bound(instance, name: str) -> Fraction:
    """An upper bound (reward is maximised): the paper's knapsack bound, the
    optimal selection at r = 1 (no schedule completes more work than P x D)."""
    return Fraction(knapsack_bound(instance))


def max_critical_path_ratio(instance) -> Fraction:
    """T_inf^max / D, the x axis of Figs. 14 and 18-21 ("MaxCPL")."""
    return Fraction(instance.max_critical_path, instance.deadline or 1)


METRICS = {"completed-jobs": lambda instance, schedule: len(completed_jobs(instance, schedule)), "reward": reward,
           "max-cpl-ratio": lambda instance, schedule: max_critical_path_ratio(instance)}


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    """The tasks that run, on processors P1..PP, coloured by job."""
    return machine_bars(instance.lengths, schedule, lambda t: f"job {instance.job_of_task[t]}", row="P")


def candidates(instance) -> list[int]:
    """Jobs that can finish by the deadline at all (T_inf <= D)."""
    return [j for j, job in enumerate(instance.jobs) if job.critical_path <= instance.deadline]


def lp_bound(instance) -> Fraction:
    """The LP relaxation of the r = 1 knapsack: weaker than ``knapsack_bound``, and free."""
    jobs = [instance.jobs[j] for j in candidates(instance)]
    return dantzig([job.work for job in jobs], [job.reward for job in jobs], instance.processors * instance.deadline)


SELECTORS: dict[str, Callable] = {"dp": dp_by_profits, "ortools": ortools_knapsack}
#: DP by profits keeps one bit per (job, total profit): beyond this many cells
#: (large rewards) the selection goes to OR-Tools' exact solver, same optimum.
DP_CELLS = 1 << 28
#: Cells DP by profits fills per second, a quarter of what this machine
#: measures (200-450 million): the rate ``dp_fits`` budgets with.
DP_CELLS_PER_SECOND = 50_000_000


def dp_fits(items: int, profits: Sequence[int], seconds: float = math.inf) -> bool:
    """Whether DP by profits' table, (items + 1) x (total profit + 1) cells,
    stays within ``DP_CELLS`` and can be filled within ``seconds``."""
    cells = (items + 1) * (sum(profits) + 1)
    return cells <= DP_CELLS and cells <= DP_CELLS_PER_SECOND * seconds


def select(instance, r: Fraction, selector: str = "dp") -> list[int]:
    """The knapsack selection of §2.2, equations (1)-(2), with capacity floor(r P D)."""
    return selections(instance, [r], selector)[0]


def selections(instance, rs: Sequence[Fraction], selector: str = "dp") -> list[list[int]]:
    """``select`` for several values of r; DP by profits builds its table once
    for all, unless it would pass ``DP_CELLS`` (then OR-Tools, said in the
    docstring of ``DP_CELLS``, not hidden: both are exact)."""
    jobs = candidates(instance)
    weights, profits = [instance.jobs[j].work for j in jobs], [instance.jobs[j].reward for j in jobs]
    capacities = [max(0, floor(Fraction(r) * instance.processors * instance.deadline)) for r in rs]
    if selector == "dp" and dp_fits(len(jobs), profits):
        chosen = dp_by_profits_many(weights, profits, capacities)
    elif selector == "dp":
        chosen = [ortools_knapsack(weights, profits, capacity) for capacity in capacities]
    else:
        chosen = [SELECTORS[selector](weights, profits, capacity) for capacity in capacities]
    return [sorted(jobs[i] for i in picked) for picked in chosen]


def knapsack_bound(instance) -> int:
    """The paper's upper bound: the reward of the r = 1 knapsack selection
    (jobs whose work exceeds P D together cannot all finish), computed
    exactly by the selection's dynamic program."""
    return sum(instance.jobs[j].reward for j in select(instance, Fraction(1)))
