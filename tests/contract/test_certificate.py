"""No false optimum (issue 15): every "optimal" rests on a checkable bound
or on a refutation that a second, independent method confirms.

The liar backends below refute everything they are asked in CP-SAT's
primary configuration only, as the false INFEASIBLE this project met did
(the MOSP cap model with 2 workers and a hint outside its domains), and
answer honestly in every other configuration."""

import json
import time
from fractions import Fraction
from importlib import import_module

import pytest
from ortools.sat.python import cp_model

from schedbench.solvers.workflow import MODELS as WORKFLOW_MODELS
from schedbench.instances.campaign import random_small as campaign_small
from schedbench.instances.dssp import small_workload as dssp_small
from schedbench.instances.knapsack import random_knapsack
from schedbench.instances.mosp import planted_three_partition, random_small as mosp_small
from schedbench.instances.workflow import small_workload as workflow_small
from schedbench.model.mosp import parse as parse_mosp
from schedbench.model.pcmax import PcmaxInstance
from schedbench.result import FEASIBLE, OPTIMAL, UNKNOWN
from schedbench.solvers import cpsat, settings, solve
from schedbench.solvers import pcmax as pcmax_engine
from schedbench.solvers.exact.certificate import Confirmation
from schedbench.solvers.exact.outcome import ModelOutcome
from schedbench.solvers.exact.ratio import minimize_max_ratio
from schedbench.families import violations

from conftest import run_cli, write_json

ISSUE_INSTANCE = {"family": "mosp", "format_version": 1, "local_objective": "sum_ci", "selfish": True,
                  "organizations": [{"machines": 1, "jobs": jobs} for jobs in (
                      [7, 4, 1], [5, 4, 8, 5, 5, 9, 7], [7, 7, 6, 4], [6, 5, 5, 8, 1], [5, 2, 2],
                      [8, 6, 7, 6, 7, 4], [5, 2, 3, 3, 9, 2, 4], [7, 9, 9, 9, 7])]}

#: Every module that confirms a claim, so a test can make confirmation fail.
CONFIRMING_MODULES = ("pcmax", "mosp", "exact.ratio", "campaign", "dssp", "knapsack", "three_partition")


def test_the_issue_instance_is_never_a_false_optimum(tmp_path, monkeypatch):
    """It printed "optimal 29" once in three runs with 2 CP-SAT workers and
    --time-limit 10. With 2 workers the search is not repeatable, and on a
    loaded machine a run may end with 29 and the bound 28: that is honest.
    Every run's bound is 28, no run calls anything but 28 optimal, and the
    optimum is reached."""
    path = write_json(tmp_path, "mosp.json", ISSUE_INSTANCE)
    monkeypatch.setattr(settings, "CPSAT_WORKERS", 2)  # the command runs in this process: its setting, not the environment's
    results = []
    for _ in range(3):
        out = run_cli("solve", path, "--time-limit", "30", "--json")
        assert out.returncode == 0, out.stderr
        results.append(json.loads(out.stdout))
    assert all(r["bound"] == 28 and r["objective"] >= 28 for r in results), results
    assert all(r["objective"] == 28 and r["proof"] for r in results if r["status"] == "optimal"), results
    assert any(r["status"] == "optimal" for r in results), results


def test_a_hint_outside_its_domain_is_dropped():
    """The cause of the false refutation: the MOSP cap-28 model was hinted
    with a schedule of makespan 31. ``run`` keeps no hint of such a model."""
    model = cp_model.CpModel()
    x, y = model.new_int_var(0, 5, "x"), model.new_int_var(0, 5, "y")
    model.add(x + y == 7)
    model.add_hint(x, 9)
    model.add_hint(y, 1)
    assert not cpsat.hints_inside_domains(model)
    outcome = cpsat.run(model, 5, [x, y], has_objective=False)
    assert outcome.status == "optimal" and sum(outcome.solution) == 7
    assert len(model.proto.solution_hint.vars) == 0


def _liar(real, refusal):
    """``real`` answering ``refusal`` in CP-SAT's primary configuration."""
    def lie(*args, **kwargs):
        if cpsat._configuration.get() is cpsat.PRIMARY:
            return refusal
        return real(*args, **kwargs)
    return lie


@pytest.fixture(autouse=True)
def _no_cached_optimum():
    """The P||Cmax engine caches its answers: none may outlive a planted lie."""
    from schedbench.solvers.pcmax import clear_cache

    clear_cache()
    yield
    clear_cache()


# (family, objective, instance, module patched, function, refusal): chosen so
# that the lie, believed, would be a wrong optimum (checked below).
CASES = [
    ("pcmax", "makespan", lambda: PcmaxInstance(3, (23, 29, 24, 24, 14, 19, 9, 6)),
     "schedbench.solvers.cpsat.pcmax", "minimize", ("infeasible", None, None)),
    ("mosp", "makespan", lambda: mosp_small(6, organizations=(3, 4), jobs=(2, 5)), "schedbench.solvers.cpsat.mosp", "decide",
     ModelOutcome("infeasible", None, None, None)),
    ("campaign", "max-user-stretch", lambda: campaign_small(0, users=(2, 3), jobs=(2, 3)),
     "schedbench.solvers.cpsat.campaign", "solve", ModelOutcome("infeasible", None, None, None)),
    ("campaign", "sum-user-flow", lambda: campaign_small(0, users=(2, 3), jobs=(2, 3)),
     "schedbench.solvers.cpsat.campaign", "solve", ModelOutcome("infeasible", None, None, None)),
    ("workflow", "max-slr", lambda: workflow_small(3), "schedbench.solvers.cpsat.workflow", "solve",
     ModelOutcome("infeasible", None, None, None)),
    ("dssp", "reward", lambda: dssp_small(7), "schedbench.solvers.cpsat.dssp", "solve",
     ModelOutcome("infeasible", None, None, None)),
    ("knapsack", "profit", lambda: random_knapsack(1, items=12),
     "schedbench.solvers.cpsat.knapsack", "solve", None),
    ("three_partition", "decision", lambda: planted_three_partition(3, 40, 1),
     "schedbench.solvers.cpsat.three_partition", "solve", ModelOutcome("infeasible", None, None, None)),
]


def _plant(monkeypatch, module: str, function: str, refusal, instance) -> None:
    target = import_module(module)
    real = getattr(target, function)
    if refusal is None:  # knapsack: the empty selection, claimed optimal
        refusal = ModelOutcome("optimal", 0, 0, [0] * len(instance.items))
    monkeypatch.setattr(target, function, _liar(real, refusal))


def _packings_only(pack):
    """Bin completion that finds packings but never refutes: the P||Cmax
    engine's second method inside its search, silenced like ``confirm``."""
    def packings(*args, **kwargs):
        status, machine_of = pack(*args, **kwargs)
        return (status, machine_of) if status == FEASIBLE else (UNKNOWN, None)
    return packings


def _ids(case):
    return f"{case[0]}-{case[1]}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_an_unconfirmed_refutation_is_never_optimal(case, monkeypatch):
    """A planted false refutation, with no second method answering: the
    result is ``feasible`` (or ``unknown``), with the claim named."""
    family, objective, build, module, function, refusal = case
    instance = build()
    truth = solve(instance, objective, "cpsat", 20)
    # the truth needs a refutation (or, for 3-PARTITION, the lie refutes a yes-instance)
    assert len(truth.proof) == 2 or truth.proof == ("certificate",)
    _plant(monkeypatch, module, function, refusal, instance)
    from schedbench.solvers.pcmax import clear_cache

    clear_cache()
    for name in CONFIRMING_MODULES:
        monkeypatch.setattr(import_module(f"schedbench.solvers.{name}"), "confirm",
                            lambda alternatives, deadline: Confirmation(None, None, 0.0))
    monkeypatch.setattr(pcmax_engine, "pack", _packings_only(pcmax_engine.pack))  # no refutation by it either
    lied = solve(instance, objective, "cpsat", 20)
    assert lied.status in (FEASIBLE, UNKNOWN), lied
    assert "unconfirmed" in lied.details
    if lied.objective is not None and lied.objective != truth.objective:
        assert lied.bound is None or _better_or_equal(family, lied.bound, truth.objective)


def test_a_ratio_search_falls_back_to_the_claim_before_an_unconfirmed_last_one():
    """max(N_1/2, N_2/3) whose optimum is 5 (N = 10, 15). The backend
    refutes every target below 5; the second methods repeat every
    refutation but the last, "N_2 <= 14" (14/3), which they leave open.
    The bound is then the claim before it, 14/3 (limits 9 and 13), not
    the search's certified start 1."""
    def ask(module, limits, seconds):
        if limits[0] >= 10 and limits[1] >= 15:
            return OPTIMAL, "optimum"
        primary = module.__name__.endswith("cpsat.workflow") and cpsat._configuration.get() is cpsat.PRIMARY
        return ("infeasible", None) if primary or limits[1] < 14 else (UNKNOWN, None)

    search = minimize_max_ratio([Fraction(2), Fraction(3)], Fraction(1), ("start",), Fraction(8), "start",
                                {"start": Fraction(8), "optimum": Fraction(5)}.get, WORKFLOW_MODELS, "cpsat", ask, 5.0)
    assert (search.status, search.value, search.bound) == (FEASIBLE, 5, Fraction(14, 3))
    assert search.proof == ("cpsat", "milp")
    assert search.details["unconfirmed"] == {"bound": "5", "by": "cpsat", "reported_bound": "14/3"}


@pytest.mark.timing
def test_on_a_time_limit_the_claim_before_gets_the_time_kept_for_it():
    """The same objective; the backend leaves "N_2 <= 14" open, so the
    search stops on its last refutation ("N_1 <= 9, N_2 <= 13"), which the
    second methods spend all their time on without an answer. The tenth
    kept still confirms the refutation before it ("N_1 <= 8"): bound 9/2,
    within the time limit."""
    def ask(module, limits, seconds):
        if limits[0] >= 10 and limits[1] >= 15:
            return OPTIMAL, "optimum"
        if module.__name__.endswith("cpsat.workflow") and cpsat._configuration.get() is cpsat.PRIMARY:
            return (UNKNOWN, None) if limits[1] >= 14 else ("infeasible", None)
        if limits[0] >= 9:
            time.sleep(seconds)
            return UNKNOWN, None
        return "infeasible", None

    began = time.monotonic()
    search = minimize_max_ratio([Fraction(2), Fraction(3)], Fraction(1), ("start",), Fraction(8), "start",
                                {"start": Fraction(8), "optimum": Fraction(5)}.get, WORKFLOW_MODELS, "cpsat", ask, 1.5)
    assert time.monotonic() - began < 1.6
    assert (search.status, search.value, search.bound) == (FEASIBLE, 5, Fraction(9, 2))
    assert search.proof == ("cpsat", "cpsat-confirm")
    assert search.details["unconfirmed"] == {"bound": "14/3", "by": "cpsat", "reported_bound": "9/2"}


def test_a_false_claim_before_an_unconfirmed_last_one_gives_its_schedule():
    """The same objective (optimum 5), a backend refuting every target
    below 6 and finding only a schedule of value 6; the second methods
    leave the last claim ("N_2 <= 17") open, and where asked the claim
    before it ("N_1 <= 11, N_2 <= 16") they find the optimum: the lie is
    exposed and the optimum kept, with no bound raised on either claim."""
    def ask(module, limits, seconds):
        primary = module.__name__.endswith("cpsat.workflow") and cpsat._configuration.get() is cpsat.PRIMARY
        if primary:
            return (OPTIMAL, "six") if limits[0] >= 12 and limits[1] >= 18 else ("infeasible", None)
        if limits[1] >= 17:
            return UNKNOWN, None
        return (OPTIMAL, "optimum") if limits[0] >= 10 and limits[1] >= 15 else ("infeasible", None)

    values = {"start": Fraction(8), "six": Fraction(6), "optimum": Fraction(5)}
    search = minimize_max_ratio([Fraction(2), Fraction(3)], Fraction(1), ("start",), Fraction(8), "start",
                                values.get, WORKFLOW_MODELS, "cpsat", ask, 5.0)
    assert (search.status, search.value, search.bound, search.schedule) == (FEASIBLE, 5, 1, "optimum")
    assert search.details["refuted_claim"] == {"bound": "6", "by": "cpsat", "solution_from": "milp"}


RATIO_CASES = [case for case in CASES if case[1] in ("max-user-stretch", "max-slr")]


@pytest.mark.parametrize("case", RATIO_CASES, ids=[_ids(c) for c in RATIO_CASES])
def test_the_claim_before_an_unconfirmed_last_one_keeps_the_result_sound(case, monkeypatch):
    """A ratio search under the liar, its last claim's confirmation made to
    fail: the claim before it is asked of the real second methods, and
    whatever they answer (a schedule exposing the lie, or a confirmation)
    the result is a valid schedule with a valid bound."""
    from schedbench.solvers.exact import ratio

    family, objective, build, module, function, refusal = case
    instance = build()
    truth = solve(instance, objective, "cpsat", 20)
    _plant(monkeypatch, module, function, refusal, instance)
    calls = []

    def first_fails(alternatives, deadline):
        calls.append(deadline)
        return Confirmation(None, None, 0.0) if len(calls) == 1 else ratio_confirm(alternatives, deadline)

    ratio_confirm = ratio.confirm
    monkeypatch.setattr(ratio, "confirm", first_fails)
    result = solve(instance, objective, "cpsat", 20)
    assert len(calls) == 2
    assert violations(instance, result.schedule, objective) == []
    assert result.objective >= truth.objective and result.bound <= truth.objective
    assert result.status != OPTIMAL or result.objective == truth.objective


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_a_false_refutation_is_caught_by_the_second_method(case, monkeypatch):
    """The same lie with the independent methods answering: the result is
    the true optimum, never the liar's."""
    family, objective, build, module, function, refusal = case
    instance = build()
    truth = solve(instance, objective, "cpsat", 20)
    _plant(monkeypatch, module, function, refusal, instance)
    from schedbench.solvers.pcmax import clear_cache

    clear_cache()
    result = solve(instance, objective, "cpsat", 20)
    if result.status == OPTIMAL:
        assert result.objective == truth.objective and len(result.proof) >= 1
    else:
        assert result.status == FEASIBLE and _better_or_equal(family, result.bound, truth.objective)
    if result.schedule is not None and family not in ("knapsack", "three_partition"):
        assert violations(instance, result.schedule, objective) == []


def _better_or_equal(family: str, bound: Fraction, optimum: Fraction) -> bool:
    """A valid bound: below the optimum of a minimisation, above a maximisation's."""
    return bound >= optimum if family in ("dssp", "knapsack") else bound <= optimum


def test_proof_is_in_every_optimal_json(tmp_path):
    path = write_json(tmp_path, "pcmax.json", {"family": "pcmax", "format_version": 1, "machines": 3,
                                                "jobs": [23, 29, 24, 24, 14, 19, 9, 6]})
    result = json.loads(run_cli("solve", path, "--json", "--time-limit", "10").stdout)  # the portfolio
    assert result["status"] == "optimal" and result["objective"] == 51
    assert result["proof"] == ["bin-completion", "assignment-search"]  # two searches, no model
    result = json.loads(run_cli("solve", path, "--json", "--time-limit", "10", "--solver", "cpsat").stdout)
    assert result["status"] == "optimal" and result["objective"] == 51
    assert len(result["proof"]) == 2 and result["proof"][0] != result["proof"][1]


def test_the_confirming_configuration_does_without_presolve():
    """CP-SAT 9.15's presolve refutes this feasible model (SPEC's selfish rule
    read literally, minimising the makespan; google/or-tools#5274) with any
    workers and seed; the confirming configuration, which runs no presolve,
    finds the optimum 22 that the prefix-form models prove and the
    validator accepts."""
    from mosp_literal_model import literal_model
    from schedbench.solvers.mosp import MospSpec, local_references

    inst = mosp_small(7015, organizations=(2, 4), machines=(1, 2), jobs=(0, 4), length=(1, 9),
                      local_objective="sum_ci", selfish=True)
    model, cmax = literal_model(MospSpec(inst, local_references(inst, 10)))
    with cpsat.confirming():
        outcome = cpsat.run(model, 30, [cmax])
    assert (outcome.status, outcome.solution) == ("optimal", [22])
    result = solve(inst, None, "cpsat", 30)
    assert (result.status, result.objective) == (OPTIMAL, 22) and violations(inst, result.schedule, None) == []


def test_cpsat_runs_are_seeded():
    assert cpsat.PRIMARY.seed != cpsat.CONFIRMING.seed and cpsat.CONFIRMING.workers == 1
    assert not cpsat.CONFIRMING.hints and settings.CPSAT_WORKERS >= 1


def test_dssp_trusts_the_knapsack_bound_only_from_the_dynamic_program(monkeypatch):
    """Past DP by profits' table the r = 1 selection is OR-Tools' branch and
    bound, one solver's word: the certified bound is then the LP relaxation's
    floor, and an optimum below it rests on a confirmed refutation."""
    import schedbench.solvers.dssp as family

    trusted = [solve(dssp_small(seed), solver="cpsat", time_limit=20) for seed in range(12)]
    assert any(r.proof == ("knapsack-bound",) for r in trusted)
    monkeypatch.setattr(family, "dp_fits", lambda *args, **kwargs: False)
    for seed, before in enumerate(trusted):
        after = solve(dssp_small(seed), solver="cpsat", time_limit=20)
        assert after.objective == before.objective and "knapsack-bound" not in after.proof
        assert after.status != OPTIMAL or after.proof == ("lp-dantzig",) or len(after.proof) == 2


def test_the_mosp_search_gives_its_first_cap_a_quarter_of_the_time(monkeypatch):
    """The first cap (the certified bound) is where a tight bound is proven
    without a refutation: it gets a quarter of the limit, each further cap a tenth."""
    from schedbench.solvers import mosp

    asked = []

    def decide(spec, cap, seconds, floor=None):
        asked.append((cap, seconds))
        return ModelOutcome("infeasible" if cap < 12 else "feasible", None, None,
                            None if cap < 12 else [0] * (2 * len(spec.instance.lengths)))

    deadline = __import__("time").monotonic() + 100
    claimed, _, settled = mosp._increasing_caps(mosp.MospSpec(mosp_small(1), ()), decide, 10, 20, deadline, None,
                                                2.5, 1.0)
    assert (claimed, settled) == (12, True) and asked == [(10, 2.5), (11, 1.0), (12, 1.0)]
    seen = {}
    monkeypatch.setattr(mosp, "_increasing_caps", lambda *args: seen.update(budgets=args[-2:]) or (0, None, True))
    mosp.solve(parse_mosp(ISSUE_INSTANCE), "makespan", "cpsat", 8.0)
    assert seen["budgets"] == (2.0, 0.8)
