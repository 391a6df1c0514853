"""DSSP: the format, the validator's rules, the two-phase heuristics and the
exact solvers, cross-checked against each other."""

import json
import random
from fractions import Fraction

import pytest

from schedbench.heuristics.dssp import HEURISTICS, dispatch, select
from schedbench.instances.dssp import small_workload
from schedbench.metrics.dssp import completed_jobs, reward, theorem1_parameter, tuned_parameter
from schedbench.model import instance_to_json, parse_instance, schedule_from_json, schedule_to_json
from schedbench.model.dssp import DsspInstance, Job
from schedbench.result import OPTIMAL
from schedbench.schedule import Schedule
from schedbench.solvers import solve
from schedbench.metrics.dssp import knapsack_bound, lp_bound
from schedbench.validator import validate

from conftest import assert_rejected, run_cli, write_json
from schedbench.families import model_backends

# P = 2, D = 6. Job 0: stages [3] then [2, 2] (T_1 7, T_inf 5), reward 7;
# job 1: one stage [4] (reward 4); job 2: [2] then [2] (reward 4).
# Work 15 > P D = 12, so not all three fit. Job 0 with job 2: processor 0
# runs 0's [3] then [2]; processor 1 runs 2's [2] [2] then 0's second [2]
# from 4 to 6: reward 11, the optimum (0 + 1 is 11 too; 1 + 2 is only 8).
EXAMPLE = DsspInstance(2, 6, (Job(7, ((3,), (2, 2))), Job(4, ((4,),)), Job(4, ((2,), (2,)))))
DSSP = {"family": "dssp", "format_version": 1, "processors": 2, "deadline": 6,
        "jobs": [{"reward": 7, "stages": [[3], [2, 2]]}, {"reward": 4, "stages": [[4]]}]}


def random_instance(seed: int, unit: bool = False) -> DsspInstance:
    rng = random.Random(seed)
    jobs = []
    for _ in range(rng.randint(1, 4)):
        stages = tuple(tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 2))) for _ in range(rng.randint(1, 3)))
        jobs.append(Job(1 if unit else sum(map(sum, stages)), stages))
    return DsspInstance(rng.randint(1, 3), rng.randint(3, 10), tuple(jobs), f"dssp-test-{seed}")


def test_round_trip_and_schedule_format():
    inst = parse_instance(DSSP)
    assert instance_to_json(inst)["jobs"] == DSSP["jobs"]
    schedule = Schedule((0, 0, 1, None), (0, 3, 3, None))
    text = schedule_to_json(inst, schedule)
    assert text["jobs"][1] is None and text["jobs"][0]["stages"][1][1] == {"processor": 1, "start": 3}
    assert schedule_from_json(inst, json.loads(json.dumps(text))) == schedule


@pytest.mark.parametrize("change,field", [
    (lambda d: d["jobs"][0].update(reward=-1), "jobs[0].reward"),
    (lambda d: d["jobs"][1].update(stages=[]), "jobs[1].stages"),
    (lambda d: d["jobs"][0]["stages"].__setitem__(1, []), "jobs[0].stages[1]"),
    (lambda d: d["jobs"][0]["stages"][1].__setitem__(0, 1.5), "jobs[0].stages[1][0]"),
    (lambda d: d.update(processors=0), "processors"),
    (lambda d: d.update(deadline=True), "deadline"),
])
def test_bad_instances_name_the_field(change, field):
    assert_rejected(DSSP, change, field)


def test_validator_rules_and_reward():
    #          job 0: [3] | [2, 2]     job 1: [4]   job 2: [2] | [2]
    good = Schedule((0, 0, 1, None, 1, 1), (0, 3, 4, None, 0, 2))
    assert validate(EXAMPLE, good) == [] and reward(EXAMPLE, good) == 11 and completed_jobs(EXAMPLE, good) == [0, 2]
    cases = {
        "precedence": Schedule((None,) * 4 + (0, 1), (None,) * 4 + (0, 1)),  # job 2's stage 2 at 1, stage 1 ends at 2
        "overlap": Schedule((0, 0, 0, None, 1, 1), (0, 3, 4, None, 0, 2)),
        "machine-range": Schedule((0, 0, 2, None, 1, 1), (0, 3, 4, None, 0, 2)),
        "half-placed": Schedule((0, 0, 1, 0, 1, 1), (0, 3, 4, None, 0, 2)),
    }
    for rule, schedule in cases.items():
        assert rule in {v.rule for v in validate(EXAMPLE, schedule)}, rule
    skipped_stage = Schedule((None, 0, 1, None, 1, 1), (None, 3, 4, None, 0, 2))
    assert "precedence" in {v.rule for v in validate(EXAMPLE, skipped_stage)}
    late = Schedule((0, 0, 1, 0, 1, 1), (0, 3, 4, 5, 0, 2))  # job 1 runs but ends at 9 > D
    assert validate(EXAMPLE, late) == [] and completed_jobs(EXAMPLE, late) == [0, 2]


def test_selection_parameters_and_bounds():
    assert theorem1_parameter(EXAMPLE) == 1 - Fraction(1, 2) * Fraction(5, 6)
    assert tuned_parameter(EXAMPLE) == 1 - Fraction(1, 5) * Fraction(1, 2) * Fraction(5, 6)
    assert select(EXAMPLE, Fraction(1)) in ([0, 2], [0, 1])  # work 11 <= 12, reward 11
    assert knapsack_bound(EXAMPLE) == 11
    assert lp_bound(EXAMPLE) == 4 + 7 + Fraction(1, 4) * 4  # ratios 1, 1, 1: by index, job 2 a quarter


def test_dispatchers_are_non_delay_and_valid():
    # the check itself: in the hand-made optimum, job 1 could start at 5 on the idle processor 0
    assert _idle_while_runnable(EXAMPLE, Schedule((0, 0, 1, None, 1, 1), (0, 3, 4, None, 0, 2))) == (5, [3])
    for seed in range(150):
        inst = random_instance(seed, unit=seed % 2 == 0)
        for name, run in HEURISTICS.items():
            schedule = run(inst)
            assert validate(inst, schedule) == [], (inst.name, name)
        for policy in ("lcpf", "lcpf-remaining", "stcpu", "random"):
            schedule = dispatch(inst, range(len(inst.jobs)), policy, seed)
            assert validate(inst, schedule) == []
            assert _idle_while_runnable(inst, schedule) is None, (inst.name, policy)


def test_lcpf_reads_the_static_critical_path_and_lcpf_remaining_what_is_left():
    """One processor; A = [10] then [1] (T_inf 11), B = [5] [5] [5] (T_inf 15).
    Both run B's first stage first. When it ends, B has 10 left against A's
    11: the remaining reading switches to A, the static one keeps B (15)."""
    inst = DsspInstance(1, 100, (Job(11, ((10,), (1,))), Job(15, ((5,), (5,), (5,)))))
    assert dispatch(inst, [0, 1], "lcpf", 0).start == (15, 25, 0, 5, 10)
    assert dispatch(inst, [0, 1], "lcpf-remaining", 0).start == (5, 25, 0, 15, 20)


def _idle_while_runnable(inst, schedule):
    """An instant before D when a processor is idle and a task is runnable
    (its previous stage done) but waits, or None: the non-delay rule."""
    lengths, start = inst.lengths, schedule.start
    for t in range(inst.deadline):
        running = sum(1 for k, s in enumerate(start) if s is not None and s <= t < s + lengths[k])
        for j, job in enumerate(inst.jobs):
            for g in range(len(job.stages)):
                before = inst.stage_slice(j, g - 1) if g else range(0)
                if any(start[b] is None or start[b] + lengths[b] > t for b in before):
                    break
                waiting = [k for k in inst.stage_slice(j, g) if start[k] is None or start[k] > t]
                if waiting and running < inst.processors:
                    return t, waiting
    return None


def test_cpsat_and_milp_agree_and_meet_the_bounds():
    """At least 200 random small instances (size and unit rewards), both
    backends prove each; the optimum never exceeds the knapsack bound, which
    never exceeds the LP bound, and no heuristic beats the optimum."""
    by_model = 0
    for seed in range(200):
        inst = small_workload(seed, reward=("size", "unit")[seed % 2])
        a, b = solve(inst, None, "cpsat", 20), solve(inst, None, "milp", 20)
        assert a.status == b.status == OPTIMAL, inst.name
        assert a.objective == b.objective, inst.name
        for result in (a, b):
            assert validate(inst, result.schedule) == [] and reward(inst, result.schedule) == result.objective
        assert a.objective <= knapsack_bound(inst) <= lp_bound(inst)
        assert all(reward(inst, run(inst)) <= a.objective for run in HEURISTICS.values())
        by_model += a.method == "model"
    assert by_model >= 20


def test_the_knapsack_selection_scheduled_exactly_meets_the_bound(monkeypatch):
    """Every list scheduler leaves a unit of the knapsack selection undone
    here (work 24 = P D, heuristics earn at most 21); the model schedules
    the selection alone (the first job, too long for D, left out) to the
    knapsack bound, optimal by that bound, or by the LP floor where the
    DP table would not fit."""
    import schedbench.solvers.dssp as dssp_solver

    inst = DsspInstance(3, 8, (Job(9, ((9,),)), Job(12, ((5, 1, 4), (1,), (1,))), Job(9, ((2, 4, 3),)),
                               Job(3, ((2, 1),))))
    assert max(reward(inst, run(inst)) for run in HEURISTICS.values()) == 21 and knapsack_bound(inst) == 24
    for solver in model_backends():
        result = solve(inst, None, solver, 10)
        assert (result.status, result.objective, result.method) == (OPTIMAL, 24, "kernel-search"), solver
        assert validate(inst, result.schedule) == [] and result.proof == ("knapsack-bound",)
        assert result.schedule.start[0] is None and completed_jobs(inst, result.schedule) == [1, 2, 3]
    monkeypatch.setattr(dssp_solver, "dp_fits", lambda *args, **kw: False)
    result = solve(inst, None, "cpsat", 10)
    assert (result.status, result.objective, result.method, result.proof) == (OPTIMAL, 24, "kernel-search",
                                                                               ("lp-dantzig",))


def test_the_kernel_search_packs_another_set_where_the_selection_cannot():
    """The knapsack selection (jobs 1-3: tasks 3, 4, 4, 2, 4, 2, 1, work
    20 = P D) cannot pack into 4 processors of 5 without idling (three 4s,
    one 1); the heuristics earn 17. The next bucket of the kernel search
    brings jobs whose tasks pack exactly (5 | 5 | 3 + 2 | 4 + 1): optimal by
    the knapsack bound, on both backends."""
    inst = DsspInstance(4, 5, (Job(5, ((5,),)), Job(11, ((3, 4, 4),)), Job(6, ((2, 4),)), Job(3, ((2, 1),)),
                               Job(8, ((3, 5),)), Job(4, ((4,),))))
    assert select(inst, Fraction(1)) == [1, 2, 3] and knapsack_bound(inst) == 20
    assert max(reward(inst, run(inst)) for run in HEURISTICS.values()) == 17
    for solver in model_backends():
        result = solve(inst, None, solver, 10)
        assert (result.status, result.objective, result.method) == (OPTIMAL, 20, "kernel-search"), solver
        assert validate(inst, result.schedule) == [] and result.proof == ("knapsack-bound",)
        assert completed_jobs(inst, result.schedule) != [1, 2, 3]


def test_the_kernel_grows_by_buckets_in_the_lp_order(monkeypatch):
    """Kernels asked for, each for the selection's reward 14: the selection,
    then buckets of >= P D = 8 work from the other candidates by reward per
    work (job 5, T_inf 5 > D, is none), ties by shorter critical path then
    work then index: 1 | 6, 7 (density 1) | 10, then 12, 11, 9 (density
    1/2, critical paths 1, 2, 4) | 8; no more than KERNEL_BUCKETS buckets,
    and no empty one."""
    import schedbench.solvers.dssp as dssp_solver

    inst = DsspInstance(2, 4, (Job(6, ((3,),)), Job(5, ((4,),)), Job(4, ((2,),)), Job(3, ((1,), (1,))),
                               Job(1, ((1,),)), Job(9, ((5,),)), Job(2, ((2,),)), Job(3, ((3,),)), Job(1, ((4,),)),
                               Job(2, ((4,),)), Job(3, ((2,), (1,))), Job(1, ((2,),)), Job(1, ((1, 1),))))
    asked = []
    monkeypatch.setattr(dssp_solver, "_schedule_within", lambda instance, jobs, solver, seconds, at_least:
                        asked.append((jobs, at_least)))
    selection = select(inst, Fraction(1))
    assert selection == [0, 2, 3, 4]
    assert dssp_solver.kernel_search(inst, selection, "cpsat", 10) is None
    assert asked == [([0, 2, 3, 4], 14), ([0, 1, 2, 3, 4, 6, 7], 14), ([0, 1, 2, 3, 4, 6, 7, 9, 10, 11, 12], 14),
                     ([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12], 14)]
    asked.clear()
    monkeypatch.setattr(dssp_solver, "KERNEL_BUCKETS", 1)
    dssp_solver.kernel_search(inst, selection, "cpsat", 10)
    assert len(asked) == 2
    asked.clear()
    monkeypatch.setattr(dssp_solver, "KERNEL_BUCKETS", 9)  # the candidates run out after three
    dssp_solver.kernel_search(inst, selection, "cpsat", 10)
    assert len(asked) == 4


def test_example_optimum_and_command(tmp_path):
    path = write_json(tmp_path, "example.json", instance_to_json(EXAMPLE))
    out = run_cli("solve", path, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["status"] == "optimal" and result["objective"] == 11
    bad = write_json(tmp_path, "bad.json", {**DSSP, "deadline": -3})
    out = run_cli("solve", bad)
    assert out.returncode == 2 and "deadline" in out.stderr and "Traceback" not in out.stderr


def test_claim_checks_catch_violations_and_shrink(tmp_path):
    """Theorem 1's check and the bound check fail when the optimum is too
    large for them (a planted wrong optimum), and a ledger run on real
    optima finds nothing and saves nothing."""
    from schedbench.claims import shrink
    from schedbench.claims.dssp import DsspCase, paper_bound, smaller_instances, theorem1
    from schedbench.claims.dssp_run import instances, run

    unit = small_workload(0, reward="unit")
    case = DsspCase(unit)
    assert theorem1("lcpf")(case).holds and paper_bound(case).holds
    case.optimum = 10 * len(unit.jobs)  # cached_property: the planted value wins
    assert not theorem1("lcpf")(case).holds and not paper_bound(case).holds
    tallies = run(instances(12, seed=3), out_dir=tmp_path)
    assert all(t.violations == 0 and t.tried for t in tallies) and not list(tmp_path.iterdir())

    def too_many_jobs(inst) -> bool:  # a stand-in violation: shrinking must keep it and reach a minimum
        return len(inst.jobs) >= 2 and len(inst.lengths) >= 3

    small = shrink(small_workload(5), too_many_jobs, smaller_instances)
    assert too_many_jobs(small) and len(small.jobs) == 2 and len(small.lengths) == 3
    assert set(small.lengths) == {1} and small.processors == 1 and small.deadline == 1
    assert not any(too_many_jobs(s) for s in smaller_instances(small))


def test_generate_heuristic_and_bounds_commands(tmp_path):
    """The command line end to end: a reproducible generator, T2 from a file,
    a heuristic's metrics against the bound, the ledger on a few instances."""
    first = run_cli("generate", "dssp-small", "--seed", "4", "--reward", "unit")
    assert first.returncode == 0 and first.stdout == run_cli("generate", "dssp-small", "--seed", "4",
                                                             "--reward", "unit").stdout
    base = tmp_path / "base.json"
    assert run_cli("generate", "dssp-scaled", "--scale", "50", "-o", base).returncode == 0
    t2 = run_cli("generate", "dssp-t2", "--from", base, "--max-critical-path", "40")
    assert t2.returncode == 0
    assert max(sum(max(s) for s in job["stages"]) for job in json.loads(t2.stdout)["jobs"]) <= 40
    out = run_cli("heuristic", "lcpf", base, "--json")
    assert out.returncode == 0, out.stderr
    metrics = json.loads(out.stdout)["metrics"]
    assert 0 < metrics["reward"] <= metrics["knapsack_bound"] <= metrics["lp_bound"]
    assert run_cli("heuristic", "fifo", base).returncode == 2
    knapsack = write_json(tmp_path, "k.json", {"family": "knapsack", "format_version": 1, "capacity": 3, "items": []})
    out = run_cli("heuristic", "lcpf", knapsack)
    assert out.returncode == 2 and "known: dp, ortools" in out.stderr and "Traceback" not in out.stderr
    out = run_cli("heuristic", "dp", knapsack, "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["metrics"] == {"profit": 0, "weight": 0}
    ledger = run_cli("bounds", "dssp", "--instances", "8", "--out", tmp_path / "cex")
    assert ledger.returncode == 0 and "| dssp.thm1.lcpf |" in ledger.stdout
