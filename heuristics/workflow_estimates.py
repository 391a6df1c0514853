"""Inaccurate execution-time estimates (P-SLR paper §2.2).

The policies that use estimates (SRTF, LRTF, P-SLR) order by them; the
true times still drive execution. Both models return one positive integer
per flat task (the paper's execution times are in N*).
- Normal error (Eq. 1): e_est = ceil(normal(e, e N / 100)), N in percent.
  A draw below 1 (frequent once N passes 100%) becomes 1: an estimate is
  a positive duration, and 1 is the shortest there is.
- Log rounding (Eq. 2): e_est = M^ceil(log_M e), the smallest power of M at
  least e, computed in integers; M = 1 is no rounding.
"""

import random
from math import ceil, isfinite

from schedbench.model.workflow import WorkflowInstance


def normal_error(instance: WorkflowInstance, percent: float, seed: int = 0) -> list[int]:
    """Eq. 1 with standard deviation ``percent``% of each true time, seeded."""
    if not isfinite(percent) or percent < 0:
        raise ValueError(f"the normal error's N must be a finite number >= 0, got {percent}")
    rng = random.Random(f"estimates:{seed}")
    return _checked(instance, [max(1, ceil(rng.normalvariate(t.exec, t.exec * percent / 100)))
                               for t in instance.tasks])


def log_rounding(instance: WorkflowInstance, base: int) -> list[int]:
    """Eq. 2: each time rounded up to a power of ``base``."""
    if not isinstance(base, int) or base < 1:
        raise ValueError(f"the log rounding base M must be an integer >= 1, got {base!r}")
    if base == 1:
        return [t.exec for t in instance.tasks]
    out = []
    for task in instance.tasks:
        power = 1
        while power < task.exec:
            power *= base
        out.append(power)
    return _checked(instance, out)


#: Largest estimated work of one job: the simulator ranks by 64-bit integers.
MAX_ESTIMATED_JOB = 1 << 62


def _checked(instance: WorkflowInstance, estimates: list[int]) -> list[int]:
    """Refuse estimates whose sum over a job (a bound on any upward rank)
    would pass 64-bit integers, rather than let a rank wrap around."""
    for k in range(len(instance.jobs)):
        if sum(estimates[t] for t in instance.task_slice(k)) >= MAX_ESTIMATED_JOB:
            raise ValueError(f"the estimates of job {k} add up past 2^62")
    return estimates
