"""What ``schedbench heuristic`` prints of a pcmax schedule."""

from schedbench.metrics.pcmax import makespan
from schedbench.metrics.pcmax.bounds import lower_bound as pcmax_lower_bound
from schedbench.schedule import Schedule

def summary(instance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """The makespan and the best cheap lower bound (named)."""
    bound, name = pcmax_lower_bound(instance.jobs, instance.machines)
    return {"makespan": makespan(instance.jobs, schedule), "lower_bound": bound, "lower_bound_name": name}
