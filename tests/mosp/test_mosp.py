"""Multi-organization scheduling and 3-PARTITION: formats, the validator's
rules, the paper's heuristics, both exact backends, the paper's examples."""

import dataclasses
import json
from fractions import Fraction

import pytest

from schedbench.errors import InstanceError
from schedbench.heuristics.mosp import HEURISTICS, local_phase, local_rule
from schedbench.instances.mosp import (figure1, figure2, mosp_two_jobs, paper_workload, planted_three_partition,
                                       random_small, random_three_partition)
from schedbench.metrics.mosp import jain_index, lower_bound, makespan, stretch
from schedbench.families import violations
from schedbench.solvers.mosp import RACE, MospSpec, alone_optima, local_references
from schedbench.model import instance_to_json, parse_instance
from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL
from schedbench.schedule import Schedule
from schedbench.solvers import solve
from schedbench.validator import validate
from schedbench.validator.mosp import check, local_values

from conftest import run_cli, write_json
from mosp_literal_model import least_makespan
from schedbench.families import model_backends

MOSP = {"family": "mosp", "format_version": 1, "local_objective": "cmax",
        "organizations": [{"machines": 1, "jobs": [3, 3]}, {"machines": 2, "jobs": [1]}]}


def test_mosp_round_trip_defaults_and_numbering():
    inst = parse_instance(MOSP)
    assert inst.local_reference == "optimal" and inst.selfish is False
    assert inst.lengths == (3, 3, 1) and inst.machines == 3
    assert list(inst.machine_slice(1)) == [1, 2] and inst.owner_of_job == (0, 0, 1)
    assert parse_instance(json.loads(json.dumps(instance_to_json(inst)))) == inst


@pytest.mark.parametrize("change,field", [
    ({"local_objective": "flow"}, "local_objective"),
    ({"local_reference": "best"}, "local_reference"),
    ({"selfish": 1}, "selfish"),
    ({"organizations": [{"machines": 0, "jobs": [1]}]}, "organizations[0].machines"),
    ({"organizations": [{"machines": 1, "jobs": [1, 0]}]}, "organizations[0].jobs[1]"),
])
def test_bad_mosp_instances_name_the_field(change, field):
    with pytest.raises(InstanceError) as err:
        parse_instance(dict(MOSP, **change))
    assert err.value.field == field


@pytest.mark.parametrize("items,field", [
    ([6, 7, 7, 6, 7], "items"),            # not 3q items
    ([6, 7, 7, 6, 7, 8], "items"),         # sum is not qB
    ([5, 7, 8, 6, 7, 7], "items[0]"),      # 5 = B/4 is not strictly inside (B/4, B/2)
    ([10, 5, 5, 6, 7, 7], "items[0]"),     # 10 = B/2
])
def test_three_partition_rejects_off_spec_items(items, field):
    with pytest.raises(InstanceError) as err:
        parse_instance({"family": "three_partition", "format_version": 1, "bound": 20, "items": items})
    assert err.value.field == field


def test_validator_catches_local_and_selfish_violations():
    inst = parse_instance(dict(MOSP, selfish=True))
    assert local_references(inst, 10) == (6, 1)
    # org 1's unit job waits behind org 0's job on org 1's own machine: local constraint broken
    late = Schedule((0, 1, 1), (0, 0, 3))
    assert [v.rule for v in violations(inst, late, None)] == ["local-constraint", "selfishness"]
    # a foreign job starts on org 0's machine before org 0's own second job: selfishness (a)
    early_foreign = Schedule((0, 1, 0), (1, 0, 0))
    rules = [v.rule for v in check(inst, early_foreign, references=[6, 1])]
    assert "selfishness" in rules
    # org 0's second job waits while org 0's machine idles: selfishness (b)
    idle = Schedule((0, 1, 2), (4, 0, 0))
    assert [v.rule for v in check(inst, idle, references=[7, 1])] == ["selfishness"]
    assert check(inst, idle, references=[7, 1], selfish=False) == []
    assert violations(inst, Schedule((0, 1, 2), (0, 0, 0)), None) == []


def test_three_partition_certificates_are_checked():
    inst = planted_three_partition(3, 40, seed=1)
    good = tuple(tuple(t) for t in inst.meta["certificate"])
    assert validate(inst, good) == []
    ordered = sorted(range(9), key=inst.items.__getitem__)
    lopsided = (tuple(ordered[:3]), tuple(ordered[3:6]), tuple(ordered[6:]))  # smallest three sum below B
    assert "triple-sum" in {v.rule for v in validate(inst, lopsided)}
    assert {v.rule for v in validate(inst, (good[0], good[0], good[2]))} == {"item-twice", "item-missing"}


@pytest.mark.parametrize("objective", ["cmax", "sum_ci"])
def test_heuristics_keep_local_constraints_and_selfishness(objective):
    """§4.4's claim, on 300 random instances: no job is delayed against the
    heuristic's own local schedule and selfishness holds."""
    for seed in range(300):
        inst = random_small(seed, organizations=(2, 4), machines=(1, 3), jobs=(0, 5), length=(1, 9),
                            local_objective=objective, selfish=True)
        for name, run in HEURISTICS.items():
            references = local_values(inst, local_phase(inst, local_rule(name, inst)))
            assert check(inst, run(inst), references=references) == [], (name, seed)


def test_heuristics_on_the_paper_examples():
    for n in range(2, 7):
        for run in HEURISTICS.values():
            assert makespan(figure1(n), run(figure1(n))) == 2 * n
            assert makespan(figure2(n), run(figure2(n))) == 2 * n - 2


def test_metrics_exact():
    inst = parse_instance(MOSP)
    schedule = Schedule((0, 1, 2), (0, 0, 0))
    assert makespan(inst, schedule) == 3 and lower_bound(inst) == 3
    # org 0 alone on all 3 machines: 3; org 1: 1
    assert stretch(inst, schedule, alone_optima(inst, 10)) == 1
    assert jain_index(inst, schedule) == 1
    serial = Schedule((0, 0, 2), (0, 3, 0))  # x = (6/3, 1/1): Jain (2+1)^2 / (2 (4+1))
    assert jain_index(inst, serial) == Fraction(9, 10) and stretch(inst, serial, alone_optima(inst, 10)) == 2


def _agree(inst, objective=None):
    """Each backend, and both at once where the objective has caps to race on, give one answer."""
    solvers = ["cpsat", "milp"] + ([RACE] if objective != "unconstrained-makespan" else [])
    a, *others = [solve(inst, objective, solver, 30) for solver in solvers]
    for b in others:
        assert a.status == b.status, inst
        if a.status == OPTIMAL:
            assert a.objective == b.objective, inst
    for result in (a, *others):
        if result.schedule is not None:
            assert violations(inst, result.schedule, objective) == []
    return a


@pytest.mark.parametrize("objective,selfish", [("cmax", False), ("cmax", True), ("sum_ci", False), ("sum_ci", True)])
def test_cpsat_and_milp_agree_on_random_instances(objective, selfish):
    """At least 200 random instances in all (50 per variant); each backend
    proves every one, and the models (not only the bounds) decide many."""
    by_model = 0
    for seed in range(50):
        inst = random_small(1000 + seed, organizations=(2, 3), machines=(1, 2), jobs=(0, 4), length=(1, 9),
                            local_objective=objective, selfish=selfish)
        result = _agree(inst)
        assert result.status == OPTIMAL
        by_model += result.method == "model"
    assert by_model >= 2


@pytest.mark.parametrize("objective", ["cmax", "sum_ci"])
def test_cap_models_agree_at_the_frontier_s_sizes(objective):
    """The selfish cap models at about 20 jobs (4 organizations, 1 or 2
    machines each), where the MILP's configuration model decides what its
    earlier form left open: on 5 instances per local objective, every cap
    from the bound up to the first feasible one gets the same answer from
    CP-SAT and the MILP, each MILP schedule passes the validator within
    its cap, and some cap below the optimum is refuted by both; the
    configuration LP's checked refutation comes only where they refute,
    and on some cap."""
    from schedbench.solvers.cpsat import mosp as cpsat_mosp
    from schedbench.solvers.milp import mosp as milp_mosp

    refuted = by_lp = 0
    for seed in range(5):
        inst = random_small(3100 + seed, organizations=(4, 4), machines=(1, 2), jobs=(4, 6), length=(1, 9),
                            local_objective=objective, selfish=True)
        spec = MospSpec(inst, local_references(inst, 10))
        for cap in range(spec.lower_bound(), spec.horizon + 1):
            a, b = cpsat_mosp.decide(spec, cap, 20), milp_mosp.decide(spec, cap, 20)
            assert a.status == b.status or a.solution is not None and b.solution is not None, (seed, cap)
            relaxed = milp_mosp.relaxation_refutes(spec, cap, 20).status
            assert relaxed in (milp_mosp.CONFIGURATION_LP, "unknown") and (relaxed == "unknown" or b.solution is None)
            by_lp += relaxed == milp_mosp.CONFIGURATION_LP
            if b.solution is None:
                assert b.status == INFEASIBLE, (seed, cap)
                refuted += 1
                continue
            n = len(inst.lengths)
            schedule = Schedule(tuple(b.solution[:n]), tuple(b.solution[n:]))
            assert check(inst, schedule, references=spec.references) == [] and makespan(inst, schedule) <= cap
            break
    assert refuted >= 2 and by_lp >= 1


def test_configurations_are_the_organization_s_own_sides():
    """Organization 0 (one machine, jobs 1, 2, 2) under cap 4 with local
    objective sum_ci (ref 1 + 3 + 5 = 9): the configurations are exactly
    the kept sets that fit 4 with every kept job starting by the load and
    completions plus exported lengths within 9, the two 2s interchangeable
    (the higher index exported first). Under a cap no configuration
    meets, the cap is refuted."""
    from schedbench.solvers.milp import mosp as milp_mosp

    inst = parse_instance({"family": "mosp", "format_version": 1, "local_objective": "sum_ci", "selfish": True,
                           "organizations": [{"machines": 1, "jobs": [1, 2, 2]}, {"machines": 1, "jobs": [5]}]})
    spec = MospSpec(inst, local_references(inst, 10))
    no_deadline = float("inf")
    found = {(c.loads, c.exported, c.own_completions) for c in milp_mosp.configurations_of(spec, 0, 4, no_deadline)}
    assert found == {((0,), (0, 1, 2), 0), ((1,), (1, 2), 1), ((2,), (0, 2), 2), ((3,), (2,), 4), ((4,), (0,), 6)}
    assert sorted(milp_mosp.configurations_of(spec, 0, 2, no_deadline), key=lambda c: c.loads) == [
        milp_mosp.Configuration({}, (0,), 0, (0, 1, 2)), milp_mosp.Configuration({0: 0}, (1,), 1, (1, 2)),
        milp_mosp.Configuration({1: 0}, (2,), 2, (0, 2))]
    assert milp_mosp.configurations_of(spec, 0, 1, no_deadline) == []  # a job of length 2 ends by 1 nowhere
    assert milp_mosp.decide(spec, 1, 10).status == INFEASIBLE


def test_too_many_configurations_leave_the_cap_undecided(monkeypatch):
    """An organization whose configurations pass the limit is not modelled:
    the cap is unknown, never refuted, and the solve still answers with a
    valid schedule and a proven bound."""
    from schedbench.solvers.milp import mosp as milp_mosp

    monkeypatch.setattr(milp_mosp, "MAX_CONFIGURATIONS", 3)
    inst = random_small(3100, organizations=(4, 4), machines=(1, 2), jobs=(4, 6), length=(1, 9),
                        local_objective="sum_ci", selfish=True)
    spec = MospSpec(inst, local_references(inst, 10))
    assert milp_mosp.configurations_of(spec, 0, spec.horizon, float("inf")) is None
    assert milp_mosp.decide(spec, spec.horizon, 10).status == "unknown"
    result = solve(inst, None, "milp", 5)
    assert violations(inst, result.schedule, None) == [] and result.bound <= result.objective


@pytest.mark.parametrize("objective", ["cmax", "sum_ci"])
def test_prefix_form_meets_the_literal_rule(objective):
    """The models' prefix form (own jobs first, shortest first, machines of
    an organization ordered) loses no schedule: on 40 random selfish
    instances per local objective, up to 4 organizations of 1 to 4 jobs (0
    to 4 on every fourth instance) on up to 2 machines (3 on every fourth
    other), each backend's proven optimum equals the least makespan under
    SPEC's rule read literally, and the rule binds on some of them."""
    binds = 0
    for seed in range(40):
        inst = random_small(7000 + seed, organizations=(2, 4), machines=(1, 3 if seed % 4 == 0 else 2),
                            jobs=(0 if seed % 4 == 1 else 1, 4), length=(1, 9), local_objective=objective,
                            selfish=True)
        literal = least_makespan(MospSpec(inst, local_references(inst, 10)))
        for solver in model_backends():
            result = solve(inst, None, solver, 30)
            assert violations(inst, result.schedule, None) == []
            assert (result.status, result.objective) == (OPTIMAL, literal), (solver, inst)
        free = solve(dataclasses.replace(inst, selfish=False), None, "cpsat", 30)
        binds += literal > free.objective
    assert binds >= 2


def test_selfishness_and_local_constraints_can_cost_makespan():
    """Random instances where the rules bind: the constrained optimum is never
    below the unconstrained one, and exceeds it somewhere."""
    gaps = 0
    for seed in range(40):
        inst = random_small(2000 + seed, organizations=(2, 3), machines=(1, 1), jobs=(1, 3), length=(1, 6),
                            selfish=True)
        constrained = solve(inst, None, "cpsat", 30)
        free = solve(inst, "unconstrained-makespan", "cpsat", 30)
        assert constrained.status == free.status == OPTIMAL
        assert constrained.objective >= free.objective
        gaps += constrained.objective > free.objective
    assert gaps > 0


@pytest.mark.parametrize("n", range(2, 6))
def test_propositions_1_and_2_reproduced_exactly(n):
    """Prop. 1: under selfishness Fig. 1's optimum is 2N against N + 1
    unconstrained (3N/2 rounded up with local constraints only). Prop. 2:
    Fig. 2's optimum is 2N - 2 under selfishness against N."""
    one, two = figure1(n), figure2(n)
    expected = [(one, None, 2 * n), (dataclasses.replace(one, selfish=False), None, -(-3 * n // 2)),
                (one, "unconstrained-makespan", n + 1), (two, None, 2 * n - 2),
                (dataclasses.replace(two, selfish=False), None, n)]
    for inst, objective, value in expected:
        result = _agree(inst, objective)
        assert result.status == OPTIMAL and result.objective == value, (inst.name, objective)


@pytest.mark.parametrize("seed", range(6))
def test_theorem_2_reduction(seed):
    """yes iff the MOSP optimum of the reduction is <= L, on planted yes- and
    random instances (q = 2, 3), both answers proven."""
    for three in (planted_three_partition(2 + seed % 2, 24, seed), random_three_partition(2 + seed % 2, 24, seed)):
        answer = solve(three, None, "cpsat", 30)
        assert answer.status == solve(three, None, "milp", 30).status
        assert answer.status in (FEASIBLE, INFEASIBLE)
        if answer.status == FEASIBLE:
            assert validate(three, answer.schedule) == []
        reduced, threshold = mosp_two_jobs(three)
        optimum = solve(reduced, None, "cpsat", 60)
        assert optimum.status == OPTIMAL
        assert (optimum.objective <= threshold) == (answer.status == FEASIBLE)


def test_generators_are_reproducible():
    a, b = paper_workload(20, 100, seed=4), paper_workload(20, 100, seed=4)
    assert json.dumps(instance_to_json(a)) == json.dumps(instance_to_json(b))
    assert len(a.lengths) == 100 and a.machines == 20
    assert instance_to_json(planted_three_partition(4, 60, 2)) == instance_to_json(planted_three_partition(4, 60, 2))


@pytest.mark.parametrize("organizations, jobs, seed", [(2, 50, 0), (5, 100, 7), (10, 700, 8), (20, 1000, 19_999)])
def test_the_paper_workload_is_the_stream_random_choices_draws(organizations, jobs, seed):
    """The generator maps each job's owner draw as ``random.choices`` does
    (``zipf_rank``), for speed: the workloads must stay those of the plain
    ``choices`` call, owner then length a job, job for job."""
    import random

    from schedbench.instances.campaign import zipf_weights

    rng, weights = random.Random(seed), zipf_weights(organizations, 1.4267)
    owned = [[] for _ in range(organizations)]
    for _ in range(jobs):
        owned[rng.choices(range(organizations), cum_weights=weights)[0]].append(rng.randint(1, 1000))
    assert [list(org.jobs) for org in paper_workload(organizations, jobs, seed).organizations] == owned


def test_solve_command_on_three_partition(tmp_path):
    three = planted_three_partition(2, 24, seed=3)
    path = write_json(tmp_path, "three.json", instance_to_json(three))
    out = run_cli("solve", path, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["status"] == "feasible" and len(result["certificate"]) == 2
    bad = write_json(tmp_path, "bad.json", {"family": "three_partition", "format_version": 1, "bound": 20,
                                            "items": [5, 7, 8, 6, 7, 7]})
    out = run_cli("solve", bad, "--json")
    assert out.returncode == 2 and "items[0]" in out.stderr and "Traceback" not in out.stderr


def test_time_limit_returns_the_best_schedule_and_a_proven_bound(monkeypatch):
    """A selfish instance neither backend closes in 1.4 s (27 jobs of the
    frontier's sum_ci selfish line; its optimum 21, one above the bound,
    took CP-SAT 38 s with its confirmation; the corpus's entry
    mosp-small-276076-jobs6_8-s2008 holds 21 and bound 21): the answer is the incumbent
    with the last proven cap, never an error or a false optimum; also when
    the MILP gives up on a cap before the deadline."""
    from schedbench.solvers.milp import mosp as milp_mosp
    from schedbench.solvers.exact.outcome import ModelOutcome

    inst = random_small(2008, organizations=(4, 4), machines=(1, 2), jobs=(6, 8), length=(1, 9),
                        local_objective="sum_ci", selfish=True)
    optimum = 21
    results = [solve(inst, None, solver, 1.4) for solver in model_backends()]
    assert all(result.status == FEASIBLE for result in results)
    monkeypatch.setattr(milp_mosp, "decide", lambda *args: ModelOutcome("unknown", None, None, None))
    results.append(solve(inst, None, "milp", 30))
    for result in results:
        assert result.bound <= optimum <= result.objective
        assert violations(inst, result.schedule, None) == []
        assert (result.status == OPTIMAL) == (result.bound == result.objective)


def test_the_last_cap_left_gets_all_the_time():
    """One cap between the bound and the incumbent: asked once with the whole
    search time (a quarter, then the same model again from scratch, is
    what cost two instances at 28 jobs); with more caps left, the first
    gets its own budget."""
    import time

    from schedbench.solvers import mosp as solver
    from schedbench.solvers.exact.outcome import ModelOutcome

    asked = []

    def decide(spec, cap, seconds):
        asked.append((cap, seconds))
        return ModelOutcome("unknown", None, None, None)

    solver._increasing_caps(None, decide, 5, 5, time.monotonic() + 3, None, 0.5, 0.1)
    assert len(asked) == 1 and asked[0][0] == 5 and asked[0][1] > 2.5
    asked.clear()
    solver._increasing_caps(None, decide, 5, 6, time.monotonic() + 3, None, 0.5, 0.1)
    assert asked == [(5, 0.5)]
    asked.clear()

    def refute_five(spec, cap, seconds):
        asked.append((cap, seconds))
        return ModelOutcome("infeasible" if cap == 5 else "unknown", None, None, None)

    solver._increasing_caps(None, refute_five, 5, 6, time.monotonic() + 3, None, 0.5, 0.1)
    assert asked[0] == (5, 0.5) and asked[1][0] == 6 and asked[1][1] > 2.4


def test_random_three_partition_refuses_sizes_its_draws_cannot_reach():
    """Drawn until the last item fits: at 30 triples about 1e-8 per draw, a hang; refused past 16 in one line."""
    from conftest import run_cli

    done = run_cli("generate", "three-partition-random", "--triples", "17")
    assert done.returncode == 2 and done.stderr.startswith("schedbench: --triples: at most 16"), done.stderr
    assert random_three_partition(16, 40, 9000).triples == 16  # the frontier's last step still draws


def test_three_partition_backends_agree_beyond_the_reduction_s_sizes():
    """The MILP built in one pass (per item and per triple lists) answers as
    CP-SAT does at 6 to 8 triples, its yes-certificates valid; it decides
    most of them within 30 s (one random 6-triple draw stays open)."""
    decided = 0
    for seed in range(4):
        for three in (planted_three_partition(6 + seed % 3, 40, seed), random_three_partition(6 + seed % 3, 40, seed)):
            milp = solve(three, None, "milp", 30)
            if milp.status not in (FEASIBLE, INFEASIBLE):
                continue
            decided += 1
            assert milp.status == solve(three, None, "cpsat", 30).status
            if milp.status == FEASIBLE:
                assert validate(three, milp.schedule) == []
    assert decided >= 6


@pytest.mark.parametrize("relaxation", ["checked", "left out"])
def test_the_race_proves_with_both_backends_at_the_frontier_s_sizes(relaxation, monkeypatch):
    """Both backends at once on the cap models' selfish instances of about
    20 jobs (5 per local objective): each is proven, at CP-SAT's own
    optimum, with a valid schedule. The configuration LP's checked
    refutations make some bound alone; without them, refutations by the two
    lanes make some bound, and the proof names both."""
    from schedbench.solvers.milp import mosp as milp_mosp

    if relaxation == "left out":
        monkeypatch.setattr(milp_mosp, "relaxation_refutes", lambda *args: milp_mosp.UNKNOWN)
    proofs = []
    for objective in ("cmax", "sum_ci"):
        for seed in range(5):
            inst = random_small(3100 + seed, organizations=(4, 4), machines=(1, 2), jobs=(4, 6), length=(1, 9),
                                local_objective=objective, selfish=True)
            both, alone = solve(inst, None, RACE, 30), solve(inst, None, "cpsat", 30)
            assert both.status == alone.status == OPTIMAL and both.objective == alone.objective, (objective, seed)
            assert violations(inst, both.schedule, None) == []
            assert both.proof in (("LB",), ("configuration-lp",), ("cpsat", "milp"), ("cpsat", "cpsat-confirm")), \
                both.proof
            proofs.append(both.proof)
    assert ("configuration-lp",) in proofs if relaxation == "checked" else any(len(p) == 2 for p in proofs), proofs
