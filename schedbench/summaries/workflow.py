"""What ``schedbench heuristic`` prints of a workflow schedule."""

from fractions import Fraction

from schedbench.metrics import exact, fraction
from schedbench.metrics.workflow import gini, response_times, slr_class, slrs, waiting_times
from schedbench.model.workflow import WorkflowInstance
from schedbench.schedule import Schedule

def summary(instance: WorkflowInstance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """SLRs (exact), the worst SLR, their Gini coefficient, response times,
    the worst task wait (starvation) and the §3 class."""
    ratios = slrs(instance, schedule)
    rho, klass = slr_class(instance, schedule)
    waits = waiting_times(instance, schedule)
    return {**exact("max_slr", max(ratios, default=Fraction(0))), **exact("gini", gini(ratios)),
            "slr_fractions": [fraction(x) for x in ratios], "response_times": response_times(instance, schedule),
            "worst_wait": max(waits, default=0), "spearman_slr_cp": rho, "slr_class": klass}
