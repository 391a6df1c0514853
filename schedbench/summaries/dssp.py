"""What ``schedbench heuristic`` prints of a dssp schedule."""

from fractions import Fraction

from schedbench.metrics import exact
from schedbench.metrics.dssp import completed_jobs, knapsack_bound, lp_bound, reward
from schedbench.schedule import Schedule

def summary(instance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """The reward and the jobs that earn it, against the paper's upper bound
    (the knapsack value at r = 1) and its LP relaxation."""
    value, bound, relaxed = reward(instance, schedule), knapsack_bound(instance), lp_bound(instance)
    return {"reward": value, "completed_jobs": completed_jobs(instance, schedule), "knapsack_bound": bound,
            **exact("lp_bound", relaxed),
            **exact("ratio_to_knapsack_bound", Fraction(value, bound) if bound else None)}
