"""Exact metrics of schedules (``fractions.Fraction``; floats only for display).

Each family's module offers ``objective``, ``lower_bound``, ``METRICS``,
``gantt_bars`` and, where the family has heuristics, ``summary`` (a
schedule's metrics as JSON, what ``schedbench heuristic`` prints); see
``schedbench.families``.
"""

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction


def number(value: Fraction | int | None) -> int | float | None:
    """A JSON number: an int when the value is integral, else a float (display only)."""
    if value is None:
        return None
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else float(value)


def fraction(value: Fraction | int) -> list[int]:
    """An exact value as JSON: [numerator, denominator]."""
    value = Fraction(value)
    return [value.numerator, value.denominator]


def exact(name: str, value: Fraction | int | None) -> dict:
    """``name`` (display number) and ``name_fraction`` (exact) of one value."""
    if value is None:
        return {name: None, f"{name}_fraction": None}
    return {name: number(value), f"{name}_fraction": fraction(value)}


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
