"""The selfish MOSP caps the configuration LP refutes, checked in exact
arithmetic (``metrics.mosp.configuration_lp``, ``solvers.milp.farkas``):
the check passes where CP-SAT and the format's rule read literally refute
the cap too, fails on weights that prove nothing, and never refutes a cap
a schedule meets."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedbench.instances.mosp import random_small
from schedbench.metrics.mosp.configuration_lp import CapMultipliers, refutes
from schedbench.result import INFEASIBLE, OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.cpsat import mosp as cpsat_mosp
from schedbench.solvers.milp import mosp as milp_mosp
from schedbench.solvers.mosp import RACE, MospSpec, local_references

from mosp_literal_model import least_makespan

#: Three organizations of one machine (seed, local objective) whose bound LB the LP refutes.
REFUTED_AT_LB = [(1, "sum_ci"), (4, "cmax")]


def instance(seed: int, objective: str):
    return random_small(seed, organizations=(3, 4), machines=(1, 1), jobs=(2, 4), length=(1, 6),
                        local_objective=objective, selfish=True)


def checked_weights(spec, cap, monkeypatch) -> tuple[str, list]:
    """The relaxation's answer at ``cap``, and the weights it had checked: (status, [(cap checked, weights)])."""
    seen = []

    def spy(inst, references, checked_cap, multipliers, deadline):
        seen.append((checked_cap, multipliers))
        return refutes(inst, references, checked_cap, multipliers, deadline)

    monkeypatch.setattr(milp_mosp, "refutes", spy)
    return milp_mosp.relaxation_refutes(spec, cap, 10).status, seen


@pytest.mark.parametrize("seed,objective", REFUTED_AT_LB)
def test_the_lp_refutes_what_cpsat_and_the_literal_rule_refute(seed, objective, monkeypatch):
    inst = instance(seed, objective)
    spec = MospSpec(inst, local_references(inst, 10))
    cap = spec.lower_bound()
    status, seen = checked_weights(spec, cap, monkeypatch)
    assert status == milp_mosp.CONFIGURATION_LP and len(seen) == 1
    assert cpsat_mosp.decide(spec, cap, 10).status == INFEASIBLE
    assert least_makespan(spec) > cap


@pytest.mark.parametrize("seed,objective", REFUTED_AT_LB)
def test_both_at_once_certify_the_lp_s_refutation_alone(seed, objective):
    """The optimum is LB + 1, and the bound past LB rests on the checked LP
    alone, one name in the proof; the MILP's lane asked it after the local
    search, CP-SAT's lane began with CP-SAT."""
    inst = instance(seed, objective)
    spec = MospSpec(inst, local_references(inst, 10))
    assert least_makespan(spec) == spec.lower_bound() + 1
    result = solve(inst, "makespan", RACE, 10)
    assert result.status == OPTIMAL and result.bound == result.objective == spec.lower_bound() + 1
    assert result.proof == ("configuration-lp",)
    assert result.details["race"]["lanes"][0][0] == "cpsat"
    assert result.details["race"]["lanes"][1][:2] == ["local-search", "configuration-lp"]


def corrupted(weights: CapMultipliers, objective: str) -> dict[str, CapMultipliers]:
    """Weights that prove nothing: each one breaks a rule of the check."""
    (q, t), value = next(iter(weights.machine.items()))
    out = {
        "zero": CapMultipliers({}, {}, {}),
        "negative": CapMultipliers({**weights.machine, (q, t): -value}, weights.ready, weights.local),
        "ready row at 0": CapMultipliers(weights.machine, {**weights.ready, (0, 0): Fraction(1)}, weights.local),
        "instant below 0": CapMultipliers({**weights.machine, (q, -1): Fraction(1)}, weights.ready, weights.local),
    }
    if objective == "cmax":
        out["local row of cmax"] = CapMultipliers(weights.machine, weights.ready, {0: Fraction(1)})
    return out


@pytest.mark.parametrize("seed,objective", REFUTED_AT_LB)
def test_weights_that_prove_nothing_fail_the_check(seed, objective, monkeypatch):
    """The LP's own weights pass; broken ones, and the same weights at the
    least makespan (a cap a schedule meets), fail."""
    inst = instance(seed, objective)
    spec = MospSpec(inst, local_references(inst, 10))
    _, [(cap, weights)] = checked_weights(spec, spec.lower_bound(), monkeypatch)
    assert refutes(inst, spec.references, cap, weights)
    for name, broken in corrupted(weights, objective).items():
        assert not refutes(inst, spec.references, cap, broken), name
    assert not refutes(inst, spec.references, least_makespan(spec), weights)


def test_a_check_past_its_limits_proves_nothing(monkeypatch):
    """Past its deadline, or with an organization past ``MAX_CHECKED_CONFIGURATIONS``, the weights prove nothing."""
    from schedbench.metrics.mosp import configuration_lp

    inst = instance(1, "sum_ci")
    spec = MospSpec(inst, local_references(inst, 10))
    _, [(cap, weights)] = checked_weights(spec, spec.lower_bound(), monkeypatch)
    assert not refutes(inst, spec.references, cap, weights, deadline=0.0)
    monkeypatch.setattr(configuration_lp, "MAX_CHECKED_CONFIGURATIONS", 1)
    assert not refutes(inst, spec.references, cap, weights)


weight = st.fractions(min_value=0, max_value=4, max_denominator=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), objective=st.sampled_from(["cmax", "sum_ci"]), data=st.data())
def test_no_weights_refute_a_cap_a_schedule_meets(seed, objective, data):
    """Tiny selfish instances: at the least makespan under the format's
    rule read literally (and one above), random weights never pass the
    check, and neither does the MILP's LP refute the cap."""
    inst = random_small(seed, organizations=(2, 3), machines=(1, 2), jobs=(0, 3), length=(1, 5),
                        local_objective=objective, selfish=True)
    spec = MospSpec(inst, local_references(inst, 10))
    least = least_makespan(spec)
    for cap in (least, least + 1):
        machine = {(q, t): data.draw(weight) for q in range(inst.machines) for t in range(cap)}
        ready = {(j, t): data.draw(weight) for j in range(len(inst.lengths)) for t in range(1, cap)}
        local = {k: data.draw(weight) for k in range(inst.n_organizations)} if objective == "sum_ci" else {}
        assert not refutes(inst, spec.references, cap, CapMultipliers(machine, ready, local))
        assert milp_mosp.relaxation_refutes(spec, cap, 10).status == "unknown"


def test_the_rule_s_argument_only_refutes_selfish_instances(monkeypatch):
    """The same weights on the instance without selfishness prove nothing: the columns are the selfish rule's."""
    import dataclasses

    inst = instance(1, "sum_ci")
    spec = MospSpec(inst, local_references(inst, 10))
    _, [(cap, weights)] = checked_weights(spec, spec.lower_bound(), monkeypatch)
    assert not refutes(dataclasses.replace(inst, selfish=False), spec.references, cap, weights)


def test_an_organization_whose_splits_exceed_the_budget_is_not_asked(monkeypatch):
    """Three machines and twelve jobs of distinct lengths: 4^12 splits, past
    ``MAX_CHECKED_CONFIGURATIONS``, so the relaxation is not even built."""
    from schedbench.metrics.mosp.configuration_lp import MAX_CHECKED_CONFIGURATIONS, within_budget
    from schedbench.model.mosp import MospInstance, Organization

    wide = MospInstance((Organization(3, tuple(range(1, 13))), Organization(1, (5,))), "cmax", "optimal", True)
    assert 4 ** 12 > MAX_CHECKED_CONFIGURATIONS and not within_budget(wide) and within_budget(instance(1, "sum_ci"))
    spec = MospSpec(wide, local_references(wide, 10))
    built = []
    monkeypatch.setattr(milp_mosp, "_selfish", lambda *args: built.append(args))
    assert milp_mosp.relaxation_refutes(spec, spec.lower_bound(), 10).status == "unknown" and built == []
