"""P||Cmax: the machine rules only."""

from schedbench.schedule import Schedule
from schedbench.validator import Violation
from schedbench.validator.machines import check_machines


def check(instance, schedule: Schedule) -> list[Violation]:
    return check_machines(instance.jobs, instance.machines, schedule, lambda j: f"jobs[{j}]")
