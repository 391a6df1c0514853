"""Rules shared by every family on identical machines: one job at a time per
machine, integer non-negative starts, machine indexes in range."""

from collections.abc import Callable, Sequence

from schedbench.schedule import Schedule
from schedbench.validator import Violation


def check_machines(lengths: Sequence[int], machines: int, schedule: Schedule,
                   name: Callable[[int], str]) -> list[Violation]:
    """Shape, machine range, start >= 0 and no overlap on any machine.

    Each job is one interval [start, start + p) on one machine, so a valid
    schedule is non-preemptive by construction of the format.
    """
    out: list[Violation] = []
    if len(schedule) != len(lengths):
        return [Violation("shape", "schedule", f"{len(schedule)} jobs scheduled, instance has {len(lengths)}")]
    per_machine: dict[int, list[tuple[int, int, int]]] = {}
    for j, (q, s) in enumerate(zip(schedule.machine, schedule.start)):
        if not (isinstance(q, int) and 0 <= q < machines):
            out.append(Violation("machine-range", name(j), f"machine {q} is not in 0..{machines - 1}"))
            continue
        if not isinstance(s, int) or s < 0:
            out.append(Violation("start", name(j), f"start {s} is not an integer >= 0"))
            continue
        per_machine.setdefault(q, []).append((s, s + lengths[j], j))
    for q, intervals in per_machine.items():
        intervals.sort()
        for (s1, e1, j1), (s2, _e2, j2) in zip(intervals, intervals[1:]):
            if s2 < e1:
                out.append(Violation("overlap", f"machine {q}",
                                     f"{name(j1)} runs [{s1},{e1}) and {name(j2)} starts at {s2}"))
    return out
