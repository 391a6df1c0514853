"""DSSP generators (two-phase rendering paper, §4.1): the standard workload,
T1 (fixed stages), T2 (split the longest task) and small workloads are
seeded, reproducible and keep the paper's invariants."""

import json
from collections import Counter

import pytest

from schedbench.instances.dssp import (fixed_stages, scaled_workload, small_workload, standard_workload,
                                       transform_t1, transform_t2)
from schedbench.model.dssp import DsspInstance, Job, parse, to_json


def dumped(instance):
    return json.dumps(to_json(instance))


@pytest.fixture(scope="module")
def standard():
    return standard_workload(0)


def test_same_arguments_same_bytes():
    makers = (lambda s: standard_workload(s), lambda s: standard_workload(s, reward="unit"),
              lambda s: fixed_stages(s, 6), lambda s: small_workload(s), lambda s: scaled_workload(s, 25),
              lambda s: transform_t2(standard_workload(s), 2340), lambda s: transform_t1(small_workload(s), 1, s))
    for make in makers:
        assert dumped(make(3)) == dumped(make(3))
        assert dumped(make(3)) != dumped(make(4))
    # The JSON is a valid dssp instance that round-trips.
    inst = standard_workload(1)
    assert dumped(parse(json.loads(dumped(inst)))) == dumped(inst)


def test_standard_workload_follows_section_4_1(standard):
    inst = standard
    p, d = inst.processors, inst.deadline
    assert (p, d) == (100, 4680) and inst.name == "dssp-standard-s0"
    for job in inst.jobs:
        assert job.critical_path <= d
        assert 5 <= len(job.stages) <= 10
        assert all(1 <= len(stage) <= 10 for stage in job.stages)
        assert all(1 <= x <= 600 for stage in job.stages for x in stage)
        assert job.reward == job.work
    demand = sum(job.work for job in inst.jobs)
    assert demand > 2 * p * d >= demand - inst.jobs[-1].work  # the job that makes it exceed is kept
    assert inst.meta["demand"] == demand and inst.meta["generator"] == "dssp-standard" and inst.meta["seed"] == 0
    # D counts units of 10 s: T_inf^max comes close to D (the paper's "at least 97%").
    assert inst.max_critical_path >= 0.97 * d
    unit = standard_workload(0, reward="unit")
    assert all(job.reward == 1 for job in unit.jobs)
    assert [job.stages for job in unit.jobs] == [job.stages for job in inst.jobs]


def test_standard_workload_discards_long_jobs():
    # D = 2000 rejects many jobs (their draws are still consumed).
    inst = standard_workload(2, processors=10, deadline=2000)
    assert inst.meta["discarded"] > 0
    assert all(job.critical_path <= 2000 for job in inst.jobs)
    with pytest.raises(ValueError):
        standard_workload(0, deadline=4)  # below 5 stages of length >= 1
    with pytest.raises(ValueError):
        standard_workload(0, reward="weighted")


def test_t1_fixed_stages():
    base = standard_workload(5, stages=(10, 10))
    assert [job.stages for job in fixed_stages(5, 10).jobs] == [job.stages for job in base.jobs]
    for g in (1, 3, 6, 9):
        inst = fixed_stages(5, g)
        assert len(inst.jobs) == len(base.jobs)
        for old, new in zip(base.jobs, inst.jobs):
            assert len(new.stages) == g
            assert all(n[:len(o)] == o for n, o in zip(new.stages, old.stages))  # kept, moved tasks appended
            assert Counter(x for s in new.stages for x in s) == Counter(x for s in old.stages for x in s)
            assert new.work == old.work == new.reward
        assert inst.meta["over_deadline"] == sum(job.critical_path > inst.deadline for job in inst.jobs)
    assert fixed_stages(5, 7).meta["over_deadline"] == 0  # 7 x 600 < 4680
    with pytest.raises(ValueError):
        fixed_stages(5, 11)


def test_t1_on_any_instance_keeps_tasks():
    src = small_workload(8, stages=(3, 3))
    out = transform_t1(src, 2, seed=1)
    for old, new in zip(src.jobs, out.jobs):
        assert len(new.stages) == 2 and new.reward == old.reward and new.work == old.work
        assert sorted(x for s in new.stages for x in s) == sorted(x for s in old.stages for x in s)


def test_t2_splits_longest_tasks(standard):
    for bound in (4000, 2340, 468):
        out = transform_t2(standard, bound)
        assert out.max_critical_path <= bound and out.meta["unreachable"] == []
        for old, new in zip(standard.jobs, out.jobs):
            assert new.work == old.work and new.reward == old.reward and len(new.stages) == len(old.stages)
            assert [sum(s) for s in new.stages] == [sum(s) for s in old.stages]  # every stage's work too
            if old.critical_path <= bound:
                assert new is old
            else:
                assert new.critical_path <= bound
                assert sum(map(len, new.stages)) > sum(map(len, old.stages))


def test_t2_tie_break_and_unreachable():
    inst = DsspInstance(2, 20, (Job(9, ((3, 5), (5, 1))), Job(3, ((1,), (1,), (1,))), Job(2, ((2,),))), "toy")
    out = transform_t2(inst, 8)
    # T_inf 10 > 8: the first 5 (stage 0) splits into 3, 2 in place -> T_inf 3 + 5 = 8.
    assert out.jobs[0].stages == ((3, 3, 2), (5, 1))
    assert out.jobs[1] is inst.jobs[1] and out.jobs[2] is inst.jobs[2]
    out = transform_t2(inst, 2)
    assert out.jobs[0].stages == ((1,) * 8, (1,) * 6)  # split down to unit tasks, T_inf 2
    assert out.jobs[1].stages == inst.jobs[1].stages  # three unit stages: T_inf 3 > 2 cannot be helped
    assert out.jobs[2] is inst.jobs[2]  # T_inf 2 is within the bound
    assert out.meta["unreachable"] == [{"job": 1, "critical_path": 3}]
    with pytest.raises(ValueError):
        transform_t2(inst, 0)


def test_small_workloads_are_small():
    for seed in range(200):
        inst = small_workload(seed)
        assert 2 <= inst.processors <= 4 and 5 <= inst.deadline <= 9
        assert 2 <= len(inst.jobs) <= 8 and len(inst.lengths) <= 40
        assert all(job.critical_path <= inst.deadline and job.reward == job.work for job in inst.jobs)
        assert all(1 <= len(job.stages) <= 3 and all(1 <= len(s) <= 3 for s in job.stages) for job in inst.jobs)
        assert max(inst.lengths) <= 6
        demand = sum(job.work for job in inst.jobs)
        target = inst.meta["target_load_percent"] * inst.processors * inst.deadline
        assert 100 * demand > target or len(inst.jobs) == 8
    assert all(job.reward == 1 for job in small_workload(0, reward="unit").jobs)


def test_scaled_workload():
    inst = scaled_workload(0, 50)
    assert (inst.processors, inst.deadline) == (2, 94)
    assert max(inst.lengths) <= 12 and all(job.critical_path <= 94 for job in inst.jobs)
    assert all(5 <= len(job.stages) <= 10 and all(len(s) == 1 for s in job.stages) for job in inst.jobs)
    assert all(job.work <= inst.processors * inst.deadline for job in inst.jobs)
    assert sum(job.work for job in inst.jobs) > 2 * 2 * 94
    assert scaled_workload(0, 1).jobs == standard_workload(0).jobs


def test_maxcpl_workloads_and_lambda_give_valid_schedules():
    """Figs. 18-21: T2 from the standard workload down to max_cpl x D, and
    LCPF with r = 1 - λ (1 - 1/P) T_inf^max / D: λ = 0 is r = 1, λ = 1 is
    Theorem 1's r_0; every schedule passes the validator."""
    from fractions import Fraction

    from schedbench.heuristics.dssp import HEURISTICS, two_phase
    from schedbench.instances.dssp import max_critical_path_workload
    from schedbench.metrics.dssp import max_critical_path_ratio, reward, theorem1_parameter
    from schedbench.validator import validate

    inst = max_critical_path_workload(1, Fraction(1, 2))
    assert inst.max_critical_path <= inst.deadline // 2 and max_critical_path_ratio(inst) <= Fraction(1, 2)
    assert sum(job.work for job in inst.jobs) == sum(job.work for job in standard_workload(1).jobs)
    for weight, r in ((Fraction(0), Fraction(1)), (Fraction(1), theorem1_parameter(inst))):
        schedule = HEURISTICS["lcpf"](inst, weight=weight)
        assert validate(inst, schedule) == []
        assert reward(inst, schedule) == reward(inst, two_phase(inst, "lcpf", r=r))
