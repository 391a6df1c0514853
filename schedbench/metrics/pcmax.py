"""P||Cmax metrics (lower bounds live in ``schedbench.solvers.pcmax_bounds``)."""

from collections.abc import Sequence

from schedbench.schedule import Schedule


def makespan(lengths: Sequence[int], schedule: Schedule) -> int:
    return max((s + p for s, p in zip(schedule.start, lengths)), default=0)
