"""Reading the per-job ``{"machine": q, "start": s}`` entries of schedule files."""

from typing import Any

from schedbench.errors import ScheduleFormatError
from schedbench.model.fields import is_int


def read_job_list(entries: Any, expected: int, field: str, place: str = "machine") -> tuple[list[int], list[int]]:
    """Machines and starts of a list of job entries; checks shape and types only.

    Range checks (machine index, start >= release ...) belong to the
    validator, which reports them as violations rather than format errors.
    """
    if not isinstance(entries, list):
        raise ScheduleFormatError(field, f"must be a list of {{{place}, start}} objects")
    if len(entries) != expected:
        raise ScheduleFormatError(field, f"has {len(entries)} entries, the instance has {expected} jobs")
    machines, starts = [], []
    for j, entry in enumerate(entries):
        where = f"{field}[{j}]"
        if not isinstance(entry, dict):
            raise ScheduleFormatError(where, f"must be an object with '{place}' and 'start'")
        for key in (place, "start"):
            if not is_int(entry.get(key)):
                raise ScheduleFormatError(f"{where}.{key}", f"must be an integer, got {entry.get(key)!r}")
        machines.append(entry[place])
        starts.append(entry["start"])
    return machines, starts
