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


def validate(instance, schedule: Schedule, objective: str | None = None, references=None) -> list[Violation]:
    """Every violated rule; an empty list means the schedule is valid.

    Only MOSP's objective changes the rules: ``unconstrained-makespan`` drops
    the local constraints and selfishness. ``references`` are MOSP's ref_k
    (required when they are optimal P||Cmax makespans: the validator proves
    nothing itself)."""
    from schedbench.validator import campaign, dssp, knapsack, mosp, pcmax, three_partition, workflow

    checkers = {"pcmax": pcmax.check, "campaign": campaign.check, "mosp": mosp.check,
                "three_partition": three_partition.check, "dssp": dssp.check, "knapsack": knapsack.check,
                "workflow": workflow.check}
    if instance.family == "mosp":
        return mosp.check(instance, schedule, references, constrained=objective != "unconstrained-makespan")
    return checkers[instance.family](instance, schedule)

