"""The schedule type shared by every family of identical parallel machines.

A schedule is flat: position ``j`` describes the instance's ``j``-th job in
its flat job order (``instance.lengths``). Each family's model module nests it
into JSON the same way the instance nests its jobs.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Schedule:
    """Machine index and integer start time of every job, in flat job order."""

    machine: tuple[int, ...]
    start: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.machine) != len(self.start):
            raise ValueError("machine and start must have the same length")

    @classmethod
    def of(cls, machine, start) -> "Schedule":
        return cls(tuple(machine), tuple(start))

    def __len__(self) -> int:
        return len(self.start)


def back_to_back(machine_of, lengths, origin: int = 0) -> list[int]:
    """Start times for a machine assignment: each machine runs its jobs in
    list order, one after the other, from ``origin``."""
    loads: dict[int, int] = {}
    starts = []
    for q, p in zip(machine_of, lengths):
        starts.append(origin + loads.get(q, 0))
        loads[q] = starts[-1] - origin + p
    return starts
