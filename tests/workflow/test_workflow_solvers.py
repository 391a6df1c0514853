"""Exact max-SLR solvers for workflows: the ratio bisection over per-job
deadline questions, CP-SAT and time-indexed MILP models. Checked against a
hand-computed optimum, each other on random tiny instances, brute force,
the heuristics, a time limit, the MILP's size cap and the command line;
the CP-SAT model's energy rows against every schedule that meets them."""

import itertools
import json
import random
from fractions import Fraction

import pytest

from schedbench.errors import UserInputError
from schedbench.heuristics import workflow as heuristics
from schedbench.metrics.workflow import max_slr
from schedbench.model import instance_to_json, parse_instance
from schedbench.model.workflow import WorkflowSchedule
from schedbench.result import FEASIBLE, OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.cpsat import workflow as cpsat_model
from schedbench.solvers.milp import workflow as milp_model
from schedbench.solvers.workflow.structure import domains, eligible_clusters, energy_rows, orderings
from schedbench.validator import validate

from conftest import run_cli, write_json
from test_workflow import WORKFLOW


def random_instance(seed: int, kinds=(1, 2), clusters=(1, 3), cores=(1, 4), jobs=(2, 4), tasks=(1, 4),
                    execs=(1, 5), arrivals=(0, 5), colocate: bool = True):
    """A SPEC-valid workflow, every range inclusive: every kind offered by some
    cluster, task cores up to the widest cluster of its kind, edges i -> j
    (i < j) with probability 1/3; SPEC's placement rule unless ``colocate``
    is false."""
    rng = random.Random(seed)
    n_kinds = rng.randint(*kinds)
    platform = [{"cores": rng.randint(*cores), "kind": f"K{c if c < n_kinds else rng.randrange(n_kinds)}"}
                for c in range(rng.randint(max(clusters[0], n_kinds), clusters[1]))]
    widest: dict[str, int] = {}
    for cluster in platform:
        widest[cluster["kind"]] = max(widest.get(cluster["kind"], 0), cluster["cores"])
    drawn = []
    for _ in range(rng.randint(*jobs)):
        n = rng.randint(*tasks)
        kinds_of = [rng.choice(sorted(widest)) for _ in range(n)]
        drawn.append({"arrival": rng.randint(*arrivals),
                      "tasks": [{"exec": rng.randint(*execs), "cores": rng.randint(1, widest[kind]), "kind": kind,
                                 "succ": [j for j in range(i + 1, n) if rng.random() < 1 / 3]}
                                for i, kind in enumerate(kinds_of)]})
    return parse_instance({"family": "workflow", "format_version": 1, "name": f"workflow-test-{seed}",
                           "colocate": colocate, "clusters": platform, "jobs": drawn})


def assert_sound(inst, result) -> None:
    """The schedule is valid and its recomputed max-SLR is the reported objective."""
    assert validate(inst, result.schedule) == [], inst.name
    assert max_slr(inst, result.schedule) == result.objective, inst.name
    assert Fraction(1) <= result.bound <= result.objective, inst.name


def test_hand_computed_optimum(solver):
    # Job 0 (arrival 0, CP 7): a(2) -> b(3, GPU), c(1, both CPU cores) -> d(2); job 1 (arrival 1,
    # CP 4): one 4-long CPU task. Finishing job 0 at 7 needs a at 0, d at 5 and c somewhere in
    # [2, 5), taking the whole CPU cluster for that unit: job 1 (4 units from 1 on) must then
    # start after c, at 3 at best, so SLR_1 >= (7 - 1) / 4 = 3/2. Otherwise job 0 finishes at
    # 8 or later, SLR_0 >= 8/7, which is reached: job 1 on [1, 5) (SLR 1, beside a on the
    # other core), b [2, 5), c [5, 6), d [6, 8). Optimum 8/7 < 3/2.
    inst = parse_instance(WORKFLOW)
    result = solve(inst, solver=solver, time_limit=20)
    assert result.status == OPTIMAL and result.objective == result.bound == Fraction(8, 7)
    assert_sound(inst, result)


def test_a_successor_listed_twice_is_one_edge(solver):
    """SPEC does not forbid the repeat; the MILP once named the ordering twice and failed."""
    once = random_instance(0)
    twice = instance_to_json(once)
    task = next(t for job in twice["jobs"] for t in job["tasks"] if t["succ"])
    task["succ"] = task["succ"] + task["succ"][:1]
    inst = parse_instance(twice)
    result = solve(inst, solver=solver, time_limit=20)
    assert result.status == OPTIMAL and result.objective == solve(once, solver=solver, time_limit=20).objective
    assert_sound(inst, result)


def test_domains_clusters_and_orderings():
    inst = parse_instance(WORKFLOW)
    # heads 0, 2, 2, 5 and ranks 7, 5, 3, 2 in job 0; job 1 alone
    assert domains(inst, [8, 5]) == [(0, 1), (2, 3), (2, 5), (5, 6), (1, 1)]
    assert orderings(inst) == [(0, 1, 2), (0, 2, 2), (1, 3, 3), (2, 3, 1)]
    for model in (cpsat_model, milp_model):  # a window emptied by the deadlines: refuted without a model
        assert model.solve(inst, [6, 9], 5).status == "infeasible"
    # Three identical clusters and one wider, tasks placed alone: the r-th task fitting the identical ones may
    # use the first r + 1; the 3-core task fits the wide cluster only. Tasks 1 and 2 are twins (same data,
    # same predecessor).
    job = {"arrival": 0, "tasks": [{"exec": 1, "cores": 1, "kind": "K", "succ": [1, 2]},
                                   {"exec": 2, "cores": 2, "kind": "K", "succ": []}, {"exec": 2, "cores": 2, "kind": "K", "succ": []},
                                   {"exec": 2, "cores": 3, "kind": "K", "succ": []}]}
    twins = parse_instance({"family": "workflow", "format_version": 1, "colocate": False,
                            "clusters": [{"cores": 2, "kind": "K"}] * 3 + [{"cores": 3, "kind": "K"}], "jobs": [job]})
    assert eligible_clusters(twins) == [[0, 3], [0, 1, 3], [0, 1, 2, 3], [3]]
    assert (1, 2, 0) in orderings(twins)
    # Under SPEC's rule the job is one group whose widest task needs the wide cluster; a second job's
    # group of 2-core tasks is the first to fit the identical clusters, so it may use only the first.
    narrow = {"arrival": 0, "tasks": [{"exec": 1, "cores": 2, "kind": "K", "succ": []}, {"exec": 1, "cores": 1, "kind": "K", "succ": []}]}
    together = parse_instance({"family": "workflow", "format_version": 1,
                               "clusters": [{"cores": 2, "kind": "K"}] * 3 + [{"cores": 3, "kind": "K"}],
                               "jobs": [job, narrow]})
    assert together.placement_groups == ((0, 1, 2, 3), (4, 5))
    assert eligible_clusters(together) == [[3]] * 4 + [[0, 3]] * 2


@pytest.mark.parametrize("colocate,optimum", [(True, 2), (False, 1)])
def test_placement_rule_changes_the_optimum(solver, colocate, optimum):
    """The issue's instance: two 1-core clusters and a job of two independent
    5-unit tasks. Kept together (SPEC's default) they run one after the
    other, max-SLR 2; ``"colocate": false`` lets them run side by side, 1."""
    task = {"exec": 5, "cores": 1, "kind": "K", "succ": []}
    inst = parse_instance({"family": "workflow", "format_version": 1, "colocate": colocate,
                           "clusters": [{"cores": 1, "kind": "K"}] * 2, "jobs": [{"arrival": 0, "tasks": [task, task]}]})
    result = solve(inst, solver=solver, time_limit=20)
    assert result.status == OPTIMAL and result.objective == result.bound == optimum
    assert_sound(inst, result)
    for run in heuristics.HEURISTICS.values():
        assert validate(inst, run(inst)) == []


def test_backends_agree_and_beat_the_heuristics():
    """100 random tiny instances (a quarter with each task placed alone), both
    backends prove each, with the same exact optimum, >= 1 and <= every
    heuristic's (valid) schedule."""
    compared = asked = improved = 0
    for seed in range(100):
        inst = random_instance(seed, colocate=seed % 4 != 0)
        a, b = solve(inst, solver="cpsat", time_limit=20), solve(inst, solver="milp", time_limit=20)
        assert a.status == b.status == OPTIMAL, inst.name
        assert a.objective == b.objective >= 1, inst.name
        for result in (a, b):
            assert_sound(inst, result)
        for run in heuristics.HEURISTICS.values():
            schedule = run(inst)
            assert validate(inst, schedule) == [], inst.name
            assert a.objective <= max_slr(inst, schedule), inst.name
            compared += 1
        asked += a.details["questions"] > 0
        improved += a.objective < Fraction(a.details["incumbent_value"])
    # the models decide most of them, and beat the best heuristic on many
    assert compared == 700 and asked >= 50 and improved >= 20


def brute_force_optimum(inst) -> Fraction:
    """The least max-SLR over every cluster and start vector with starts below
    the horizon H = last arrival + total exec. Enough: left-shifting a
    schedule delays no task, and in a left-shifted one every task starts at
    an arrival or at another task's end, so a chain of such tasks back to an
    arrival covers the last finish, which is thus at most H."""
    horizon = max(job.arrival for job in inst.jobs) + sum(t.exec for t in inst.tasks)
    starts = [range(inst.jobs[inst.job_of_task[t]].arrival, horizon - task.exec + 1)
              for t, task in enumerate(inst.tasks)]
    machines = itertools.product(range(len(inst.clusters)), repeat=len(inst.tasks))
    return min(max_slr(inst, schedule) for machine, start in itertools.product(machines, itertools.product(*starts))
               if validate(inst, schedule := WorkflowSchedule(machine, start)) == [])


@pytest.mark.parametrize("clusters,cores,seeds,colocate", [
    ((1, 1), (1, 2), range(40), True),    # one cluster
    ((2, 2), (1, 1), range(12), True),    # two identical clusters, each job's tasks together
    ((2, 2), (1, 1), range(12), False)])  # two identical clusters, each task alone
def test_cpsat_matches_brute_force(clusters, cores, seeds, colocate):
    """Two jobs of 1-2 tasks of one kind, horizons up to 14; every placement
    on two identical clusters checks their symmetry breaking, like the twins',
    under both placement rules (the validator enforces the rule)."""
    contested = 0
    for seed in seeds:
        inst = random_instance(seed, kinds=(1, 1), clusters=clusters, cores=cores, jobs=(2, 2), tasks=(1, 2),
                               execs=(1, 3), arrivals=(0, 2), colocate=colocate)
        result = solve(inst, solver="cpsat", time_limit=20)
        assert result.status == OPTIMAL and result.objective == brute_force_optimum(inst), inst.name
        contested += result.objective > 1
    assert contested >= len(seeds) // 3


def test_time_limit_keeps_the_best_schedule_and_the_bound():
    # 12 jobs of 6-8 tasks on two clusters: not provable in 0.3 s (its first question alone takes longer)
    inst = random_instance(2, kinds=(1, 1), clusters=(2, 2), jobs=(12, 12), tasks=(6, 8), arrivals=(0, 10))
    result = solve(inst, solver="cpsat", time_limit=0.3)
    assert result.status in (FEASIBLE, OPTIMAL)
    assert_sound(inst, result)


def test_empty_workflow_is_optimal_at_zero(solver):
    inst = parse_instance({"family": "workflow", "format_version": 1, "clusters": [{"cores": 1, "kind": "K"}],
                           "jobs": []})
    result = solve(inst, solver=solver, time_limit=5)
    assert result.status == OPTIMAL and result.objective == result.bound == 0 and len(result.schedule) == 0


def test_milp_refuses_oversized_instances():
    long = {"arrival": 0, "tasks": [{"exec": 1000, "cores": 1, "kind": "K", "succ": [1]},
                                    {"exec": 1000, "cores": 1, "kind": "K", "succ": []}]}
    inst = parse_instance({"family": "workflow", "format_version": 1, "clusters": [{"cores": 1, "kind": "K"}],
                           "jobs": [long] * 30})
    with pytest.raises(UserInputError, match="^--solver:.*use --solver cpsat"):
        solve(inst, solver="milp", time_limit=5)
    with pytest.raises(UserInputError, match="^--solver:"):
        milp_model.solve(inst, [60_000] * 30, 5)


def test_solve_command_prints_the_exact_optimum(tmp_path):
    out = run_cli("solve", write_json(tmp_path, "w.json", WORKFLOW), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["status"] == "optimal" and result["objective_fraction"] == [8, 7]
    assert result["bound_fraction"] == [8, 7] and len(result["schedule"]["jobs"]) == 2


def test_the_confirming_configuration_refutes_what_presolve_refutes():
    """A question CP-SAT's presolve refutes at once (training instance of the
    frontier, 58 tasks): the confirming configuration, without presolve,
    refutes it too, thanks to timetable edge finding (without it: unknown
    after 3 s, with the overload checker alone), so no optimum waits on an
    unconfirmed claim there."""
    from bench.frontier import instance, lines
    from schedbench.solvers.cpsat import confirming

    inst = instance(next(line for line in lines() if line["name"] == "workflow max-slr"), 6, 12)
    deadlines = [21, 119, 46, 55, 68, 68, 52, 14, 24, 95, 74, 65, 64, 64, 10, 67, 25, 77, 56, 98, 31, 42, 74, 14]
    assert cpsat_model.solve(inst, deadlines, 5.0).status == "infeasible"
    with confirming():
        assert cpsat_model.solve(inst, deadlines, 5.0).status == "infeasible"


def test_energy_rows_make_the_choice_of_clusters_a_knapsack():
    """Four 2-unit tasks due at 2 on a 1-core and a 2-core cluster: the
    cumulatives see no overload until clusters are chosen, the rows say at
    most one fits the first and two the second, so the question is refuted."""
    task = {"exec": 2, "cores": 1, "kind": "K", "succ": []}
    inst = parse_instance({"family": "workflow", "format_version": 1,
                           "clusters": [{"cores": 1, "kind": "K"}, {"cores": 2, "kind": "K"}],
                           "jobs": [{"arrival": 0, "tasks": [task]}] * 4})
    window = domains(inst, [2] * 4)
    assert energy_rows(inst, window, eligible_clusters(inst)) == {(0, ((0, 2), (1, 2), (2, 2), (3, 2))): 2,
                                         (1, ((0, 2), (1, 2), (2, 2), (3, 2))): 4}
    assert cpsat_model.solve(inst, [2] * 4, 5).status == "infeasible"
    assert cpsat_model.solve(inst, [2, 2, 2, 4], 5).status == "optimal"


def canonical_clusters(inst, machine) -> list[int]:
    """``machine`` with identical clusters (same kind and cores) relabelled in
    the order of the first placement group each hosts: the same schedule,
    within the clusters ``eligible_clusters`` lets each group use."""
    members: dict[tuple, list[int]] = {}
    for c, cluster in enumerate(inst.clusters):
        members.setdefault((cluster.kind, cluster.cores), []).append(c)
    first = {}
    for g, group in enumerate(inst.placement_groups):
        first.setdefault(machine[group[0]], g)
    mapping = {}
    for alike in members.values():
        for new, old in zip(alike, sorted(alike, key=lambda c: (first.get(c, len(inst.placement_groups)), c))):
            mapping[old] = new
    return [mapping[c] for c in machine]


def test_energy_rows_hold_in_every_schedule_that_meets_the_deadlines():
    """Every heuristic's schedule on 300 random instances (both placement
    rules, up to 12 jobs), its identical clusters in the model's canonical
    order: with each job's deadline its own finish, the schedule meets
    every row (the rows cut nothing the model allows), and rows exist."""
    rows_seen = 0
    for seed in range(300):
        inst = random_instance(seed, clusters=(2, 4), jobs=(2, 12), colocate=seed % 2 == 0)
        for run in heuristics.HEURISTICS.values():
            schedule = run(inst)
            machine = canonical_clusters(inst, schedule.machine)
            assert all(c in options for c, options in zip(machine, eligible_clusters(inst))), inst.name
            finish = [max(schedule.start[t] + inst.tasks[t].exec for t in inst.task_slice(k))
                      for k in range(len(inst.jobs))]
            for (c, terms), most in energy_rows(inst, domains(inst, finish), eligible_clusters(inst)).items():
                used = sum(energy for g, energy in terms if machine[inst.placement_groups[g][0]] == c)
                assert used <= most, (inst.name, c, terms, most)
                rows_seen += 1
    assert rows_seen >= 2000


def test_energy_rows_stay_within_64_bit_sums():
    """SPEC's largest exec and cores (2^40 and 2^24) would make rows whose
    sums pass 64-bit integers: they are left out, and the model answers as
    without them (two full-width tasks per cluster at most: max-SLR 2)."""
    big = 2 ** 24
    for exec_ in (2 ** 40, 2 ** 38):
        wide = {"exec": exec_, "cores": big, "kind": "K", "succ": []}
        inst = parse_instance({"family": "workflow", "format_version": 1,
                               "clusters": [{"cores": big, "kind": "K"}] * 2,
                               "jobs": [{"arrival": 0, "tasks": [wide]}, {"arrival": 0, "tasks": [wide]},
                                        {"arrival": 0, "tasks": [wide, {"exec": 1, "cores": 1, "kind": "K", "succ": []}]}]})
        result = solve(inst, solver="cpsat", time_limit=20)
        assert result.status == OPTIMAL and result.objective == 2
        assert_sound(inst, result)


def test_the_model_avoids_cp_sat_s_symmetry_crash():
    """With the energy rows, CP-SAT 9.15's symmetry detection crashed
    (IndexError out of the solve) on this question of a frontier training
    instance (12 tasks, two identical 1-core clusters); the model runs
    without it, and both configurations refute the question."""
    from bench.frontier import instance, lines
    from schedbench.solvers.cpsat import confirming

    inst = instance(next(line for line in lines() if line["name"] == "workflow max-slr, colocate off"), 2, 16)
    assert cpsat_model.solve(inst, [6, 9, 7, 7, 11, 11], 5.0).status == "infeasible"
    with confirming():
        assert cpsat_model.solve(inst, [6, 9, 7, 7, 11, 11], 5.0).status == "infeasible"
