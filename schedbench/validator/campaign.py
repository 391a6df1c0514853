"""Campaign scheduling: machine rules plus the submission chain.

The submission times are recomputed here from the schedule itself:
``t_1 = release`` and ``t_{i+1} = C_i + think_time_{i+1}`` where ``C_i`` is
the latest completion among campaign i's jobs. No job may start before its
campaign's submission; that also enforces the barrier between campaigns.
"""

from bisect import bisect_right

import numpy as np

from schedbench.schedule import Schedule
from schedbench.validator.machines import check_machines, job_arrays
from schedbench.validator.violation import Violation

FAMILY = "campaign"


def check(instance, schedule: Schedule, objective: str | None = None, references=None) -> list[Violation]:
    firsts = [(offset, u, i) for u, row in enumerate(instance.offsets) for i, offset in enumerate(row)]

    def name(job: int) -> str:  # formatted only for a violation
        offset, u, i = firsts[bisect_right(firsts, (job, float("inf"))) - 1]
        return f"users[{u}].campaigns[{i}].jobs[{job - offset}]"

    if len(schedule) != len(instance.lengths):
        return check_machines(instance.lengths, instance.machines, schedule, name)
    arrays = job_arrays(instance.lengths, instance.machines, schedule)
    out = check_machines(instance.lengths, instance.machines, schedule, name, arrays)
    start, valid, end = arrays.start, arrays.start_ok, arrays.end
    bounds = np.array([offset for offset, _, _ in firsts], dtype=np.int64)  # campaigns are never empty
    earliest = np.minimum.reduceat(np.where(valid, start, np.iinfo(np.int64).max), bounds)
    completions = np.maximum.reduceat(end, bounds)
    # t_1 = release, t_{i+1} = C_i + think_{i+1}: each campaign's own term, plus C of the one before
    own = np.array([instance.users[u].campaigns[i].think_time if i else instance.users[u].release
                    for _, u, i in firsts], dtype=np.int64)
    chained = np.array([i > 0 for _, _, i in firsts], dtype=bool)
    submitted = own + np.where(chained, np.concatenate(([0], completions[:-1])), 0)
    for c in np.flatnonzero(earliest < submitted).tolist():
        offset, u, i = firsts[c]
        at = int(submitted[c])
        for j in range(offset, offset + len(instance.users[u].campaigns[i].jobs)):
            if valid[j] and start[j] < at:
                rule = "release" if i == 0 else "campaign-barrier"
                out.append(Violation(rule, name(j), f"starts at {start[j]} before its campaign's submission at {at}"))
    return out
