"""Multi-organization scheduling: machine rules, local constraints and,
when the instance (or the caller) asks, the selfishness restriction.

Local constraints compare each organization's value with the reference the
caller gives: the format's ``ref_k`` (an optimal one is a P||Cmax optimum, proven
upstream by ``solvers.mosp.local_references``: the validator calls no
solver), or a heuristic's own local schedule's values. LPT and SPT
references it computes itself, from the instance alone. Selfishness (the format reference): a job j of k may start
no later than (a) the first start of a foreign job on k's machines and
(b) the first idle moment of any machine of k.
"""

from collections.abc import Sequence

from schedbench.schedule import Schedule
from schedbench.validator.machines import check_machines
from schedbench.validator.violation import Violation

FAMILY = "mosp"


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
    """ref_k where the format's ``local_reference`` is a list schedule (LPT or
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


def check(instance, schedule: Schedule, objective: str | None = None, references: Sequence[int] | None = None,
          selfish: bool | None = None) -> list[Violation]:
    """The objective ``unconstrained-makespan`` keeps the machine rules only;
    ``selfish`` overrides the instance's (a heuristic checked against its
    own rules)."""
    out = check_machines(instance.lengths, instance.machines, schedule, lambda j: _job(instance, j))
    if out or objective == "unconstrained-makespan":
        return out
    out += _local_constraints(instance, schedule, references)
    if instance.selfish if selfish is None else selfish:
        out += selfishness(instance, schedule)
    return out


def _job(instance, j: int) -> str:
    k = instance.owner_of_job[j]
    return f"organizations[{k}].jobs[{j - instance.job_slice(k).start}]"


def _local_constraints(instance, schedule: Schedule, references: Sequence[int] | None) -> list[Violation]:
    refs = listed_references(instance) if references is None else references
    if refs is None:
        raise ValueError("the optimal local reference ref_k is a P||Cmax optimum, proven upstream: pass references "
                         "(schedbench.families.rule_references)")
    name = "makespan" if instance.local_objective == "cmax" else "sum of completion times"
    return [Violation("local-constraint", f"organizations[{k}]", f"{name} {value} exceeds its reference {ref}")
            for k, (value, ref) in enumerate(zip(local_values(instance, schedule), refs)) if value > ref]


def selfishness(instance, schedule: Schedule) -> list[Violation]:
    lengths = instance.lengths
    on_machine: dict[int, list[tuple[int, int, int]]] = {}
    for j, (q, s) in enumerate(zip(schedule.machine, schedule.start)):
        on_machine.setdefault(q, []).append((s, s + lengths[j], j))
    out = []
    for k in range(instance.n_organizations):
        first_idle = min(_first_idle(sorted(on_machine.get(q, []))) for q in instance.machine_slice(k))
        foreign = [(s, j) for q in instance.machine_slice(k) for s, _, j in on_machine.get(q, [])
                   if instance.owner_of_job[j] != k]
        first_foreign = min(foreign, default=None)
        for j in instance.job_slice(k):
            s = schedule.start[j]
            if first_foreign is not None and first_foreign[0] < s:
                out.append(Violation("selfishness", _job(instance, j),
                                     f"starts at {s}, after foreign {_job(instance, first_foreign[1])} "
                                     f"started on a machine of its organization at {first_foreign[0]}"))
            elif s > first_idle:
                out.append(Violation("selfishness", _job(instance, j),
                                     f"starts at {s} while a machine of its organization is idle from {first_idle}"))
    return out


def _first_idle(intervals: list[tuple[int, int, int]]) -> int:
    """End of the busy stretch that starts at 0 (0 if the machine is idle at 0)."""
    busy_until = 0
    for start, end, _ in intervals:
        if start > busy_until:
            break
        busy_until = max(busy_until, end)
    return busy_until
