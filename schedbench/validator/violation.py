"""A broken rule, as the validator reports it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    rule: str       # short rule name, e.g. "overlap", "campaign-barrier"
    where: str      # the job, machine or campaign concerned
    message: str

    def __str__(self) -> str:
        return f"{self.rule} at {self.where}: {self.message}"
