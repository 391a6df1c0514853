"""Inaccurate execution-time estimates (P-SLR paper §2.2).

The policies that use estimates (SRTF, LRTF, P-SLR) order by them; the
true times still drive execution. Both models return one positive integer
per flat task (the paper's execution times are in N*).
- Normal error (Eq. 1): e_est = ceil(normal(e, e N / 100)), N in percent.
  A draw below 1 (frequent once N passes 100%) becomes 1: an estimate is
  a positive duration, and 1 is the shortest there is. The paper does not
  say; the alternative reading (``redraw``) draws again until the draw is
  positive, so that no estimate piles up at 1 (docs/readings.md).
- Log rounding (Eq. 2): e_est = M^ceil(log_M e), the smallest power of M at
  least e, computed in integers; M = 1 is no rounding.
"""

import random
from math import ceil, isfinite

from schedbench.model.workflow import WorkflowInstance


NEGATIVE_DRAWS = ("clamp", "redraw")


def normal_error(instance: WorkflowInstance, percent: float, seed: int = 0, negative: str = "clamp") -> list[int]:
    """Eq. 1 with standard deviation ``percent``% of each true time, seeded;
    a draw <= 0 is clamped to 1 or drawn again (``negative``)."""
    if not isfinite(percent) or percent < 0:
        raise ValueError(f"the normal error's N must be a finite number >= 0, got {percent}")
    if negative not in NEGATIVE_DRAWS:
        raise ValueError(f"negative draws are clamped or redrawn, not {negative!r}")
    rng = random.Random(f"estimates:{seed}")

    def draw(exec_time: int) -> int:
        if exec_time < 1:  # redrawing around a mean <= 0 could go on for ever
            raise ValueError(f"execution times are integers >= 1, got {exec_time}")
        value = rng.normalvariate(exec_time, exec_time * percent / 100)
        while negative == "redraw" and value <= 0:  # P(value > 0) >= 1/2 for any N
            value = rng.normalvariate(exec_time, exec_time * percent / 100)
        return max(1, ceil(value))

    return _checked(instance, [draw(t.exec) for t in instance.tasks])


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
