"""Workflow online list scheduling (P-SLR paper §2.3-§4.2): every policy's
order on hand-worked examples, every schedule valid and work-conserving on
hundreds of generated instances (with and without network delays and
inaccurate estimates), the cascade allocation, the network model, the
estimate models, and P-SLR's starvation freedom."""

import json
from fractions import Fraction

import pytest

from schedbench.heuristics.workflow import ESTIMATE_POLICIES, POLICIES, simulate
from schedbench.heuristics.workflow_estimates import log_rounding, normal_error
from schedbench.instances.workflow import small_workload, starvation_stream, synthetic_workload
from schedbench.metrics.workflow import network_critical_paths, slr_class, slrs, waiting_times
from schedbench.model import instance_to_json, parse_instance, schedule_to_json
from schedbench.model.workflow import Network, WorkflowSchedule
from schedbench.validator import validate

from conftest import run_cli, write_json


def workflow(clusters, jobs, **extra):
    return parse_instance({"family": "workflow", "format_version": 1, "clusters": clusters, "jobs": jobs, **extra})


def single(exec_time, arrival=0, cores=1, kind="K", user=None, succ=()):
    job = {"arrival": arrival, "tasks": [{"exec": exec_time, "cores": cores, "kind": kind, "succ": list(succ)}]}
    return job | ({"user": user} if user else {})


ONE_CORE = [{"cores": 1, "kind": "K"}]


def assert_idle_only_behind_a_head(inst, schedule) -> None:
    """Independently of the simulator: at every instant a task becomes ready
    or one ends, a cluster leaves free cores unused by a waiting task that
    fits only while another waiting task, its head, does not fit (strict
    priority order never idles cores for nothing)."""
    tasks = inst.tasks
    ready = [s - w for s, w in zip(schedule.start, waiting_times(inst, schedule))]
    instants = set(ready) | {s + t.exec for s, t in zip(schedule.start, tasks)}
    for now in instants:
        for c, cluster in enumerate(inst.clusters):
            busy = sum(t.cores for i, t in enumerate(tasks) if schedule.machine[i] == c
                       and schedule.start[i] <= now < schedule.start[i] + t.exec)
            waiting = [t.cores for i, t in enumerate(tasks)
                       if schedule.machine[i] == c and ready[i] <= now < schedule.start[i]]
            free = cluster.cores - busy
            assert not waiting or max(waiting) > free, f"cluster {c} idles {free} cores at {now} for {waiting}"


def test_orders_on_one_core():
    # Three jobs at 0 of lengths 5, 2, 9: FIFO by readiness, SRTF shortest first, LRTF longest first.
    inst = workflow(ONE_CORE, [single(5), single(2), single(9)])
    assert simulate(inst, "fifo-task").start == (0, 5, 7)
    assert simulate(inst, "srtf").start == (2, 0, 7)
    assert simulate(inst, "lrtf").start == (9, 14, 0)
    # P-SLR at 0: (CP + 1) / CP, largest for the shortest job (3/2); at 2, Q = {5, 9}, max CP 9:
    # 8/5 + (2/9)^2 > 12/9 + (2/9)^2, so 5 before 9: the same order as SRTF here.
    assert simulate(inst, "pslr").start == (2, 0, 7)


def test_pslr_lets_a_long_waiting_job_go_before_a_newcomer():
    # J0 (20) holds the core on [0, 20); J1 (12) waits from 1; J2 (2) arrives at 19. At 20, Q's max CP
    # is 12: J1's projection (12 + 20 + 1 - 1)/12 + (19/12)^2 = 5.17 beats J2's (2 + 20 + 1 - 19)/2
    # + (1/12)^2 = 2.01, so P-SLR runs J1 where SRTF runs the newcomer.
    inst = workflow(ONE_CORE, [single(20), single(12, arrival=1), single(2, arrival=19)])
    assert simulate(inst, "pslr").start == (0, 20, 32)
    assert simulate(inst, "srtf").start == (0, 22, 20)


def test_fifo_job_keeps_a_job_together_where_fifo_task_does_not():
    # J0 is a chain a -> b, J1 one task, all length 1, both at 0. When b becomes ready at 1,
    # J1's task has been ready since 0 (FIFO Task runs it first), but J0 arrived first (FIFO Job).
    chain = {"arrival": 0, "tasks": [{"exec": 1, "cores": 1, "kind": "K", "succ": [1]},
                                     {"exec": 1, "cores": 1, "kind": "K", "succ": []}]}
    inst = workflow(ONE_CORE, [chain, single(1)])
    assert simulate(inst, "fifo-task").start == (0, 2, 1)
    assert simulate(inst, "fifo-job").start == (0, 1, 2)


def test_fair_share_follows_the_group_tree():
    # Groups A and B share 1:1; A has users a1, a2, B has b1; three tasks each, 3 cores, all at 0.
    # First pick: all at 0, ready order -> a1 (A uses 1). Then B (0) < A (1) -> b1. Then A = B = 1,
    # and within A, a2 (0) < a1 (1) -> a2. FIFO would give a1's three tasks the three cores.
    shares = {"A": {"share": 1}, "B": {"share": 1}, "a1": {"share": 1, "parent": "A"},
              "a2": {"share": 1, "parent": "A"}, "b1": {"share": 1, "parent": "B"}}
    jobs = [single(10, user=u) for u in ("a1", "a1", "a1", "a2", "a2", "a2", "b1", "b1", "b1")]
    inst = workflow([{"cores": 3, "kind": "K"}], jobs, shares=shares)
    starts = simulate(inst, "fair-share").start
    assert [k for k, s in enumerate(starts) if s == 0] == [0, 3, 6]
    assert [k for k, s in enumerate(simulate(inst, "fifo-task").start) if s == 0] == [0, 1, 2]


def test_a_wide_head_holds_its_cluster():
    # 2 cores, a 1-core task runs on [0, 4); the 2-core task ready at 1 heads the queue and waits for
    # both cores; the 1-core task ready at 2 waits behind it instead of taking the free core.
    inst = workflow([{"cores": 2, "kind": "K"}], [single(4), single(3, arrival=1, cores=2), single(1, arrival=2)])
    assert simulate(inst, "fifo-task").start == (0, 4, 7)


def test_random_is_seeded():
    inst = small_workload(7, jobs=(8, 8))
    assert simulate(inst, "random", seed=3) == simulate(inst, "random", seed=3)
    assert any(simulate(inst, "random", seed=s) != simulate(inst, "random", seed=0) for s in range(1, 10))


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_valid_on_generated_instances(policy):
    for seed in range(150):
        inst = small_workload(seed)
        variants = [simulate(inst, policy, seed=seed),
                    simulate(inst, policy, network=Network(Fraction(1, 5)), seed=seed),
                    simulate(inst, policy, estimates=normal_error(inst, 1000, seed), seed=seed)]
        for schedule in variants:
            assert validate(inst, schedule) == [], (seed, schedule)
            assert_idle_only_behind_a_head(inst, schedule)
    for seed in range(3):
        inst = synthetic_workload(seed, jobs=40)
        for options in ({}, {"network": Network(Fraction(2, 5))}, {"estimates": log_rounding(inst, 10)}):
            schedule = simulate(inst, policy, seed=seed, **options)
            assert validate(inst, schedule) == [] and None not in schedule.start


def test_tasks_of_a_kind_share_a_cluster_and_clusters_draw_by_cores():
    inst = synthetic_workload(1, jobs=400)
    schedule = simulate(inst, "fifo-task")
    for k, job in enumerate(inst.jobs):
        used: dict[str, set] = {}
        for t, task in zip(inst.task_slice(k), job.tasks):
            used.setdefault(task.kind, set()).add(schedule.machine[t])
        assert all(len(clusters) == 1 for clusters in used.values()), k
    # Kind1 offers clusters 0, 2, 3 with 400 cores each: cluster 0 should get about a third of the jobs.
    assert 0.25 < _share_of_kind1_on_cluster_0(inst, schedule) < 0.42
    # uniform children (the alternative reading): the router above clusters 0 and 1 gets half
    assert 0.42 < _share_of_kind1_on_cluster_0(inst, simulate(inst, "fifo-task", cascade="uniform")) < 0.58


def _share_of_kind1_on_cluster_0(inst, schedule) -> float:
    firsts = [next(schedule.machine[t] for t, task in zip(inst.task_slice(k), job.tasks) if task.kind == "Kind1")
              for k, job in enumerate(inst.jobs) if any(task.kind == "Kind1" for task in job.tasks)]
    return firsts.count(0) / len(firsts)


def test_network_delays_follow_the_thin_tree():
    # Eq. 4 with CCR 1/5: data = 2 * (4/5) / (1/5) = 8; one level up: speed 1^-1 = 1, two levels: 2^-1.
    net = Network(Fraction(1, 5))
    assert (net.delay(2, 0), net.delay(2, 1), net.delay(2, 2)) == (0, 8, 16)
    assert Network(Fraction(1), -1).delay(50, 2) == 0 and Network(Fraction(1, 3), -2).delay(3, 2) == 24
    with pytest.raises(ValueError):
        Network(Fraction(0))
    clusters = [{"cores": 1, "kind": "K1"}, {"cores": 1, "kind": "K2"}, {"cores": 1, "kind": "K1"}]
    chain = {"arrival": 0, "tasks": [{"exec": 2, "cores": 1, "kind": "K1", "succ": [1]},
                                     {"exec": 1, "cores": 1, "kind": "K2", "succ": []}]}
    inst = workflow(clusters, [chain], network=[[0, 1], [2]])
    seen = set()
    for seed in range(20):
        schedule = simulate(inst, "fifo-task", network=net, seed=seed)
        first = schedule.machine[0]
        assert schedule.start[1] == 2 + {0: 8, 2: 16}[first]
        seen.add(first)
        assert validate(inst, schedule) == []
    assert seen == {0, 2}
    no_delay = WorkflowSchedule((0, 1), (0, 2), net)  # b starts when a ends, as without a network
    assert [v.rule for v in validate(inst, no_delay)] == ["network-delay"]
    assert validate(inst, WorkflowSchedule((0, 1), (0, 2))) == []


def test_estimate_models():
    inst = workflow(ONE_CORE, [single(e) for e in (1, 2, 10, 11, 999)])
    assert log_rounding(inst, 10) == [1, 10, 10, 100, 1000]
    assert log_rounding(inst, 1) == [1, 2, 10, 11, 999] and log_rounding(inst, 10**7) == [1] + [10**7] * 4
    assert normal_error(inst, 0) == [1, 2, 10, 11, 999]
    assert normal_error(inst, 50, seed=4) == normal_error(inst, 50, seed=4) != normal_error(inst, 50, seed=5)
    assert min(normal_error(inst, 10**6, seed=1)) >= 1
    # a draw <= 0 (about half of them at N = 10^6 %) is clamped to 1, or drawn again
    many = workflow(ONE_CORE, [single(e) for e in range(2, 402)])
    clamped, redrawn = normal_error(many, 10**6, seed=1), normal_error(many, 10**6, seed=1, negative="redraw")
    assert 150 < clamped.count(1) < 250 and redrawn.count(1) == 0 and min(redrawn) >= 1
    with pytest.raises(ValueError):
        normal_error(many, 10, negative="keep")
    with pytest.raises(ValueError):
        log_rounding(inst, 0)


def test_estimates_steer_only_the_policies_that_read_them():
    inst = synthetic_workload(2, jobs=300)  # enough jobs for queues to form on the 1,600 cores
    wrong = normal_error(inst, 10_000, seed=1)
    for policy in POLICIES:
        same = simulate(inst, policy, estimates=wrong) == simulate(inst, policy)
        assert same == (policy not in ESTIMATE_POLICIES), policy
    # Reversed estimates turn SRTF into LRTF on independent one-task jobs.
    inst = workflow(ONE_CORE, [single(5), single(2), single(9)])
    assert simulate(inst, "srtf", estimates=[5, 9, 2]).start == simulate(inst, "lrtf").start


def test_pslr_is_starvation_free_where_srtf_and_lrtf_starve():
    """§3: a lone long (short) job in a sustained overload stream of short
    (long) jobs waits as long as the stream lasts under SRTF (LRTF); under
    P-SLR its wait does not grow with the stream."""
    for lone, starver in (("long", "srtf"), ("short", "lrtf")):
        waits = {}
        for length in (600, 1200):
            inst = starvation_stream(length, lone=lone)
            for policy in ("pslr", starver):
                waits[policy, length] = waiting_times(inst, simulate(inst, policy))[0]
        assert waits["pslr", 600] == waits["pslr", 1200] < 100, waits
        assert waits[starver, 600] >= 600 and waits[starver, 1200] >= 1200, waits
    # A wide job behind pairs of narrow ones: strict priority order starts it within one gap.
    for length in (600, 1200):
        inst = starvation_stream(length, lone="wide")
        assert max(waiting_times(inst, simulate(inst, policy))[0] for policy in POLICIES if policy != "random") <= 5


def test_heuristic_command_with_network_and_estimates(tmp_path):
    inst = small_workload(3)
    path = write_json(tmp_path, "w.json", instance_to_json(inst))
    out = run_cli("heuristic", "pslr", path, "--json", "-o", "ccr=1/5", "-o", "estimate=log:10", "-o", "seed=2")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["schedule"]["network"] == {"ccr": [1, 5], "exponent": -1}
    assert Fraction(*result["metrics"]["max_slr_fraction"]) >= 1
    schedule = write_json(tmp_path, "s.json", result)
    assert run_cli("validate", path, schedule).returncode == 0
    for bad in (("ccr=0",), ("estimate=normal:x",), ("estimate=log:0",), ("estimate=normal:inf",),
                ("estimate=log:10000000000000000000",), ("network_exponent=3",),
                ("ccr=1/2", "network_exponent=99")):
        out = run_cli("heuristic", "pslr", path, *(a for option in bad for a in ("-o", option)))
        field = "options." + bad[-1].partition("=")[0]
        assert out.returncode == 2 and field in out.stderr and "Traceback" not in out.stderr, out.stderr
    out = run_cli("heuristic", "lpt", write_json(tmp_path, "p.json", {"family": "pcmax", "format_version": 1,
                                                                       "machines": 2, "jobs": [1]}), "-o", "ccr=1/2")
    assert out.returncode == 2 and "options.ccr" in out.stderr
    out = run_cli("generate", "starvation-stream", "--lone", "wide", "--length", "20")
    assert out.returncode == 0 and parse_instance(json.loads(out.stdout)).clusters[0].cores == 2
    schedule_json = schedule_to_json(inst, simulate(inst, "srtf"))
    assert "network" not in schedule_json


def test_network_critical_path_counts_the_delays_between_clusters():
    clusters = [{"cores": 1, "kind": "K1"}, {"cores": 1, "kind": "K2"}]
    chain = {"arrival": 3, "tasks": [{"exec": 2, "cores": 1, "kind": "K1", "succ": [1]},
                                     {"exec": 1, "cores": 1, "kind": "K2", "succ": []}]}
    inst = workflow(clusters, [chain])
    schedule = simulate(inst, "pslr", network=Network(Fraction(1, 5)))  # a on 0, b on 1: data 8, one level
    assert schedule.start == (3, 13)
    assert network_critical_paths(inst, schedule) == [2 + 8 + 1]
    assert slrs(inst, schedule, with_network=True) == [Fraction(11, 11)] and slrs(inst, schedule) == [Fraction(11, 3)]


def test_slr_class_reading():
    # Fewer than 10 jobs, or a single length: no reading. Equal SLRs: rho 0, Class 3.
    three = workflow(ONE_CORE, [single(1), single(10), single(100)])
    assert slr_class(three, simulate(three, "srtf")) == (None, None)
    spread = workflow([{"cores": 12, "kind": "K"}], [single(1 + k) for k in range(12)])
    assert slr_class(spread, simulate(spread, "fifo-task")) == (0.0, 3)
    same = workflow(ONE_CORE, [single(5)] * 12)
    assert slr_class(same, simulate(same, "fifo-task")) == (None, None)
    # 40 jobs, short ones queued behind long ones under LRTF: short jobs' SLRs are the large ones.
    mixed = workflow(ONE_CORE, [single(2 if k % 2 else 50) for k in range(40)])
    rho, found = slr_class(mixed, simulate(mixed, "lrtf"))
    assert rho < -0.5 and found == 1
    assert slr_class(mixed, simulate(mixed, "srtf"))[0] > rho + 0.5  # the short jobs go first
