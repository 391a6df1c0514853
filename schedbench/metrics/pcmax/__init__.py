"""P||Cmax metrics (lower bounds live in ``schedbench.metrics.pcmax.bounds``)."""

from collections.abc import Sequence
from fractions import Fraction

from schedbench.metrics import Bar, machine_bars
from schedbench.metrics.pcmax.bounds import lower_bound as pcmax_lower_bound
from schedbench.schedule import Schedule


def makespan(lengths: Sequence[int], schedule: Schedule) -> int:
    return max((s + p for s, p in zip(schedule.start, lengths)), default=0)


def fractional_lower_bound(jobs: Sequence[int], machines: int) -> Fraction:
    """max(W / m, p_max): OStrich's l_i of a campaign, MOSP's LB and LB^(k)."""
    return max(Fraction(sum(jobs), machines), Fraction(max(jobs)))


def objective(instance, schedule: Schedule, name: str, references: dict) -> Fraction:
    if name != "makespan":
        raise ValueError(f"unknown pcmax objective {name!r}")
    return Fraction(makespan(instance.jobs, schedule))


def lower_bound(instance, name: str) -> Fraction:
    """The best of L0, L1 and Martello-Toth's bin-packing bound (``metrics.pcmax.bounds``)."""
    return Fraction(pcmax_lower_bound(instance.jobs, instance.machines)[0])


METRICS = {"makespan": lambda instance, schedule: makespan(instance.jobs, schedule)}


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    return machine_bars(instance.jobs, schedule, lambda j: f"job {j}")
