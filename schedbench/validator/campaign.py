"""Campaign scheduling: machine rules plus the submission chain.

The submission times are recomputed here from the schedule itself:
``t_1 = release`` and ``t_{i+1} = C_i + think_time_{i+1}`` where ``C_i`` is
the latest completion among campaign i's jobs. No job may start before its
campaign's submission; that also enforces the barrier between campaigns.
"""

from schedbench.schedule import Schedule
from schedbench.validator import Violation
from schedbench.validator.machines import check_machines


def check(instance, schedule: Schedule) -> list[Violation]:
    names = [(u, i, j) for u, user in enumerate(instance.users) for i, camp in enumerate(user.campaigns)
             for j in range(len(camp.jobs))]

    def name(job: int) -> str:  # formatted only for a violation
        return "users[{}].campaigns[{}].jobs[{}]".format(*names[job])

    lengths = instance.lengths
    out = check_machines(lengths, instance.machines, schedule, name)
    if out and out[0].rule == "shape":
        return out
    start = schedule.start
    for u, user in enumerate(instance.users):
        completion = 0
        for i, camp in enumerate(user.campaigns):
            submitted = user.release if i == 0 else completion + camp.think_time
            jobs = instance.campaign_slice(u, i)
            for j in jobs:
                if start[j] < submitted:
                    rule = "release" if i == 0 else "campaign-barrier"
                    out.append(Violation(rule, name(j),
                                         f"starts at {start[j]} before its campaign's submission at {submitted}"))
            completion = max(start[j] + lengths[j] for j in jobs)
    return out
