"""DSSP metrics (SPEC.md family ``dssp``; DSSP paper §2): rewards earned by
the deadline, and the quantities of the paper's analysis."""

from fractions import Fraction

from schedbench.metrics import Bar, exact, machine_bars
from schedbench.metrics.knapsack import dantzig
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


def summary(instance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """The reward and the jobs that earn it, against the paper's upper bound
    (the knapsack value at r = 1) and its LP relaxation."""
    value, bound, relaxed = reward(instance, schedule), knapsack_bound(instance), lp_bound(instance)
    return {"reward": value, "completed_jobs": completed_jobs(instance, schedule), "knapsack_bound": bound,
            **exact("lp_bound", relaxed),
            **exact("ratio_to_knapsack_bound", Fraction(value, bound) if bound else None)}


def candidates(instance) -> list[int]:
    """Jobs that can finish by the deadline at all (T_inf <= D)."""
    return [j for j, job in enumerate(instance.jobs) if job.critical_path <= instance.deadline]


def knapsack_bound(instance) -> int:
    """The paper's upper bound: the reward of the r = 1 knapsack selection
    (jobs whose work exceeds P D together cannot all finish), computed
    exactly by the selection's dynamic program."""
    from schedbench.heuristics.dssp import select  # the heuristics read this module's parameters

    return sum(instance.jobs[j].reward for j in select(instance, Fraction(1)))


def lp_bound(instance) -> Fraction:
    """The LP relaxation of the r = 1 knapsack: weaker than ``knapsack_bound``, and free."""
    jobs = [instance.jobs[j] for j in candidates(instance)]
    return dantzig([job.work for job in jobs], [job.reward for job in jobs], instance.processors * instance.deadline)
