"""MILP MOSP models through PuLP/CBC (see ``solvers.mosp``).

Without selfishness, time-indexed: x[j,t] = 1 iff job j starts at t; only
starts meeting the job's latest completion exist. Machines are
interchangeable (local constraints only see completion times): one pool of
capacity m replaces them, as in the CP-SAT model, and ``assign_machines``
restores the machines.

With selfishness, the prefix form (the CP-SAT model's, where it is
derived): each machine q of organization k runs k's jobs placed on it
first, from 0 without a gap and shortest first, P_q in all; foreign jobs
start after P_q; every job of k starts by min over k's machines of P_q.
As configurations (a Dantzig-Wolfe reformulation of each organization's
own side): a configuration of k is which of its jobs each of its machines
keeps, hence its loads P_q, the time all its jobs start by, and the sum of
completions of the jobs kept; the rest it exports. The model chooses one
configuration per organization, enumerated beforehand
(``configurations_of``), and time-indexes the exported jobs on the
machines of the others, x[j,q,t]: a machine is busy at t < P_q under the
configuration chosen, or runs one exported job; an exported job starts at t
only under a configuration ready by t or later. What the sum of completions
and the rule do to one organization is then exact in the LP relaxation,
which the earlier form (placements y[i,q] and a busy indicator per machine
and instant) left to branching: CBC refuted in 0.04 to 1.5 s every cap of
20-job instances it left undecided in 10 s in that form.
"""

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import pulp

from schedbench.errors import ModelTooLarge
from schedbench.metrics.mosp.configuration_lp import CapMultipliers, refutes, within_budget
from schedbench.result import INFEASIBLE
from schedbench.solvers.exact.certificate import checked_refutation
from schedbench.solvers.exact.machines import assign_machines
from schedbench.solvers.exact.stopping import stop_requested
from schedbench.solvers.milp import UNKNOWN, affordable, run
from schedbench.solvers.milp.farkas import farkas_weights
from schedbench.solvers.exact.outcome import ModelOutcome


def decide(spec, cap: int, time_limit: float) -> ModelOutcome:
    """A valid schedule with makespan <= ``cap``, or a refutation, as the CP-SAT model."""
    horizon = min(cap, spec.horizon)
    problem = pulp.LpProblem("mosp", pulp.LpMinimize)  # no objective: a feasibility question
    if not spec.instance.selfish:
        return _pooled(problem, spec, horizon, time_limit)
    built = _selfish(problem, spec, horizon, time_limit)
    if isinstance(built, ModelOutcome):
        return built
    values, deadline = built
    left = deadline - time.monotonic()
    if left <= 0:
        return UNKNOWN
    outcome = run(problem, left, values)
    n = len(spec.instance.lengths)
    if outcome.solution is not None:
        outcome.solution = outcome.solution[:n] + _prefix_starts(spec, outcome.solution[:n], outcome.solution[n:])
    return outcome


def relaxation_refutes(spec, cap: int, time_limit: float) -> ModelOutcome:
    """The selfish model's LP relaxation at ``cap``: status
    ``CONFIGURATION_LP`` where it is infeasible and its Farkas weights
    (``solvers.milp.farkas``), floored to multiples of 2^-20, pass the
    exact check of ``metrics.mosp.configuration_lp``, which enumerates the
    configurations by its own code; unknown otherwise, and at once where
    an organization's configurations may not fit the check's budget
    (``within_budget``). A larger cap only adds columns to the relaxation,
    and rows every point of the smaller cap meets, so the first cap it does
    not refute ends what it can refute. On the held-out eight-organization
    sum_ci line the relaxation is infeasible on 5 of the 6 caps CBC
    refutes there and CP-SAT's model does not within a minute (GLOP's
    phase 1 takes 1.3 to 3.5 s on three of them, 43 to 51 jobs)."""
    horizon = min(cap, spec.horizon)
    if not spec.instance.selfish or not within_budget(spec.instance):  # the check could not end: not built
        return UNKNOWN
    deadline = time.monotonic() + time_limit
    problem = pulp.LpProblem("mosp", pulp.LpMinimize)
    try:
        built = _selfish(problem, spec, horizon, time_limit)
    except ModelTooLarge:
        return UNKNOWN
    if isinstance(built, ModelOutcome):  # refuted by the model's enumeration: the check enumerates again
        refuted = built.status == INFEASIBLE and refutes(spec.instance, spec.references, horizon,
                                                          CapMultipliers({}, {}, {}), deadline)
    else:
        refuted = _checked(problem, spec, horizon, deadline)
    return ModelOutcome(CONFIGURATION_LP, None, None, None) if refuted else UNKNOWN


def _pooled(problem, spec, horizon: int, time_limit: float) -> ModelOutcome:
    """The time-indexed model in one pool of m machines; CBC gets what its building left of ``time_limit``."""
    deadline = time.monotonic() + time_limit
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    n = len(lengths)
    latest = [min(spec.latest_completion(j), horizon) for j in range(n)]
    if not affordable(sum(max(0, latest[j] - p + 1) * p for j, p in enumerate(lengths)), time_limit):
        return UNKNOWN
    x = {(j, t): problem.add_variable(f"x_{j}_{t}", cat=pulp.LpBinary)
         for j, p in enumerate(lengths) for t in range(latest[j] - p + 1)}
    of_job: list[list[tuple[int, object]]] = [[] for _ in range(n)]
    running: dict[int, list] = {}
    for (j, t), v in x.items():
        of_job[j].append((t, v))
        for tau in range(t, t + lengths[j]):
            running.setdefault(tau, []).append(v)
    for j in range(n):
        problem += pulp.lpSum(v for _, v in of_job[j]) == 1, f"once_{j}"
    start = [pulp.lpSum(t * v for t, v in of_job[j]) for j in range(n)]
    for a, b in spec.twins():
        problem += start[a] <= start[b], f"twins_{a}_{b}"
    for t, active in running.items():
        if len(active) > m:
            problem += pulp.lpSum(active) <= m, f"machines_{t}"
    if inst.local_objective == "sum_ci":
        for k, ref in enumerate(spec.references):
            problem += pulp.lpSum(start[j] + lengths[j] for j in inst.job_slice(k)) <= ref, f"local_{k}"
    left = deadline - time.monotonic()
    if left <= 0:
        return UNKNOWN
    outcome = run(problem, left, start)
    if outcome.solution is not None:
        outcome.solution = assign_machines(outcome.solution, lengths, m) + outcome.solution
    return outcome


def _selfish(problem, spec, horizon: int, time_limit: float) -> tuple[list, float] | ModelOutcome:
    """The configuration model (module docstring) built into ``problem``:
    one configuration per organization, exported jobs time-indexed on the
    machines of others. Returns what reads the schedule back (each job's
    machine, then its start) and the deadline, or the outcome that ends
    the question before any solver runs (unknown past the limits,
    infeasible where an organization has no configuration)."""
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    owner, home = inst.owner_of_job, inst.owner_of_machine
    if not affordable(m * horizon, time_limit):
        return UNKNOWN
    deadline = time.monotonic() + time_limit
    enumerated_by = deadline - time_limit / 2  # as ``affordable``: half the time to build the model
    configurations = _every_organizations_configurations(spec, horizon, enumerated_by)
    if isinstance(configurations, ModelOutcome):
        return configurations
    latest = [min(spec.latest_completion(j), horizon) for j in range(len(lengths))]
    exportable = sorted({j for found in configurations for c in found for j in c.exported})
    windows = {j: latest[j] - lengths[j] + 1 for j in exportable}
    if not affordable(_coefficients(inst, configurations, windows), time_limit):
        return UNKNOWN
    chosen = [[problem.add_variable(f"c_{k}_{i}", cat=pulp.LpBinary) for i in range(len(found))]
              for k, found in enumerate(configurations)]
    x = {(j, q, t): problem.add_variable(f"x_{j}_{q}_{t}", cat=pulp.LpBinary)
         for j in exportable for q in range(m) if home[q] != owner[j] for t in range(windows[j])}
    for k, options in enumerate(chosen):
        problem += pulp.lpSum(options) == 1, f"one_{k}"
    occupied, exported_by, machine = _configuration_terms(inst, configurations, chosen, exportable)
    placements = _placement_terms(x, lengths, exportable, occupied, machine)
    _add_machine_and_export_rows(problem, occupied, exported_by, placements, windows)
    if inst.local_objective == "sum_ci":
        for k, found in enumerate(configurations):
            problem += pulp.lpSum(c.own_completions * v for c, v in zip(found, chosen[k])) + pulp.lpSum(
                (t + lengths[j]) * v for j in exportable if owner[j] == k for _, t, v in placements[j]
            ) <= spec.references[k], f"local_{k}"
    starts = [pulp.lpSum(t * v for _, t, v in placements.get(j, [])) for j in range(len(lengths))]
    return [pulp.lpSum(terms) for terms in machine] + starts, deadline


#: The name of the relaxation's checked refutation (in proofs), and the
#: status of a cap it refutes (``relaxation_refutes``).
RELAXATION = "configuration-lp"
CONFIGURATION_LP = checked_refutation(RELAXATION)


def _checked(problem, spec, horizon: int, deadline: float) -> bool:
    """Whether the LP relaxation of the built ``problem`` is infeasible,
    its Farkas weights passing the exact check (``relaxation_refutes``)."""
    weights = farkas_weights(problem, deadline - time.monotonic())
    if weights is None:
        return False
    rows: dict[str, dict] = {"machine": {}, "ready": {}, "local": {}}  # the rows' names, as built above
    for name, weight in weights.items():
        kind, *key = name.split("_")
        if kind in rows and 0 < weight < math.inf:
            rows[kind][tuple(map(int, key)) if len(key) > 1 else int(key[0])] = Fraction(
                math.floor(weight * DYADIC), DYADIC)
    multipliers = CapMultipliers(rows["machine"], rows["ready"], rows["local"])
    return refutes(spec.instance, spec.references, horizon, multipliers, deadline)


#: The weights' denominator: floats floored to multiples of 2^-20 (as the arc-flow dual's check).
DYADIC = 2 ** 20


def _every_organizations_configurations(spec, horizon: int,
                                        deadline: float) -> list[list["Configuration"]] | ModelOutcome:
    """``configurations_of`` each organization, or the outcome that ends the
    model before it is built: unknown past the limits or ``deadline``,
    infeasible where an organization cannot place its jobs under the cap at all."""
    configurations = []
    for k in range(spec.instance.n_organizations):
        found = configurations_of(spec, k, horizon, deadline)
        if found is None:
            return UNKNOWN
        if not found:
            return ModelOutcome(INFEASIBLE, None, None, None)
        configurations.append(found)
    return configurations


def _coefficients(inst, configurations: list[list["Configuration"]], windows: dict[int, int]) -> int:
    """The model's size, for ``affordable``: each x in its machine rows (its
    length) and ready rows (up to its window), and each configuration in the
    machine rows of its loads and the ready rows of its exports (up to its
    ready time)."""
    lengths, m, owner = inst.lengths, inst.machines, inst.owner_of_job
    size = sum(window * (m - len(inst.machine_slice(owner[j]))) * (lengths[j] + window)
               for j, window in windows.items())
    size += sum(sum(c.loads) + sum(min(c.ready, windows[j]) + 1 for j in c.exported)
                for found in configurations for c in found)
    return size


def _configuration_terms(inst, configurations: list[list["Configuration"]], chosen: list[list],
                         exportable: list[int]) -> tuple[dict[tuple[int, int], list], dict[int, list], list[list]]:
    """The configurations' variables in the rows: (q, t) -> what runs on q
    at t (a configuration whose load on q passes t), j -> (ready, variable)
    per configuration exporting j, and j -> its machine's terms, to read the
    schedule back."""
    occupied: dict[tuple[int, int], list] = {}
    exported_by: dict[int, list] = {j: [] for j in exportable}
    machine: list[list] = [[] for _ in inst.lengths]
    for k, found in enumerate(configurations):
        mine = inst.machine_slice(k)
        for c, v in zip(found, chosen[k]):
            for q, load in zip(mine, c.loads):
                for t in range(load):
                    occupied.setdefault((q, t), []).append(v)
            for j in c.exported:
                exported_by[j].append((c.ready, v))
            for j, q in c.machine.items():
                machine[j].append(q * v)
    return occupied, exported_by, machine


def _placement_terms(x: dict[tuple[int, int, int], object], lengths, exportable: list[int],
                     occupied: dict[tuple[int, int], list], machine: list[list]) -> dict[int, list]:
    """j -> (q, t, variable) per placement of the exported job j; each
    placement also joins ``occupied`` where it runs and j's ``machine`` terms."""
    placements: dict[int, list] = {j: [] for j in exportable}
    for (j, q, t), v in x.items():
        placements[j].append((q, t, v))
        machine[j].append(q * v)
        for tau in range(t, t + lengths[j]):
            occupied.setdefault((q, tau), []).append(v)
    return placements


def _add_machine_and_export_rows(problem, occupied: dict[tuple[int, int], list], exported_by: dict[int, list],
                                 placements: dict[int, list], windows: dict[int, int]) -> None:
    """One job at a time on a machine; an exported job placed once where a
    configuration exports it, and no later than that configuration is ready."""
    for (q, t), running in occupied.items():
        if len(running) > 1:
            problem += pulp.lpSum(running) <= 1, f"machine_{q}_{t}"
    for j, window in windows.items():
        problem += pulp.lpSum(v for _, _, v in placements[j]) == pulp.lpSum(v for _, v in exported_by[j]), f"out_{j}"
        for t in range(1, window):  # starting at t or later needs a configuration ready by t or later
            problem += pulp.lpSum(v for _, start, v in placements[j] if start >= t) <= pulp.lpSum(
                v for ready, v in exported_by[j] if ready >= t), f"ready_{j}_{t}"


@dataclass(frozen=True)
class Configuration:
    """One organization's own side of a selfish schedule: the machine of
    each job it keeps, its machines' prefix loads (non-increasing), the time
    by which all its jobs start (``ready``, the least load), the sum of
    completions of the jobs it keeps, and the jobs it exports."""
    machine: dict[int, int]
    loads: tuple[int, ...]
    own_completions: int
    exported: tuple[int, ...]

    @property
    def ready(self) -> int:
        return min(self.loads)


#: Configurations of one organization beyond which the model is not built
#: (the answer is unknown): the model grows with them.
MAX_CONFIGURATIONS = 20_000


def configurations_of(spec, k: int, horizon: int, deadline: float) -> list[Configuration] | None:
    """Every configuration of organization k the rule and the cap allow,
    None past ``MAX_CONFIGURATIONS``, past ``deadline`` (a monotonic
    time) or once its stop request is set (``solvers.exact.stopping``).
    Jobs of one length are interchangeable, so only how many of each
    length go to each machine (or out) is chosen, the lowest indexes on the
    first machines and the highest exported; of configurations with the
    same loads and exports, only the least own completions is kept (the
    others are never better). Pruned as it goes: loads within the cap (and
    ref_k for cmax), and for sum_ci, the completions so far plus every job
    left at its length within ref_k. Every order of the machines is tried
    and only non-increasing loads kept at the end: an organization with
    three machines and 14 jobs takes seconds."""
    inst = spec.instance
    lengths, ref = inst.lengths, spec.references[k]
    mine = inst.machine_slice(k)
    by_length: dict[int, list[int]] = {}
    for j in spec.prefix_order(k):
        by_length.setdefault(lengths[j], []).append(j)
    groups = sorted(by_length.items())
    work = sum(lengths[j] for j in inst.job_slice(k))
    limit = horizon if inst.local_objective == "sum_ci" else min(horizon, ref)
    best: dict[tuple, Configuration] = {}

    def extend(g: int, loads: tuple[int, ...], last: tuple[int, ...], machine: dict[int, int],
               exported: tuple[int, ...], completions: int) -> bool:
        """Lengths from ``groups[g]`` on; ``last``: per machine, the length of its last (longest) job so far."""
        if g == len(groups):
            ready = min(loads)  # the rule: each machine's last job starts (load - last) by the least load
            if all(a >= b for a, b in zip(loads, loads[1:])) and all(load - p <= ready for load, p in zip(loads, last)):
                key = (loads, exported)
                if key not in best or completions < best[key].own_completions:
                    best[key] = Configuration(machine, loads, completions, exported)
            return len(best) <= MAX_CONFIGURATIONS
        p, jobs = groups[g]
        for counts in _splits(len(jobs), len(mine)):
            if time.monotonic() > deadline or stop_requested():
                return False
            grown, ended, placed, total, i = list(loads), list(last), dict(machine), completions, 0
            for b, count in enumerate(counts):
                for _ in range(count):
                    grown[b] += p
                    total += grown[b]
                    placed[jobs[i]] = mine[b]
                    i += 1
                if count:
                    ended[b] = p
            out = exported + tuple(jobs[i:])
            if max(grown) > limit or (i < len(jobs) and p > limit):
                continue
            if inst.local_objective == "sum_ci" and total + work - sum(grown) > ref:  # the rest at least its lengths
                continue
            if not extend(g + 1, tuple(grown), tuple(ended), placed, out, total):
                return False
        return True

    if not extend(0, (0,) * len(mine), (0,) * len(mine), {}, (), 0):
        return None
    return list(best.values())


def _splits(count: int, machines: int) -> Iterator[tuple[int, ...]]:
    """Ways to give ``count`` jobs of one length to the machines, the rest exported."""
    if machines == 0:
        yield ()
        return
    for first in range(count + 1):
        for rest in _splits(count - first, machines - 1):
            yield (first, *rest)


def _prefix_starts(spec, machine: list[int], start: list[int]) -> list[int]:
    """Starts with each own-machine job at its place in its prefix
    (``MospSpec.prefixes``); the exported jobs keep theirs."""
    inst = spec.instance
    prefix, _ = spec.prefixes(machine)
    return [prefix[j] if inst.owner_of_job[j] == inst.owner_of_machine[q] else s
            for j, (q, s) in enumerate(zip(machine, start))]
