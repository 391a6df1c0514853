"""P||Cmax metrics and the classic lower bounds."""

from collections.abc import Sequence

from schedbench.schedule import Schedule


def makespan(lengths: Sequence[int], schedule: Schedule) -> int:
    return max((s + p for s, p in zip(schedule.start, lengths)), default=0)


def lower_bound(lengths: Sequence[int], machines: int) -> int:
    """L0 = max(ceil(W/m), pmax) and L1 = p_m + p_{m+1} (sorted decreasingly):
    of any m+1 jobs two share a machine."""
    if not lengths:
        return 0
    work = sum(lengths)
    bound = max(-(-work // machines), max(lengths))
    if len(lengths) > machines:
        ordered = sorted(lengths, reverse=True)
        bound = max(bound, ordered[machines - 1] + ordered[machines])
    return bound
