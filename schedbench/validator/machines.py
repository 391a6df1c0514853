"""Rules shared by every family on identical machines: one job at a time per
machine, integer non-negative starts, machine indexes in range.

The checks run on numpy arrays (a million-job trace is checked in a fraction
of a second); a job is named only when it breaks a rule.
"""

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from schedbench.schedule import Schedule
from schedbench.validator.violation import Violation

#: Starts at or beyond this are refused (their ends could leave int64).
MAX_START = 1 << 62


def integers(values: Sequence, high: int = MAX_START) -> tuple[np.ndarray, np.ndarray]:
    """(values as int64, mask of the valid ones): a valid value is a Python
    int (not a bool, not a numpy or float number) in [0, ``high``); the
    others are 0 in the array."""
    array = _int64(values) if set(map(type, values)) <= {int} else None
    if array is not None:
        valid = (array >= 0) & (array < high)
    else:  # some value is not an int, or far out of range: find which, one by one
        valid = np.fromiter((type(v) is int and 0 <= v < high for v in values), dtype=bool, count=len(values))
        array = np.fromiter((v if ok else 0 for v, ok in zip(values, valid)), dtype=np.int64, count=len(values))
    return np.where(valid, array, 0), valid


def _int64(values: Sequence[int]) -> np.ndarray | None:
    """Python ints as int64 (``fromiter``: half the time of ``np.array``), or
    None when one is at least ``MAX_START`` away from 0 (or beyond int64)."""
    try:
        array = np.fromiter(values, dtype=np.int64, count=len(values))
    except OverflowError:
        return None
    if len(array) and not (-MAX_START < array.min() and array.max() < MAX_START):
        return None
    return array


class JobArrays(NamedTuple):
    """A schedule's jobs as arrays (invalid values as 0, masked out)."""
    machine: np.ndarray
    machine_ok: np.ndarray
    start: np.ndarray
    start_ok: np.ndarray
    end: np.ndarray


def job_arrays(lengths: Sequence[int], machines: int, schedule: Schedule) -> JobArrays:
    """Once per schedule: a family's own rules read the arrays the machine rules used."""
    machine, machine_ok = integers(schedule.machine, machines)
    start, start_ok = integers(schedule.start)
    return JobArrays(machine, machine_ok, start, start_ok, start + np.array(lengths, dtype=np.int64).reshape(-1))


def check_machines(lengths: Sequence[int], machines: int, schedule: Schedule,
                   name: Callable[[int], str], arrays: JobArrays | None = None) -> list[Violation]:
    """Shape, machine range, start >= 0 and no overlap on any machine
    (``arrays``: ``job_arrays`` of this schedule, if the caller has them).

    Each job is one interval [start, start + p) on one machine, so a valid
    schedule is non-preemptive by construction of the format.
    """
    if len(schedule) != len(lengths):
        return [Violation("shape", "schedule", f"{len(schedule)} jobs scheduled, instance has {len(lengths)}")]
    machine, machine_ok, start, start_ok, end = arrays or job_arrays(lengths, machines, schedule)
    out: list[Violation] = []
    for j in np.flatnonzero(~(machine_ok & start_ok)).tolist():
        if not machine_ok[j]:
            out.append(Violation("machine-range", name(j), f"machine {schedule.machine[j]!r} is not in 0..{machines - 1}"))
        else:
            out.append(Violation("start", name(j), f"start {schedule.start[j]!r} is not an integer in [0, 2^62)"))
    jobs = np.flatnonzero(machine_ok & start_ok)
    jobs = jobs[np.lexsort((jobs, end[jobs], start[jobs], machine[jobs]))]  # by machine, then start, end, job
    first, second = jobs[:-1], jobs[1:]
    clash = (machine[first] == machine[second]) & (start[second] < end[first])
    for j1, j2 in zip(first[clash].tolist(), second[clash].tolist()):
        out.append(Violation("overlap", f"machine {int(machine[j1])}",
                             f"{name(j1)} runs [{start[j1]},{end[j1]}) and {name(j2)} starts at {start[j2]}"))
    return out
