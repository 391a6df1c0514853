"""Multi-organization metrics (SPEC.md family ``mosp``; MOSP paper §3-§5), all exact.

- local value of organization k: its makespan C^(k) (local objective cmax)
  or its sum of completion times (sum_ci);
- ``ref_k``, the local reference (SPEC): k's value with its jobs alone on
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

from schedbench.metrics import Bar, exact, machine_bars
from schedbench.metrics.pcmax import fractional_lower_bound
from schedbench.schedule import Schedule


def completions(instance, schedule: Schedule, k: int) -> list[int]:
    lengths = instance.lengths
    return [schedule.start[j] + lengths[j] for j in instance.job_slice(k)]


def local_makespans(instance, schedule: Schedule) -> list[int]:
    return [max(completions(instance, schedule, k), default=0) for k in range(instance.n_organizations)]


def local_values(instance, schedule: Schedule) -> list[int]:
    """Each organization's own objective: C^(k) (cmax) or sum C^(k) (sum_ci)."""
    if instance.local_objective == "cmax":
        return local_makespans(instance, schedule)
    return [sum(completions(instance, schedule, k)) for k in range(instance.n_organizations)]


def makespan(instance, schedule: Schedule) -> int:
    return max(local_makespans(instance, schedule), default=0)


def list_schedule_value(lengths: Sequence[int], machines: int, objective: str) -> int:
    """Makespan or sum of completion times of list scheduling ``lengths`` in the given order."""
    loads = [0] * machines
    total = 0
    for p in lengths:
        q = min(range(machines), key=loads.__getitem__)
        loads[q] += p
        total += loads[q]
    return max(loads) if objective == "cmax" else total


def listed_references(instance) -> list[int] | None:
    """ref_k where SPEC's ``local_reference`` is a list schedule (LPT or
    SPT, or SPT's optimal sum of completions), computed from the instance
    alone; None where it is the optimal P||Cmax makespan, which a solver
    must prove (``solvers.mosp.local_references``)."""
    if instance.local_objective == "cmax" and instance.local_reference == "optimal":
        return None
    out = []
    for org in instance.organizations:
        spt = sorted(org.jobs)
        if instance.local_objective == "sum_ci":  # SPT is optimal for P||sum C
            order = spt if instance.local_reference in ("optimal", "spt") else spt[::-1]
        else:
            order = spt if instance.local_reference == "spt" else spt[::-1]
        out.append(list_schedule_value(order, org.machines, instance.local_objective) if org.jobs else 0)
    return out


def lower_bound(instance, name: str = "makespan") -> Fraction:
    """LB = max(sum p / m, p_max): bounds both objectives (the constrained
    optimum is at least the unconstrained one)."""
    return fractional_lower_bound(instance.lengths, instance.machines)


def stretch(instance, schedule: Schedule, alone: Sequence[int]) -> Fraction:
    """max_k C^(k) / C^(k)alone, ``alone`` the P||Cmax optima of each
    organization's jobs on all m machines (``solvers.mosp.alone_optima``)."""
    makespans = local_makespans(instance, schedule)
    return max(Fraction(makespans[k], alone[k]) for k, org in enumerate(instance.organizations) if org.jobs)


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
    """MOSP Fig. 8's Stretch over the C^(k)alone proven upstream
    (``references["alone"]``), else None: the cell then counts as missing in
    a figure, never divided by a bound."""
    alone = references.get("alone")
    return None if alone is None else stretch(instance, schedule, alone)


METRICS = {"makespan": makespan, "jain-index": jain_index,
           "sum-local-makespans": lambda instance, schedule: sum(local_makespans(instance, schedule)),
           "stretch": proven_stretch}


def gantt_bars(instance, schedule: Schedule) -> list[Bar]:
    return machine_bars(instance.lengths, schedule, lambda j: f"organization {instance.owner_of_job[j]}")


def summary(instance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """Exact global and fairness metrics, the heuristic's own local
    references, and any breach of SPEC's references (``references["local"]``,
    ref_k). Stretch needs every C^(k)alone (``references["alone"]``); when
    one was not proven it is null and ``stretch_unproven`` says which."""
    from schedbench.heuristics.mosp import own_references
    from schedbench.validator import validate

    value, bound = makespan(instance, schedule), lower_bound(instance)
    makespans = local_makespans(instance, schedule)
    if references.get("alone") is not None:
        spread, unproven = stretch(instance, schedule, references["alone"]), {}
    else:
        spread, unproven = None, {"stretch_unproven": references.get("alone_unproven", "not computed")}
    return {"makespan": value, **exact("lower_bound", bound), **exact("ratio_to_lower_bound", value / bound),
            "local_makespans": makespans, "sum_local_makespans": sum(makespans),
            "local_values": local_values(instance, schedule),
            "own_local_references": own_references(instance, heuristic) if heuristic else None,
            **exact("stretch", spread), **unproven, **exact("jain_index", jain_index(instance, schedule)),
            "spec_reference_violations": [str(v) for v in validate(instance, schedule,
                                                                  references=references["local"])]}
