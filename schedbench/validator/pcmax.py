"""P||Cmax: the machine rules only."""

from schedbench.schedule import Schedule
from schedbench.validator.machines import check_machines
from schedbench.validator.violation import Violation

FAMILY = "pcmax"


def check(instance, schedule: Schedule, objective: str | None = None, references=None) -> list[Violation]:
    return check_machines(instance.jobs, instance.machines, schedule, lambda j: f"jobs[{j}]")
