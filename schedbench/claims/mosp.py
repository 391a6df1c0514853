"""The claims of the MOSP paper, checked against exact optima.

N is the number of organizations. The paper's setting has one machine per
organization (m = N; its §5 formulas assume it); claims marked ``.ext`` run
the same check on instances where some organization has more machines, to
see whether the claim survives them.
"""

from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from functools import cached_property

from schedbench.claims import PAPER, PROJECT, Check, Claim, NotProven, drawn_or_moved, generated_by
from schedbench.heuristics.mosp import PAPER_HEURISTICS as HEURISTICS, local_phase, local_rule
from schedbench.metrics.mosp import jain_index, makespan, stretch
from schedbench.model.mosp import MospInstance, Organization
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.mosp import alone_references, rule_references
from schedbench.validator import validate
from schedbench.validator.mosp import check as validate_mosp, local_values


class MospCase:
    """An instance with the schedules and exact optima the checks need, computed once."""

    def __init__(self, instance: MospInstance, solver: str = "cpsat", time_limit: float = 20.0):
        self.instance = instance
        self.solver = solver
        self.time_limit = time_limit
        self._solved: dict = {}

    def solved(self, objective: str = "makespan", **change):
        """The solver's result for ``objective`` on the instance with ``change``
        applied (e.g. ``selfish=False``): proven or not, as it came, its
        schedule validated. Without local rules the problem is P||Cmax: the
        portfolio."""
        key = (objective, tuple(sorted(change.items())))
        if key not in self._solved:
            inst = replace(self.instance, **change)
            solver = "portfolio" if objective == "unconstrained-makespan" else self.solver
            result = solve(inst, objective, solver, self.time_limit)
            references = rule_references(inst, self.time_limit, objective)
            if result.schedule is not None and validate(inst, result.schedule, objective, references):
                raise AssertionError(f"{inst.name}: invalid {objective} schedule from {solver}")
            self._solved[key] = result
        return self._solved[key]

    def optimum(self, objective: str = "makespan", **change) -> int:
        result = self.solved(objective, **change)
        if result.status != OPTIMAL:
            raise NotProven(f"{objective} {change}")
        return int(result.objective)

    @cached_property
    def heuristic_schedules(self) -> dict:
        return {name: run(self.instance) for name, run in HEURISTICS.items()}

    @cached_property
    def schedules(self) -> dict:
        """Each heuristic's schedule, and the optimal one under ``"optimum"``."""
        self.optimum()
        return {**self.heuristic_schedules, "optimum": self.solved().schedule}

    @cached_property
    def alone(self) -> tuple[int, ...]:
        """C^(k)alone, Stretch's denominators, proven by the engine."""
        found = alone_references(self.instance, self.time_limit)
        if found["alone"] is None:  # a C_alone not proven in time
            raise NotProven(found["alone_unproven"])
        return found["alone"]

    def stretch(self, name: str) -> Fraction:
        return stretch(self.instance, self.schedules[name], self.alone)


def one_machine_each(inst) -> bool:
    return all(org.machines == 1 for org in inst.organizations)


random_instance = drawn_or_moved("mosp-small")


def _n(inst) -> int:
    return inst.n_organizations


def _exact(pairs: dict[str, tuple[int, Fraction]]) -> Check:
    """Observed values that must equal the paper's: the ratio is the worst
    factor between an observed value and its expected one."""
    ratio = max(max(Fraction(a, b), Fraction(b, a)) for a, b in pairs.values())
    return Check(all(a == b for a, b in pairs.values()), ratio,
                 {key: f"{a} (paper {b})" for key, (a, b) in pairs.items()})


# --- §4.4: 2-approximation, selfishness -----------------------------------

def graham(name: str | None = None, objective: str = "makespan") -> Callable[[MospCase], Check]:
    """§4.4: the heuristic's makespan (the worst of the four when ``name`` is
    None) is within 2 - 1/m of the optimum of ``objective``: 2 - 1/N in the
    paper's setting (m = N), Graham's list-scheduling bound on m machines
    beyond it. Graham's argument compares with the optimum without local
    rules, a lower bound of OPT: the stronger check."""
    def check(case: MospCase) -> Check:
        inst = case.instance
        runs = case.heuristic_schedules
        worst = name or max(HEURISTICS, key=lambda h: makespan(inst, runs[h]))
        value, optimum = makespan(inst, runs[worst]), case.optimum(objective)
        bound = (2 - Fraction(1, inst.machines)) * optimum
        return Check(value <= bound, value / bound, {worst: value, f"OPT {objective}": optimum, "m": inst.machines})
    return check


def selfish_and_local(case: MospCase) -> Check:
    """§4.4: every heuristic keeps the local constraints against its own local
    schedule and the selfishness restriction."""
    inst = case.instance
    broken = {}
    for name in HEURISTICS:
        own = local_values(inst, local_phase(inst, local_rule(name, inst)))
        violations = validate_mosp(inst, case.heuristic_schedules[name], references=own, selfish=True)
        if violations:
            broken[name] = str(violations[0])
    return Check(not broken, None, broken)


# --- §5: fairness ---------------------------------------------------------

def stretch_bound(case: MospCase) -> Check:
    """§5.1: Stretch <= N for every schedule keeping the local constraints
    (the four heuristics' and the optimal one)."""
    n = _n(case.instance)
    name = max(case.schedules, key=case.stretch)
    value = case.stretch(name)
    return Check(value <= n, value / n, {"schedule": name, "Stretch": value, "N": n})


def stretch_tight(case: MospCase) -> Check:
    """§5.1: on N organizations with N unit jobs each, Stretch = N."""
    n = _n(case.instance)
    return _exact({name: (case.stretch(name), Fraction(n)) for name in case.schedules})


def jain_range(case: MospCase) -> Check:
    """§5.2: the Jain index lies in [1/N, 1]."""
    n = _n(case.instance)
    values = {name: jain_index(case.instance, s) for name, s in case.schedules.items()}
    name = max(values, key=lambda h: max(values[h], 1 / (n * values[h])))
    value = values[name]
    ratio = max(value, 1 / (n * value))
    return Check(Fraction(1, n) <= value <= 1, ratio, {"schedule": name, "Jain": value, "N": n})


# --- §3: lower bounds and hardness ------------------------------------------

def prop1(case: MospCase) -> Check:
    """Prop. 1 (Fig. 1): under selfishness the optimum is 2N, against N + 1
    without local rules."""
    n = _n(case.instance)
    return _exact({"OPT selfish": (case.optimum(), 2 * n),
                   "OPT unconstrained": (case.optimum("unconstrained-makespan"), n + 1)})


def figure1c(case: MospCase) -> Check:
    """§3.1 (Fig. 1(c)): with local constraints only, "whenever the local
    objective is the makespan or the average completion time", the best
    makespan is 3N/2 (rounded up for odd N)."""
    n = _n(case.instance)
    return _exact({"OPT local only": (case.optimum(selfish=False), -(-3 * n // 2))})


def prop2(case: MospCase) -> Check:
    """Fig. 2: under selfishness the optimum is 2N - 2, against N with local
    constraints only: ratio 2 - 2/N."""
    n = _n(case.instance)
    return _exact({"OPT selfish": (case.optimum(), 2 * n - 2), "OPT local only": (case.optimum(selfish=False), n)})


def theorem2(case: MospCase) -> Check:
    """Theorem 2: the 3-PARTITION instance is a yes-instance iff the
    reduction's optimum is <= L. One proven side is enough: a schedule
    within L, or a bound above it."""
    inst = case.instance
    threshold, answer = inst.meta["threshold"], inst.meta["answer"]
    result = case.solved()
    if result.objective is not None and result.objective <= threshold:
        within = True
    elif result.bound is not None and result.bound > threshold:
        within = False
    else:
        raise NotProven("the reduction's optimum against L")
    return Check(within == (answer == "yes"), None,
                 {"3-PARTITION": answer, "MOSP": result.status, "value": result.objective,
                  "bound": result.bound, "L": threshold})


def answer(value: str) -> Callable[[MospInstance], bool]:
    return lambda inst: inst.meta.get("generator") == "mosp-two-jobs" and inst.meta.get("answer") == value


CLAIMS = [
    *(Claim(f"mosp.graham.{name}", f"§4.4: {name} makespan <= (2 - 1/N) OPT, one machine each", one_machine_each,
            graham(name), PAPER) for name in HEURISTICS),
    Claim("mosp.graham.unconstrained", "§4.4 read strictly: worst heuristic <= (2 - 1/N) OPT without local rules, one machine each",
          one_machine_each, graham(objective="unconstrained-makespan"), PROJECT),
    Claim("mosp.graham.ext", "§4.4 beyond one machine each: worst heuristic <= (2 - 1/m) OPT",
          lambda inst: not one_machine_each(inst), graham(), PROJECT),
    Claim("mosp.graham.ext.unconstrained", "§4.4 beyond one machine each, against OPT without local rules: worst <= (2 - 1/m) OPT",
          lambda inst: not one_machine_each(inst), graham(objective="unconstrained-makespan"), PROJECT),
    Claim("mosp.selfish", "§4.4: all four keep their local constraints and selfishness (yes/no)", lambda inst: True,
          selfish_and_local, PAPER),
    Claim("mosp.stretch", "§5.1: Stretch <= N (heuristics and optimum), local cmax, one machine each",
          lambda inst: inst.local_objective == "cmax" and one_machine_each(inst), stretch_bound, PAPER),
    Claim("mosp.stretch.ext", "§5.1 beyond one machine each: Stretch <= N, local cmax",
          lambda inst: inst.local_objective == "cmax" and not one_machine_each(inst), stretch_bound, PROJECT),
    Claim("mosp.stretch.tight", "§5.1: N orgs x N unit jobs, Stretch = N", generated_by("stretch-tight"),
          stretch_tight, PAPER),
    Claim("mosp.jain", "§5.2: Jain index in [1/N, 1] (heuristics and optimum)", lambda inst: True, jain_range, PAPER),
    Claim("mosp.prop1", "Prop. 1 (Fig. 1): OPT selfish = 2N, OPT unconstrained = N + 1", generated_by("figure1"),
          prop1, PAPER),
    Claim("mosp.fig1c", "§3.1 (Fig. 1(c)): OPT with local constraints only = 3N/2, local cmax",
          lambda inst: generated_by("figure1")(inst) and inst.local_objective == "cmax", figure1c, PAPER),
    Claim("mosp.fig1c.sum_ci", "§3.1 (Fig. 1(c)) with local sum_ci (the paper: \"or the average completion time\"): OPT = 3N/2",
          lambda inst: generated_by("figure1")(inst) and inst.local_objective == "sum_ci", figure1c, PAPER),
    Claim("mosp.prop2", "Prop. 2 (Fig. 2): OPT selfish = 2N - 2, local only = N", generated_by("figure2"), prop2, PAPER),
    Claim("mosp.thm2.yes", "Thm. 2: 3-PARTITION yes => reduction's OPT <= L (yes/no)", answer("yes"), theorem2, PAPER),
    Claim("mosp.thm2.no", "Thm. 2: 3-PARTITION no => reduction's OPT > L (yes/no)", answer("no"), theorem2, PAPER),
]


def smaller_instances(inst: MospInstance) -> Iterator[MospInstance]:
    """One-step reductions, biggest first (for shrinking): drop an
    organization, a machine, a job; shorten a job. The paper's
    constructions are not shrunk: their claims are about them exactly."""
    if not random_instance(inst):
        return
    orgs = list(inst.organizations)

    def rebuild(new_orgs):
        return replace(inst, organizations=tuple(new_orgs))

    if len(orgs) > 2:
        for k in range(len(orgs)):
            yield rebuild(orgs[:k] + orgs[k + 1:])
    for k, org in enumerate(orgs):
        if org.machines > 1:
            yield rebuild(orgs[:k] + [Organization(org.machines - 1, org.jobs)] + orgs[k + 1:])
    for k, org in enumerate(orgs):
        for j, p in enumerate(org.jobs):
            if len(inst.lengths) > 1:
                yield rebuild(orgs[:k] + [Organization(org.machines, org.jobs[:j] + org.jobs[j + 1:])] + orgs[k + 1:])
            for shorter in sorted({1, p // 2, p - 1} - {0, p}):
                jobs = org.jobs[:j] + (shorter,) + org.jobs[j + 1:]
                yield rebuild(orgs[:k] + [Organization(org.machines, jobs)] + orgs[k + 1:])
