"""Reading the per-job ``{"machine": q, "start": s}`` entries of schedule files."""

from typing import Any

from schedbench.errors import ScheduleFormatError
from schedbench.model.shape import AnyInteger, Key, List, Record


def placements(place: str = "machine") -> List:
    """The declaration of a list of ``{place, start}`` entries."""
    return List(Record((Key(place, AnyInteger(), doc=f"The {place} index, from 0."),
                        Key("start", AnyInteger(), doc="The start time."))))


def read_job_list(entries: list[dict[str, Any]], expected: int, field: str,
                  place: str = "machine") -> tuple[list[int], list[int]]:
    """Machines and starts of a list of job entries already checked against
    ``placements``; only their number is checked here.

    Range checks (machine index, start >= release ...) belong to the
    validator, which reports them as violations rather than format errors.
    """
    if len(entries) != expected:
        raise ScheduleFormatError(field, f"has {len(entries)} entries, the instance has {expected} jobs")
    return [entry[place] for entry in entries], [entry["start"] for entry in entries]
