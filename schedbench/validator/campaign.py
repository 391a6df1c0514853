"""Campaign scheduling: machine rules plus the submission chain.

The submission times are recomputed here from the schedule itself:
``t_1 = release`` and ``t_{i+1} = C_i + think_time_{i+1}`` where ``C_i`` is
the latest completion among campaign i's jobs. No job may start before its
campaign's submission; that also enforces the barrier between campaigns.
"""

from bisect import bisect_right

import numpy as np

from schedbench.schedule import Schedule
from schedbench.validator import Violation
from schedbench.validator.machines import check_machines, integers


def check(instance, schedule: Schedule) -> list[Violation]:
    firsts = [(offset, u, i) for u, row in enumerate(instance.offsets) for i, offset in enumerate(row)]

    def name(job: int) -> str:  # formatted only for a violation
        offset, u, i = firsts[bisect_right(firsts, (job, float("inf"))) - 1]
        return f"users[{u}].campaigns[{i}].jobs[{job - offset}]"

    out = check_machines(instance.lengths, instance.machines, schedule, name)
    if out and out[0].rule == "shape":
        return out
    start, valid = integers(schedule.start)
    end = start + np.array(instance.lengths, dtype=np.int64)
    bounds = np.array([offset for offset, _, _ in firsts], dtype=np.int64)  # campaigns are never empty
    earliest = np.minimum.reduceat(np.where(valid, start, np.iinfo(np.int64).max), bounds).tolist()
    completions = np.maximum.reduceat(end, bounds).tolist()
    for c, (offset, u, i) in enumerate(firsts):
        user = instance.users[u]
        submitted = user.release if i == 0 else completions[c - 1] + user.campaigns[i].think_time
        if earliest[c] < submitted:
            for j in range(offset, offset + len(user.campaigns[i].jobs)):
                if valid[j] and start[j] < submitted:
                    rule = "release" if i == 0 else "campaign-barrier"
                    out.append(Violation(rule, name(j),
                                         f"starts at {start[j]} before its campaign's submission at {submitted}"))
    return out
