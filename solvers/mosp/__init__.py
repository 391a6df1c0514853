"""MOSP: the family entry of the exact solvers.

``makespan``: minimise the global makespan under the local constraints
(the format's ``ref_k``) and, for selfish instances, the selfishness restriction.
Every job of k completes by its latest completion: ref_k (cmax), or ref_k
minus the other jobs of k (sum_ci: each completes at least its length), so
max_k ref_k bounds the horizon. ``unconstrained-makespan`` is P||Cmax on
all machines: the engine, whose bound is also a lower bound of ``makespan``.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from schedbench.errors import UserInputError
from schedbench.heuristics.mosp import HEURISTICS, local_phase
from schedbench.metrics.mosp import makespan
from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Result
from schedbench.schedule import Schedule
from schedbench.solvers.cpsat import mosp as cpsat_model
from schedbench.solvers.milp import mosp as milp_model
from schedbench.solvers.exact.certificate import SEARCH_SHARE, confirm, other_methods, nested_unconfirmed
from schedbench.solvers.exact.race import CapQuestion, model_lanes, race
from schedbench.solvers.mosp.local_search import improve
from schedbench.solvers.mosp.stretch import stretch_references
from schedbench.solvers.pcmax import PcmaxSolution, derived_cache, pcmax_optima, pcmax_optimum
from schedbench.solvers.pcmax import result as pcmax_result
from schedbench.validator.mosp import check, listed_references


FAMILY = "mosp"
#: One model per backend (``solvers/cpsat``, ``solvers/milp``).
MODELS = {"cpsat": cpsat_model, "milp": milp_model}
#: Both backends at once, one a core (``solvers.exact.race``); on
#: unconstrained-makespan, the P||Cmax engine's portfolio.
RACE = "cpsat+milp"
BACKENDS = ("cpsat", "milp", RACE, "portfolio")  # portfolio: unconstrained-makespan (P||Cmax) only
#: The strongest measured: on the held-out selfish shapes, one solve at a
#: time on 2 cores at 10 s, both at once prove at least as many as CP-SAT
#: on two threads and the MILP at every step, more at most
#: (docs/results/frontier_shapes_one_at_a_time.md); on the tuned MOSP lines,
#: as many as CP-SAT or more at every step (docs/results/frontier_mosp_race.md).
DEFAULT_SOLVER = RACE
#: The local search's share of the limit on selfish instances, at most (it
#: mostly stops within a second: at the bound, or out of patience).
LOCAL_SEARCH_SHARE = 0.2


def local_references(instance, time_limit: float) -> tuple[int, ...]:
    """the format's ref_k: listed ones from the instance, optimal P||Cmax makespans
    proven by the engine within ``time_limit`` seconds in all; an unproven
    one is an error naming --time-limit, never a guess."""
    listed = listed_references(instance)
    if listed is not None:
        return tuple(listed)
    return _organization_optima(instance, lambda org: org.machines, time_limit)


def alone_optima(instance, time_limit: float) -> tuple[int, ...]:
    """C^(k)alone, Stretch's denominators: each organization's jobs alone on
    all m machines, P||Cmax optima within ``time_limit`` seconds in all (0
    for an organization without jobs); an unproven one is an error."""
    found = alone_references(instance, time_limit)
    if found["alone"] is None:
        raise UserInputError("--time-limit", found["alone_unproven"].removeprefix("--time-limit: "))
    return found["alone"]


@derived_cache
@lru_cache(maxsize=16)
def alone_references(instance, time_limit: float) -> dict:
    """{"alone": C^(k)alone} or {"alone": None, "alone_unproven": why}:
    asked once per instance and limit, whatever asks (an unproven answer
    asked again would spend the limit again)."""
    try:
        return {"alone": _organization_optima(instance, lambda org: instance.machines, time_limit)}
    except UserInputError as exc:
        return {"alone": None, "alone_unproven": str(exc)}


def _organization_optima(instance, machines_of, time_limit: float) -> tuple[int, ...]:
    """Each organization's jobs alone on ``machines_of(org)`` machines, proven
    P||Cmax optima within one budget (0 for an organization without jobs)."""
    organizations = [org for org in instance.organizations if org.jobs]
    found = iter(_proven(pcmax_optima([(org.jobs, machines_of(org)) for org in organizations], "portfolio",
                                      time_limit)))
    return tuple(next(found) if org.jobs else 0 for org in instance.organizations)


def _proven(solutions) -> list[int]:
    for found in solutions:
        if not found.optimal:
            raise UserInputError("--time-limit", f"the P||Cmax optimum of {len(found.machine)} jobs is not proven "
                                                 f"in time (between {found.bound} and {found.makespan})")
    return [found.makespan for found in solutions]


def rule_references(instance, time_limit: float, objective: str | None = None) -> tuple[int, ...] | None:
    """What the validator checks a schedule against: ref_k (none for
    ``unconstrained-makespan``, which has no local constraint)."""
    return None if objective == "unconstrained-makespan" else local_references(instance, time_limit)


def metric_references(instance, time_limit: float, objective: str | None = None,
                      schedule: Schedule | None = None) -> dict:
    """What the metrics need: ref_k (``local``, for the breaches the summary
    reports) and bounds of C^(k)alone that decide ``schedule``'s Stretch
    (``alone_bounds``, with ``alone_unproven`` where they do not:
    ``solvers.mosp.stretch``); the Stretch metric needs the bounds only,
    the objectives nothing."""
    if objective not in (None, "stretch"):
        return {}
    alone = {} if schedule is None else stretch_references(instance, schedule, time_limit)
    return alone if objective == "stretch" else {"local": local_references(instance, time_limit), **alone}


@dataclass(frozen=True)
class MospSpec:
    instance: object
    references: tuple[int, ...]

    def latest_completion(self, j: int) -> int:
        inst = self.instance
        k = inst.owner_of_job[j]
        if inst.local_objective == "cmax":
            return self.references[k]
        others = sum(inst.lengths[i] for i in inst.job_slice(k)) - inst.lengths[j]
        return self.references[k] - others

    @property
    def horizon(self) -> int:
        return max((self.latest_completion(j) for j in range(len(self.instance.lengths))), default=0)

    def twins(self) -> list[tuple[int, int]]:
        """Consecutive jobs of one organization with equal lengths: interchangeable
        in every rule, so the models may order their starts."""
        inst = self.instance
        pairs = []
        for k in range(inst.n_organizations):
            by_length: dict[int, list[int]] = {}
            for j in inst.job_slice(k):
                by_length.setdefault(inst.lengths[j], []).append(j)
            for group in by_length.values():
                pairs += zip(group, group[1:])
        return pairs

    def prefix_order(self, k: int) -> list[int]:
        """k's jobs shortest first, ties by index: the order of k's jobs in
        every prefix of the selfish models (``solvers.cpsat.mosp``)."""
        lengths = self.instance.lengths
        return sorted(self.instance.job_slice(k), key=lambda j: (lengths[j], j))

    @cached_property
    def _ranked(self) -> tuple[int, ...]:
        return tuple(j for k in range(self.instance.n_organizations) for j in self.prefix_order(k))

    def prefixes(self, machine: Sequence[int]) -> tuple[list[int], list[int]]:
        """Given each job's machine, the prefix form's own part: each job
        placed on a machine of its organization starts after the ones before
        it in ``prefix_order`` there, from 0 (other jobs: 0); and each
        machine's prefix load P_q."""
        inst = self.instance
        owner, home, lengths = inst.owner_of_job, inst.owner_of_machine, inst.lengths
        start, load = [0] * len(lengths), [0] * len(home)
        for j in self._ranked:
            q = machine[j]
            if owner[j] == home[q]:
                start[j], load[q] = load[q], load[q] + lengths[j]
        return start, load

    def lower_bound(self) -> int:
        lengths = self.instance.lengths
        return max(-(-sum(lengths) // self.instance.machines), max(lengths, default=0))


def relaxation(spec: MospSpec, time_limit: float) -> tuple[PcmaxSolution, Schedule]:
    """The same jobs without local rules (P||Cmax, through the engine with
    the portfolio, whose arc-flow LP bound is what refutes packings like
    3-PARTITION in milliseconds where CP-SAT takes seconds): its proven
    bound is a lower bound of every MOSP objective. Its schedule, each machine
    re-sequenced by latest completion (earliest deadline first, which meets
    every deadline a machine's jobs allow), is a candidate incumbent.
    Theorem 2's reduction needs both: at the threshold it is 3-PARTITION."""
    inst = spec.instance
    found = pcmax_optimum(inst.lengths, inst.machines, "portfolio", time_limit)
    machine, start = list(found.machine), [0] * len(inst.lengths)
    for q in set(machine):
        t = 0
        for j in sorted((j for j in range(len(machine)) if machine[j] == q),
                        key=lambda j: (spec.latest_completion(j), inst.lengths[j], j)):
            start[j], t = t, t + inst.lengths[j]
    return found, Schedule(tuple(machine), tuple(start))


def incumbent(spec: MospSpec, extra: tuple[Schedule, ...] = (), time_limit: float = 1.0) -> Schedule | None:
    """The best valid schedule among the heuristics (the paper's and ilba-input), the local
    schedule itself (each organization's reference schedule on its own
    machines, longest job last on each machine, the order that best keeps
    selfishness) and ``extra``: a warm start and an upper bound for the models."""
    inst = spec.instance
    candidates = [run(inst) for run in HEURISTICS.values()] + list(extra)
    candidates.append(local_phase(inst, "spt" if inst.local_objective == "sum_ci" else "lpt"))
    if inst.local_objective == "cmax" and inst.local_reference == "optimal":
        candidates.append(_optimal_local_schedule(inst, time_limit))
    valid = [s for s in candidates if not check(inst, s, references=spec.references)]
    return min(valid, key=lambda s: makespan(inst, s), default=None)


def _optimal_local_schedule(inst, time_limit: float) -> Schedule:
    machine = [0] * len(inst.lengths)
    start = [0] * len(inst.lengths)
    organizations = [k for k, org in enumerate(inst.organizations) if org.jobs]
    solutions = pcmax_optima([(inst.organizations[k].jobs, inst.organizations[k].machines) for k in organizations],
                             "portfolio", time_limit)
    for k, found in zip(organizations, solutions):
        jobs = list(inst.job_slice(k))
        for q in set(found.machine):
            t = 0
            for j in sorted((j for j, local in zip(jobs, found.machine) if local == q), key=inst.lengths.__getitem__):
                machine[j], start[j] = inst.machine_slice(k)[q], t
                t += inst.lengths[j]
    return Schedule(tuple(machine), tuple(start))


def solve(instance, objective: str, solver: str, time_limit: float) -> Result:
    """Bound-driven, as the P||Cmax engine, from the best certified lower
    bound (LB, or the relaxation's) and the incumbent's makespan: C, C + 1,
    ... is decided with the makespan capped at C (a tight cap shrinks every
    start window, so refutations are quick), and the first feasible C is
    optimal. On selfish instances a local search brings the incumbent
    down, often to the bound (``solvers.mosp.local_search``): first, or
    with ``cpsat+milp`` as the first method of the MILP's lane. No cap model
    gets a hint: every cap lies below the incumbent's makespan, so no known
    schedule fits it.

    With ``cpsat`` or ``milp``, one backend searches the caps
    (``_search_caps``) and the refutation just below its answer is asked
    again by an independent method before the answer is ``optimal``
    (``solvers.exact.certificate``). With ``cpsat+milp`` both backends
    decide the caps at once, one a core, and a cap is refuted once both
    have refuted it (``solvers.exact.race``): neither waits for the other's
    share of the limit."""
    began = time.monotonic()
    if solver == "portfolio" and objective != "unconstrained-makespan":
        raise UserInputError("--solver", "the portfolio solves P||Cmax problems only (unconstrained-makespan); "
                                         "makespan takes cpsat, milp or cpsat+milp")
    if objective == "unconstrained-makespan":  # P||Cmax: both at once there is the engine's portfolio
        engine = "portfolio" if solver == RACE else solver
        return pcmax_result(pcmax_optimum(instance.lengths, instance.machines, engine, time_limit), engine, began)
    spec = MospSpec(instance, local_references(instance, time_limit / 4))
    details: dict = {"local_references": list(spec.references)}
    if any(spec.latest_completion(j) < p for j, p in enumerate(instance.lengths)):
        return Result(INFEASIBLE, None, None, None, solver, "references", time.monotonic() - began, details,
                      ("references",))
    certified, proof, best = _bound_and_incumbent(spec, began, time_limit, details, polish=solver != RACE)
    upper = spec.horizon if best is None else makespan(instance, best) - 1  # the caps left to decide
    method = "bounds" if certified > upper else "model"
    decided = _raced if solver == RACE else _searched_and_confirmed
    schedule, certified, proof = decided(spec, solver, certified, proof, upper, best, began, time_limit, details)
    value = None if schedule is None else makespan(instance, schedule)
    return _result(schedule, value, certified, proof, upper, solver, method, began, details)


def _searched_and_confirmed(spec: MospSpec, solver: str, certified: int, proof: tuple[str, ...], upper: int,
                            best: Schedule | None, began: float, time_limit: float,
                            details: dict) -> tuple[Schedule | None, int, tuple[str, ...]]:
    """One backend's cap search, its last refutation confirmed by another
    method: (best schedule, certified bound, its proof)."""
    decide = MODELS[solver].decide
    claimed, schedule = _search_caps(spec, decide, solver, certified, upper, best, began, time_limit)
    value = None if schedule is None else makespan(spec.instance, schedule)
    target = upper if value is None else value - 1  # the cap whose refutation makes the answer
    if claimed > certified and min(claimed - 1, target) >= certified:
        done = confirm(other_methods(MODELS, solver, lambda model, seconds: _cap_answer(
            spec, model.decide(spec, min(claimed - 1, target), seconds))), began + time_limit)
        details.update(done.details(claimed, solver, certified))
        if done.confirmed:
            certified, proof = min(claimed, target + 1), (solver, done.by)
        elif done.found is not None:  # the claim was false: a schedule under its cap exists
            schedule = done.found
    return schedule, certified, proof


def _raced(spec: MospSpec, solver: str, certified: int, proof: tuple[str, ...], upper: int,
           best: Schedule | None, began: float, time_limit: float,
           details: dict) -> tuple[Schedule | None, int, tuple[str, ...]]:
    """Both backends on the caps at once (``solvers.exact.race``): (best
    schedule, certified bound, its proof). The MILP's lane starts with the
    configuration LP's checked refutations (``relaxation_refutes``), a
    proof on their own for both lanes, from the bound up to the first cap
    it cannot refute (none above it can be), where CBC takes over. CP-SAT,
    the lane that finds the schedules at the bound, searches from the
    start: where the LP cannot refute the bound (a schedule meets it) it
    spent 2 to 3.5 s of CP-SAT's core in vain on 40-job instances of eight
    organizations of one machine (docs/development-notes.md)."""
    if certified > upper:
        return best, certified, proof
    cpsat_lane, milp_lane = model_lanes(MODELS, lambda model, cap, seconds: _cap_answer(
        spec, model.decide(spec, cap, seconds)))
    if spec.instance.selfish:
        milp_lane.insert(0, (milp_model.RELAXATION, lambda cap, seconds: _cap_answer(
            spec, milp_model.relaxation_refutes(spec, cap, seconds))))
        if best is not None:
            milp_lane.insert(0, (LOCAL_SEARCH, _local_search(
                spec, best, certified, began + LOCAL_SEARCH_SHARE * time_limit)))
    lanes = [cpsat_lane, milp_lane]
    outcome = race(lanes, certified, upper, best, lambda schedule: makespan(spec.instance, schedule),
                   began + time_limit)
    details.update(outcome.details)
    return outcome.schedule, outcome.bound, outcome.proof or proof


#: The local search's name in a race's lanes.
LOCAL_SEARCH = "local-search"


def _local_search(spec: MospSpec, best: Schedule, floor: int, deadline: float) -> CapQuestion:
    """The local search from ``best`` down to ``floor`` until ``deadline``,
    as the first method of the MILP's lane, so that CP-SAT searches beside
    it from the start on the other core; the LP and CBC follow it. A better
    schedule is the race's incumbent, whatever the cap asked (above it,
    the lane's next method takes the cap: ``solvers.exact.race``)."""
    def question(cap: int, seconds: float) -> tuple[str, Schedule | None]:
        found = improve(spec, best, floor, min(deadline, time.monotonic() + seconds))
        return (FEASIBLE, found) if found is not best else (UNKNOWN, None)
    return question


def _result(schedule: Schedule | None, value: int | None, certified: int, proof: tuple[str, ...], upper: int,
            solver: str, method: str, began: float, details: dict) -> Result:
    """The answer: optimal where the certified bound reaches the schedule's
    makespan; without a schedule, infeasible where the bound passes every
    cap left (``upper``), else unknown."""
    elapsed = time.monotonic() - began
    if schedule is None:
        status = INFEASIBLE if certified > upper else UNKNOWN
        return Result(status, None, None if status == INFEASIBLE else Fraction(certified), None,
                      solver, method, elapsed, details, proof)
    status = OPTIMAL if certified >= value else FEASIBLE
    return Result(status, Fraction(value), Fraction(min(certified, value)), schedule, solver, method, elapsed,
                  details, proof)


def _bound_and_incumbent(spec: MospSpec, began: float, time_limit: float, details: dict,
                         polish: bool) -> tuple[int, tuple[str, ...], Schedule | None]:
    """The certified lower bound (LB, or the relaxation's) and its proof,
    and the incumbent, brought down by the local search on selfish
    instances where ``polish`` (the race runs it in a lane instead:
    ``_local_search``); the relaxation's unconfirmed claim, if any,
    goes to ``details``."""
    relaxed, relaxed_schedule = relaxation(spec, time_limit / 4)
    best = incumbent(spec, (relaxed_schedule,), time_limit / 8)
    details.update(nested_unconfirmed([relaxed]))
    formula = spec.lower_bound()
    certified, proof = (formula, ("LB",)) if formula >= relaxed.bound else (relaxed.bound, relaxed.proof)
    if polish and spec.instance.selfish and best is not None:
        best = improve(spec, best, certified, began + LOCAL_SEARCH_SHARE * time_limit)
    return certified, proof, best


def _search_caps(spec: MospSpec, decide, solver: str, certified: int, upper: int, best: Schedule | None,
                 began: float, time_limit: float) -> tuple[int, Schedule | None]:
    """The caps from ``certified`` to ``upper`` within the search's share of
    the time: the lower bound they claim and the best schedule. CP-SAT
    gives the first cap (the certified bound, feasible whenever the bound
    is tight, and then the only way to a proof without a refutation) a
    quarter of the time and each further cap a tenth, the last cap left
    all the time there is (the MILP gives every cap all of it); when a cap
    stays undecided with others left, it minimises over the whole gap
    instead, which its own search crosses faster when the gap is wide."""
    search_end = began + SEARCH_SHARE * time_limit
    per_cap = (time_limit / 4, time_limit / 10) if solver == "cpsat" else (time_limit, time_limit)
    claimed, schedule, settled = _increasing_caps(spec, decide, certified, upper, search_end, best, *per_cap)
    if not settled and solver == "cpsat" and claimed < upper and time.monotonic() < search_end:
        claimed, schedule = _minimise(spec, decide, claimed, upper, search_end, schedule)
    return claimed, schedule


def _cap_answer(spec, outcome) -> tuple[str, Schedule | None]:
    return outcome.status, None if outcome.solution is None else _schedule(spec, outcome.solution)


def _minimise(spec, decide, lower: int, upper: int, deadline: float, best):
    """One model minimising the makespan over [lower, upper]: (claimed lower bound, best schedule)."""
    outcome = decide(spec, upper, deadline - time.monotonic(), floor=lower)
    if outcome.status == INFEASIBLE:
        return upper + 1, best
    if outcome.solution is None:
        return lower, best
    schedule = _schedule(spec, outcome.solution)
    return (makespan(spec.instance, schedule) if outcome.status == OPTIMAL else max(lower, outcome.bound)), schedule


def _increasing_caps(spec, decide, lower: int, upper: int, deadline: float, best, first_cap: float, per_cap: float):
    """C = lower, lower + 1, ... decided in turn, the first within
    ``first_cap`` seconds and each further one within ``per_cap``, the last
    one left (``upper``) within all the time there is: the first feasible C
    is optimal if every refutation holds.
    Returns (claimed lower bound, best schedule, settled), unsettled when a
    cap was left undecided."""
    budget = first_cap
    while lower <= upper and time.monotonic() < deadline:
        left = deadline - time.monotonic()
        outcome = decide(spec, lower, left if lower == upper else min(budget, left))
        budget = per_cap
        if outcome.status == INFEASIBLE:
            lower += 1
        elif outcome.solution is not None:
            return lower, _schedule(spec, outcome.solution), True
        else:
            return lower, best, False
    return lower, best, lower > upper


def _schedule(spec, solution: list[int]) -> Schedule:
    """The models' solution: machines, then starts."""
    n = len(spec.instance.lengths)
    return Schedule(tuple(solution[:n]), tuple(solution[n:]))
