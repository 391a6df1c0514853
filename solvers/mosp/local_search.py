"""A local search for selfish MOSP schedules at a target makespan.

Why: on selfish instances the models spent their time looking for any
schedule below the heuristics', while the bound that proves most instances
optimal is the plain one (the format's LB). A schedule at the bound needs no
refutation: this search hands the models an incumbent, and when it meets
the bound the answer is proven by the bound alone, whatever the backend.

It searches placements only. Given where each job runs, the schedule
follows (the prefix form of ``solvers.cpsat.mosp``, whose docstring derives
it): on a machine of k, k's jobs first, shortest first from 0; foreign jobs
after them without a gap (starting earlier breaks no rule: every rule
bounds a start or a completion from above, apart from the prefix), in
order of their completion deadlines (Jackson's rule, which meets every
deadline any order meets): a start by the organization's least prefix,
and under Cmax the completion by its reference. Under sum_ci that order
is a heuristic for the organizations' sums. The makespan is then the
largest load. A placement is scored at a target C by how far it is from
valid: load above C, starts after their organization's least prefix,
local values above their references. Moves: one job to another machine,
or two jobs of different machines swapped, among those the score blames;
a tabu list keeps it from undoing them. Every schedule it returns has
passed the validator.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from schedbench.metrics.mosp import makespan
from schedbench.schedule import Schedule
from schedbench.solvers.exact.stopping import stop_requested
from schedbench.validator.mosp import check

if TYPE_CHECKING:
    from schedbench.solvers.mosp import MospSpec

#: Steps without a better score before the search gives up on a target.
PATIENCE = 400
#: Steps a moved job stays put, unless moving it beats the best score.
TABU_TENURE = 7
#: Jobs the score blames that each step tries to move.
BLAMED_PER_STEP = 3
#: Jobs each of them may swap with (a sample: every job would make a step
#: cost the square of the jobs).
SWAP_PARTNERS = 40


def improve(spec: MospSpec, best: Schedule, floor: int, deadline: float, seed: int = 0) -> Schedule:
    """A valid schedule of makespan below ``best``'s, as low as ``floor``,
    found before ``deadline``; else ``best``."""
    search = PlacementSearch(spec, seed)
    machine = list(best.machine)
    target = makespan(spec.instance, best) - 1
    while target >= floor and not _over(deadline):
        machine = search.reach(machine, target, deadline)
        if machine is None:
            break
        found = search.schedule(machine)
        if check(spec.instance, found, references=spec.references):
            break  # the score and the validator part ways (a bug): the validator wins
        best = found
        target = makespan(spec.instance, best) - 1
    return best


def _over(deadline: float) -> bool:
    """Past ``deadline``, or asked to stop (a race whose other lane settled
    the question: ``solvers.exact.stopping``)."""
    return time.monotonic() >= deadline or stop_requested()


class PlacementSearch:
    """The instance's fixed data, read once, and the search's random stream."""

    def __init__(self, spec: MospSpec, seed: int = 0):
        inst = spec.instance
        self.spec, self.instance, self.references, self.rng = spec, inst, spec.references, random.Random(seed)
        self.lengths, self.owner, self.home = inst.lengths, inst.owner_of_job, inst.owner_of_machine
        self.machines_of = [list(inst.machine_slice(k)) for k in range(inst.n_organizations)]
        self.cmax = inst.local_objective == "cmax"
        self.latest = [spec.latest_completion(j) for j in range(len(inst.lengths))] if self.cmax else None

    def schedule(self, machine: Sequence[int]) -> Schedule:
        """The schedule the placements imply (module docstring)."""
        return Schedule(tuple(machine), tuple(self._starts(machine)[0]))

    def _starts(self, machine: Sequence[int]) -> tuple[list[int], list[int], list[list[int]], list[int]]:
        """Starts, each machine's load and jobs, and each organization's least prefix."""
        lengths, owner, home = self.lengths, self.owner, self.home
        start, load = self.spec.prefixes(machine)
        on: list[list[int]] = [[] for _ in home]
        for j, q in enumerate(machine):
            on[q].append(j)
        least = [min(load[q] for q in mine) for mine in self.machines_of]  # every organization has a machine

        def due(j: int) -> tuple:
            latest = least[owner[j]] + lengths[j]
            return min(latest, self.latest[j]) if self.cmax else latest, lengths[j], j

        for q, jobs in enumerate(on):
            for j in sorted((j for j in jobs if owner[j] != home[q]), key=due):
                start[j], load[q] = load[q], load[q] + lengths[j]
        return start, load, on, least

    def score(self, machine: Sequence[int], target: int) -> tuple[int, list[int]]:
        """(score, blamed jobs): score 0 iff the placements' schedule is
        valid with makespan <= ``target``."""
        lengths, owner, refs = self.lengths, self.owner, self.references
        start, load, on, least = self._starts(machine)
        score, blamed = 0, set()
        for q, w in enumerate(load):
            if w > target:
                score += w - target
                blamed.update(on[q])
        total = [0] * len(refs)
        for j, s in enumerate(start):
            k = owner[j]
            late = s - least[k]
            if late > 0:
                score += late
                blamed.add(j)
            if self.cmax:
                over = s + lengths[j] - self.latest[j]
                if over > 0:
                    score += over
                    blamed.add(j)
            else:
                total[k] += s + lengths[j]
        if not self.cmax:
            for k, (t, ref) in enumerate(zip(total, refs)):
                if t > ref:
                    score += t - ref
                    blamed.update(self.instance.job_slice(k))
        return score, sorted(blamed)

    def reach(self, machine: list[int], target: int, deadline: float) -> list[int] | None:
        """Placements scoring 0 at ``target`` (tabu search from ``machine``), or None."""
        rng, machines = self.rng, range(len(self.home))
        current, blamed = self.score(machine, target)
        best_score, tabu, stale = current, {}, 0
        for step in itertools.count():
            if current == 0:
                return machine
            if stale >= PATIENCE or _over(deadline):
                return None
            moves = []
            free = [j for j in blamed if tabu.get(j, -1) < step] or blamed
            for j in rng.sample(free, min(BLAMED_PER_STEP, len(free))):
                here = machine[j]
                moves += [((j,), (q,)) for q in machines if q != here]
                others = [i for i in range(len(machine)) if machine[i] != here]
                moves += [((j, i), (machine[i], here)) for i in rng.sample(others, min(SWAP_PARTNERS, len(others)))]
            chosen = None
            for jobs, targets in moves:
                if _over(deadline):
                    return None
                before = [machine[j] for j in jobs]
                for j, q in zip(jobs, targets):
                    machine[j] = q
                value = self.score(machine, target)
                for j, q in zip(jobs, before):
                    machine[j] = q
                allowed = all(tabu.get(j, -1) < step for j in jobs) or value[0] < best_score
                key = (value[0], rng.random())
                if allowed and (chosen is None or key < chosen[0]):
                    chosen = (key, value, jobs, targets)
            if chosen is None:
                stale += 1
                continue
            _, (current, blamed), jobs, targets = chosen
            for j, q in zip(jobs, targets):
                machine[j] = q
                tabu[j] = step + TABU_TENURE
            stale = 0 if current < best_score else stale + 1
            best_score = min(best_score, current)
