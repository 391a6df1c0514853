"""Independent schedule validator: re-derives every rule of SPEC.md from the
instance and the schedule alone. It imports neither heuristics nor solvers, so
a bug there cannot hide here.
"""

from dataclasses import dataclass

from schedbench.schedule import Schedule


@dataclass(frozen=True)
class Violation:
    rule: str       # short rule name, e.g. "overlap", "campaign-barrier"
    where: str      # the job, machine or campaign concerned
    message: str

    def __str__(self) -> str:
        return f"{self.rule} at {self.where}: {self.message}"


def validate(instance, schedule: Schedule) -> list[Violation]:
    """Every violated rule; an empty list means the schedule is valid."""
    from schedbench.validator import campaign, pcmax

    checkers = {"pcmax": pcmax.check, "campaign": campaign.check}
    return checkers[instance.family](instance, schedule)


def is_valid(instance, schedule: Schedule) -> bool:
    return not validate(instance, schedule)
