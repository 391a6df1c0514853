"""P||Cmax metrics (lower bounds live in ``schedbench.solvers.pcmax_bounds``)."""

from collections.abc import Sequence
from fractions import Fraction

from schedbench.schedule import Schedule


def makespan(lengths: Sequence[int], schedule: Schedule) -> int:
    return max((s + p for s, p in zip(schedule.start, lengths)), default=0)


def fractional_lower_bound(jobs: Sequence[int], machines: int) -> Fraction:
    """max(W / m, p_max): OStrich's l_i of a campaign, MOSP's LB and LB^(k)."""
    return max(Fraction(sum(jobs), machines), Fraction(max(jobs)))
