"""Multi-organization metrics (the format reference family ``mosp``; MOSP paper §3-§5), all exact.

- local value of organization k: its makespan C^(k) (local objective cmax)
  or its sum of completion times (sum_ci);
- ``ref_k``, the local reference (the format reference): k's value with its jobs alone on
  its own machines, optimal or by LPT/SPT;
- LB = max(sum p / m, p_max), m = all machines (§6, Fig. 6);
- Stretch = max_k C^(k) / C^(k)alone, C^(k)alone the P||Cmax optimum of
  k's jobs on all m machines (§5.1);
- Jain index of x_k = C^(k) / LB^(k), LB^(k) = max(sum p^(k) / m, p_max^(k))
  (§5.2 writes sum p^(k) / N: one machine per organization, where m = N).
Organizations without jobs have no makespan and are left out of Stretch and
the Jain index.
"""

from collections.abc import Sequence
from fractions import Fraction

from schedbench.metrics import Bar, machine_bars
from schedbench.metrics.pcmax import fractional_lower_bound
from schedbench.schedule import Schedule
from schedbench.validator.mosp import local_makespans


def makespan(instance, schedule: Schedule) -> int:
    return max(local_makespans(instance, schedule), default=0)


def lower_bound(instance, name: str = "makespan") -> Fraction:
    """LB = max(sum p / m, p_max): bounds both objectives (the constrained
    optimum is at least the unconstrained one)."""
    return fractional_lower_bound(instance.lengths, instance.machines)


def stretch(instance, schedule: Schedule, alone: Sequence[int]) -> Fraction:
    """max_k C^(k) / C^(k)alone, ``alone`` the P||Cmax optima of each
    organization's jobs on all m machines (``solvers.mosp.alone_optima``)."""
    decided = decided_stretch(instance, schedule, [(a, a) if org.jobs else None
                                                   for a, org in zip(alone, instance.organizations)])
    assert decided is not None  # every C^(k)alone is exact
    return decided


def decided_stretch(instance, schedule: Schedule, bounds: Sequence[tuple[int, int] | None]) -> Fraction | None:
    """The Stretch when ``bounds``, each organization's (lower, upper)
    bounds of C^(k)alone (None without jobs), decide it, else None. They
    decide it when the organization with the largest upper ratio C^(k) /
    lower has lower == upper: its ratio is exact, and every other ratio is
    at most its own upper ratio, so at most this one."""
    makespans = local_makespans(instance, schedule)
    ratios = [(Fraction(makespans[k], pair[0]), pair[0] == pair[1]) for k, pair in enumerate(bounds)
              if instance.organizations[k].jobs]
    top = max(ratio for ratio, _ in ratios)
    return top if any(ratio == top and exact for ratio, exact in ratios) else None


def jain_index(instance, schedule: Schedule) -> Fraction:
    makespans = local_makespans(instance, schedule)
    x = [makespans[k] / fractional_lower_bound(org.jobs, instance.machines)
         for k, org in enumerate(instance.organizations) if org.jobs]
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def objective(instance, schedule: Schedule, name: str, references: dict) -> Fraction:
    """Both objectives are the global makespan (they differ in the rules, not the value)."""
    if name not in ("makespan", "unconstrained-makespan"):
        raise ValueError(f"unknown mosp objective {name!r}")
    return Fraction(makespan(instance, schedule))


def proven_stretch(instance, schedule: Schedule, references: dict) -> Fraction | None:
    """MOSP Fig. 8's Stretch over the bounds of C^(k)alone proven upstream
    (``references["alone_bounds"]``, ``solvers.mosp.stretch``), where they
    decide it, else None: the cell then counts as missing in a figure,
    never divided by a bound."""
    return decided_stretch(instance, schedule, references["alone_bounds"])


METRICS = {"makespan": makespan, "jain-index": jain_index,
           "sum-local-makespans": lambda instance, schedule: sum(local_makespans(instance, schedule)),
           "stretch": proven_stretch}


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    return machine_bars(instance.lengths, schedule, lambda j: f"organization {instance.owner_of_job[j]}")
