"""A selfish MOSP makespan cap refuted by the configuration LP, checked in exact arithmetic.

The selfish MOSP MILP (``solvers.milp.mosp``) chooses one *configuration*
per organization (how many jobs of each length each of its machines keeps,
the rest exported) and places each exported job on another organization's
machine at a start time. When the LP relaxation of that model is infeasible
at a cap C, Farkas multipliers of its rows prove it, and this module checks
such a proof without the model: it enumerates the configurations again, by
its own code, takes the weights of the inequality rows only (``CapMultipliers``),
computes the best weights of the equality rows for them exactly, and checks
that the weighted rows add up to 0 <= (a negative number). A float error in
the LP that produced the weights can only make the check fail; it never
refutes a feasible cap. It is to the selfish MOSP models what the checked
arc-flow dual (``metrics.pcmax.bounds.weights_bound``) is to P||Cmax.

Why every schedule is a point of the LP the weights refute. Take a valid
schedule of makespan <= C in the prefix form (``solvers.cpsat.mosp``: each
machine q of organization k runs k's jobs it keeps first, from 0 without a
gap, P_q in all; foreign jobs on q start at P_q or later; every job of k,
kept or exported, starts by r_k = min over k's machines of P_q). Putting
each prefix shortest first keeps that form and lowers no rule's slack;
renaming the machines of one organization so that their P_q do not
increase, and jobs of one organization and one length so that the exported
ones are the last by index, changes nothing either (such machines and jobs
are interchangeable in every rule). The schedule then uses, for every k, one
configuration enumerated here (``_configurations``) and, for every exported
job j, one start t on one foreign machine q with t + p_j within j's latest
completion, and it meets these rows:

- one_k: the configurations of k chosen sum to 1 (equality);
- machine (q, t): what runs on q at t (a configuration of q's organization
  whose load on q passes t; a placement of an exported job covering t) <= 1;
- out_j: the placements of j minus the configurations exporting j = 0 (equality);
- ready (j, t), t >= 1: the placements of j starting at t or later minus the
  configurations exporting j that are ready by t or later (r_k >= t) <= 0;
- local_k (sum_ci only): the completions of the jobs k keeps plus those of its
  placed exported jobs <= ref_k.

Weights y >= 0 on the inequality rows and free u_k, v_j on the equality
rows with every column's weighted sum >= 0 and the weighted right-hand
sides below 0 leave no point (Farkas). For given y, the best choice is
v_j = -(the least weighted placement of j) and u_k = the greatest of
-(weighted configuration of k without its u_k): both computed here, so
only y is the certificate.
"""

import math
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, product

from schedbench.model.mosp import MospInstance

#: Configurations of one organization past which the check proves nothing:
#: in pure Python, 2 x 10^5 of them take about a second. (The MILP, whose
#: relaxation is checked, has its own limit: ``solvers.milp.mosp``.)
MAX_CHECKED_CONFIGURATIONS = 200_000


@dataclass(frozen=True)
class CapMultipliers:
    """Weights (>= 0) of the configuration LP's inequality rows (module docstring); absent rows weigh 0."""
    machine: Mapping[tuple[int, int], Fraction]  # (machine q, instant t >= 0)
    ready: Mapping[tuple[int, int], Fraction]    # (job j, instant t >= 1)
    local: Mapping[int, Fraction]                # organization k (sum_ci only)


def refutes(instance: MospInstance, references: Sequence[int], cap: int, multipliers: CapMultipliers,
            deadline: float = math.inf) -> bool:
    """Whether ``multipliers`` prove that no valid selfish schedule of
    ``instance`` has makespan <= ``cap`` (``references``: ref_k). False
    when they prove nothing: weights that do not add up, a negative or
    misplaced weight, an organization with more than
    ``MAX_CHECKED_CONFIGURATIONS`` configurations, or the check still running at
    ``deadline`` (a monotonic time)."""
    weights = _scaled(instance, multipliers)
    if weights is None or not instance.selfish or not all(
            instance.machine_slice(k) for k in range(instance.n_organizations)):
        return False  # the argument is the selfish rule's, and needs every organization's ready time
    machine, ready, local = weights
    busy = [[0, *accumulate(machine.get((q, t), 0) for t in range(cap))] for q in range(instance.machines)]
    ready_before = {j: _ready_sums(ready, j, cap) for j in range(len(instance.lengths))}
    placed = [_cheapest_placement(instance, references, cap, j, busy, ready_before[j], local)
              for j in range(len(instance.lengths))]
    total = sum(row[-1] for row in busy) + sum(local.get(k, 0) * ref for k, ref in enumerate(references))
    for k in range(instance.n_organizations):
        best = _best_configuration(instance, references, cap, k, busy, ready_before, placed, local.get(k, 0),
                                   deadline)
        if best is _TOO_MANY:
            return False
        if best is None:  # no configuration at all: k's jobs cannot meet the cap and the rule
            return True
        total += best
    return total < 0


def within_budget(instance: MospInstance) -> bool:
    """Whether every organization's configurations fit ``MAX_CHECKED_CONFIGURATIONS``
    before any is pruned (each length's jobs split among its machines and
    out, in every way): where they do, the check can end; a cheap test
    before the LP is solved at all."""
    return all(math.prod(math.comb(count + organization.machines, organization.machines)
                         for count in Counter(organization.jobs).values()) <= MAX_CHECKED_CONFIGURATIONS
               for organization in instance.organizations)


def _scaled(instance, multipliers: CapMultipliers) -> tuple[dict, dict, dict] | None:
    """The weights as integers over one denominator, or None where one is
    negative, has no row (an instant below 0, or a ready row at 0) or is a
    local row of cmax (which has none)."""
    values = [*multipliers.machine.values(), *multipliers.ready.values(), *multipliers.local.values()]
    if any(v < 0 for v in values) or any(t < 0 for _, t in multipliers.machine) \
            or any(t < 1 for _, t in multipliers.ready) \
            or (instance.local_objective != "sum_ci" and any(multipliers.local.values())):
        return None
    scale = math.lcm(*(Fraction(v).denominator for v in values)) if values else 1
    return tuple({key: int(Fraction(v) * scale) for key, v in rows.items()}
                 for rows in (multipliers.machine, multipliers.ready, multipliers.local))


def _ready_sums(ready: Mapping[tuple[int, int], int], j: int, cap: int) -> list[int]:
    """R[s] = the weights of j's ready rows at t = 1..s, for s = 0..cap."""
    return [0, *accumulate(ready.get((j, t), 0) for t in range(1, cap + 1))]


def _latest_completion(instance: MospInstance, references: Sequence[int], cap: int, j: int) -> int:
    """The latest j may complete by: the cap, and ref_k (cmax) or ref_k less
    the other jobs of k at their lengths (sum_ci: each completes no earlier)."""
    k = instance.owner_of_job[j]
    if instance.local_objective == "cmax":
        return min(cap, references[k])
    others = sum(instance.lengths[i] for i in instance.job_slice(k)) - instance.lengths[j]
    return min(cap, references[k] - others)


def _cheapest_placement(instance, references, cap: int, j: int, busy: list[list[int]], ready_before: list[int],
                        local: Mapping[int, int]) -> int | None:
    """min over foreign machines q and starts t of the weights of j's
    placement column (its machine rows, its ready rows up to t, its
    completion in its organization's local row); None: j has no start."""
    p, k = instance.lengths[j], instance.owner_of_job[j]
    last_start = _latest_completion(instance, references, cap, j) - p
    weight = local.get(k, 0)
    costs = [busy[q][t + p] - busy[q][t] + ready_before[t] + weight * (t + p)
             for q in range(instance.machines) if instance.owner_of_machine[q] != k
             for t in range(last_start + 1)]
    return min(costs, default=None)


_TOO_MANY = object()


def _best_configuration(instance, references, cap: int, k: int, busy, ready_before, placed, weight: int,
                        deadline: float):
    """u_k: the greatest of -(weighted configuration column without u_k)
    over k's configurations; None when k has none, ``_TOO_MANY`` past
    ``MAX_CHECKED_CONFIGURATIONS`` or ``deadline``."""
    mine = instance.machine_slice(k)
    best = None
    for count, (loads, completions, exported) in enumerate(_configurations(instance, references, cap, k)):
        if count >= MAX_CHECKED_CONFIGURATIONS or count % 1024 == 0 and time.monotonic() > deadline:
            return _TOO_MANY
        if any(placed[j] is None for j in exported):
            continue
        ready = min(loads)
        value = (-sum(busy[q][load] for q, load in zip(mine, loads)) - weight * completions
                 + sum(ready_before[j][ready] - placed[j] for j in exported))
        best = value if best is None else max(best, value)
    return best


def _configurations(instance, references, cap: int, k: int) -> Iterator[tuple[tuple[int, ...], int, list[int]]]:
    """k's configurations a schedule of makespan <= cap can use (module
    docstring): (loads, non-increasing; completions of the jobs kept, each
    machine shortest first; jobs exported, the last by index of each
    length), with each load within the cap (and ref_k for cmax), each
    machine's last job starting by the least load, and for sum_ci the
    completions kept plus each exported job at its length within ref_k."""
    lengths, ref = instance.lengths, references[k]
    machines = len(instance.machine_slice(k))
    groups: dict[int, list[int]] = {}
    for j in sorted(instance.job_slice(k)):
        groups.setdefault(lengths[j], []).append(j)
    ordered = sorted(groups.items())
    limit = cap if instance.local_objective == "sum_ci" else min(cap, ref)

    def grow(g: int, loads: tuple[int, ...], longest: tuple[int, ...], completions: int, exported: list[int]):
        if g == len(ordered):
            ready = min(loads)
            if all(a >= b for a, b in zip(loads, loads[1:])) and all(
                    load - p <= ready for load, p in zip(loads, longest)) and (
                    instance.local_objective != "sum_ci" or completions + sum(lengths[j] for j in exported) <= ref):
                yield loads, completions, exported
            return
        p, jobs = ordered[g]
        for counts in _compositions(len(jobs), machines):
            new_loads, new_longest, total = list(loads), list(longest), completions
            for b, c in enumerate(counts):
                total += c * new_loads[b] + p * c * (c + 1) // 2
                new_loads[b] += c * p
                new_longest[b] = p if c else new_longest[b]
            if max(new_loads) <= limit:
                kept = sum(counts)
                yield from grow(g + 1, tuple(new_loads), tuple(new_longest), total, exported + jobs[kept:])

    yield from grow(0, (0,) * machines, (0,) * machines, 0, [])


def _compositions(count: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to keep at most ``count`` jobs on ``parts`` machines (the
    rest exported): every tuple of counts, those of a sum within ``count``
    (the obvious enumeration, not the model's)."""
    return (counts for counts in product(range(count + 1), repeat=parts) if sum(counts) <= count)
