"""Exact metrics of schedules (``fractions.Fraction``; floats only for display).

Each family's module offers ``objective``, ``lower_bound``, ``METRICS`` and
``gantt_bars`` (see ``schedbench.bench.families``).
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Bar:
    """One bar of a Gantt chart: ``length`` time units from ``start`` on
    ``row`` (a machine or cluster label), coloured by ``group`` (the user,
    organization or job it belongs to)."""
    row: str
    start: int
    length: int
    group: str


def machine_bars(lengths, schedule, group: Callable[[int], str], row: str = "M") -> list[Bar]:
    """One bar per job that runs (start not None), on row ``row`` + its
    1-based machine number, in job order; ``group(j)`` colours job j."""
    return [Bar(f"{row}{q + 1}", s, p, group(j))
            for j, (q, s, p) in enumerate(zip(schedule.machine, schedule.start, lengths)) if s is not None]
