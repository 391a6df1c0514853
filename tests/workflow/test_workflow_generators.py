"""Workflow generators (P-SLR paper §4.1 platform, synthetic overload, small
workloads, SWF traces) are seeded, reproducible, SPEC-valid and keep the
distributions their docstring promises."""

import json
import math
from collections import Counter
from fractions import Fraction

import networkx as nx
import pytest

from conftest import SAMPLE_TRACE

from schedbench.errors import InstanceError
from schedbench.instances.workflow import paper_platform, small_workload, synthetic_workload, workflows_from_swf
from schedbench.model import instance_to_json, parse_instance
from schedbench.model.workflow import Cluster

NASA = SAMPLE_TRACE  # the tests' sample workload (64 processors, 240 jobs)


def dumped(instance):
    return json.dumps(instance_to_json(instance))


def round_trip(instance):
    """Through JSON text and SPEC validation; must come back unchanged."""
    back = parse_instance(json.loads(dumped(instance)))
    assert back == instance
    assert dumped(back) == dumped(instance)
    for job in back.jobs:
        assert nx.is_directed_acyclic_graph(job.graph)
    return back


@pytest.fixture(scope="module")
def synthetic():
    return synthetic_workload(0)


@pytest.fixture(scope="module")
def nasa():
    return workflows_from_swf(NASA, max_jobs=200), workflows_from_swf(NASA, max_jobs=200, chains=True)


def test_paper_platform():
    clusters, network = paper_platform()
    assert clusters == (Cluster(400, "Kind1"), Cluster(400, "Kind2"), Cluster(400, "Kind1"), Cluster(400, "Kind1"))
    assert network == ((0, 1), (2, 3))


def test_same_seed_same_bytes_other_seed_other_bytes():
    makers = (lambda s: synthetic_workload(s, jobs=50), lambda s: synthetic_workload(s, jobs=20, load=Fraction(3)),
              lambda s: small_workload(s), lambda s: small_workload(s, jobs=(5, 8), clusters=(2, 4)))
    for make in makers:
        assert dumped(make(3)) == dumped(make(3))
        assert dumped(make(3)) != dumped(make(4))


def test_synthetic_is_valid_and_on_the_paper_platform(synthetic):
    back = round_trip(synthetic)
    assert (back.clusters, back.network) == paper_platform()
    assert len(back.jobs) == 1000
    assert back.meta["generator"] == "workflow-synthetic" and back.meta["seed"] == 0
    assert back.meta["load"] == [6, 5]
    for job in back.jobs:
        assert 1 <= len(job.tasks) <= 20
        assert all(t.cores in (1, 2, 4, 8, 16, 32) for t in job.tasks)
        # one size class per job: every exec in [10^d, 10^(d+1)] for one d
        low, high = min(t.exec for t in job.tasks), max(t.exec for t in job.tasks)
        assert any(10 ** d <= low and high <= 10 ** (d + 1) for d in range(5))
        # layered: every task but the sources has a predecessor, sources come first
        preds = [0] * len(job.tasks)
        for t in job.tasks:
            for s in t.succ:
                preds[s] += 1
        sources = [i for i, p in enumerate(preds) if p == 0]
        assert sources == list(range(len(sources)))


def test_synthetic_load_window_and_arrivals(synthetic):
    meta = synthetic.meta
    capacity = sum(c.cores for c in synthetic.clusters)
    work = sum(t.exec * t.cores for t in synthetic.tasks)
    window, load = meta["window"], Fraction(*meta["load"])
    assert (meta["work"], meta["capacity"]) == (work, capacity)
    assert window == math.ceil(Fraction(work) / (load * capacity))
    realized = Fraction(*meta["realized_load"])
    assert realized == Fraction(work, window * capacity)
    # T rounds W / (load C) up: (T - 1) / T * load < realized <= load
    assert load * (window - 1) / window < realized <= load
    assert load * window / (window + 1) <= realized  # holds here (T is large); not for tiny T
    arrivals = [job.arrival for job in synthetic.jobs]
    assert arrivals == sorted(arrivals)
    assert 0 <= arrivals[0] and arrivals[-1] <= window
    assert arrivals[-1] > window * 9 // 10 and arrivals[0] < window // 10  # spread over the window


def test_synthetic_load_bound_on_small_windows():
    for seed in range(30):
        inst = synthetic_workload(seed, jobs=3, load=Fraction(1, 2), max_tasks=3, decades=2)
        window, realized = inst.meta["window"], Fraction(*inst.meta["realized_load"])
        assert Fraction(1, 2) * (window - 1) / window < realized <= Fraction(1, 2)
        assert all(0 <= job.arrival <= window for job in inst.jobs)
        round_trip(inst)


def test_synthetic_spans_decades_and_kinds_in_proportion(synthetic):
    execs = [t.exec for t in synthetic.tasks]
    assert max(execs) / min(execs) >= 10 ** 4
    classes = Counter(min(len(str(min(t.exec for t in job.tasks))) - 1, 4) for job in synthetic.jobs)
    assert len(classes) == 5 and min(classes.values()) > 150  # each of 5 decades ~ 200 jobs
    kinds = Counter(t.kind for t in synthetic.tasks)
    assert 0.2 < kinds["Kind2"] / len(synthetic.tasks) < 0.3


def test_synthetic_users_and_shares(synthetic):
    shares = {name: (share, parent) for name, share, parent in synthetic.shares}
    assert {g: shares[g] for g in ("g0", "g1", "g2")} == {"g0": (3, None), "g1": (2, None), "g2": (1, None)}
    assert all(shares[f"u{i}"] == (1, f"g{i % 3}") for i in range(12))
    assert len(shares) == 15
    users = Counter(job.user for job in synthetic.jobs)
    assert set(users) <= set(shares) and len(users) == 12
    other = synthetic_workload(1, jobs=30, users=5, groups=5)
    assert {job.user for job in other.jobs} <= {f"u{i}" for i in range(5)}
    round_trip(other)


def test_small_workloads_stay_in_their_ranges():
    kinds_seen = set()
    for seed in range(200):
        inst = small_workload(seed)
        round_trip(inst)
        assert 1 <= len(inst.clusters) <= 3 and all(1 <= c.cores <= 4 for c in inst.clusters)
        kinds = {c.kind for c in inst.clusters}
        kinds_seen.add(len(kinds))
        assert kinds in ({"Kind1"}, {"Kind1", "Kind2"})
        assert 2 <= len(inst.jobs) <= 4
        assert inst.network == () and inst.shares == ()
        for job in inst.jobs:
            assert 0 <= job.arrival <= 5 and 1 <= len(job.tasks) <= 4 and job.user is None
            for i, t in enumerate(job.tasks):
                assert 1 <= t.exec <= 6 and t.kind in kinds
                assert 1 <= t.cores <= max(c.cores for c in inst.clusters if c.kind == t.kind)
                assert all(i < s < len(job.tasks) for s in t.succ)
    assert kinds_seen == {1, 2}
    one = small_workload(5, clusters=(1, 1), jobs=(3, 3), tasks=(2, 2), exec_range=(7, 9), arrival=(2, 2))
    assert len(one.clusters) == 1 and one.clusters[0].kind == "Kind1" and len(one.jobs) == 3
    assert all(job.arrival == 2 and len(job.tasks) == 2 and all(7 <= t.exec <= 9 for t in job.tasks)
               for job in one.jobs)
    assert one.meta["generator"] == "workflow-small" and one.meta["seed"] == 5


def test_swf_one_task_jobs(nasa):
    inst, _ = nasa
    back = round_trip(inst)
    assert len(back.jobs) == 200 and all(len(job.tasks) == 1 for job in back.jobs)
    arrivals = [job.arrival for job in back.jobs]
    assert arrivals[0] == 0 and arrivals == sorted(arrivals)
    assert back.clusters == (Cluster(64, "Kind1"),)
    assert all(t.cores <= 64 and t.kind == "Kind1" for t in back.tasks)
    assert all(job.user.startswith("u") for job in back.jobs)
    meta = back.meta
    assert meta["generator"] == "workflow-swf" and meta["trace"] == NASA.name and meta["jobs_read"] == 200
    assert meta["chains"] is False and meta["acknowledge"] == "schedbench test sample"
    assert dumped(workflows_from_swf(NASA, max_jobs=200)) == dumped(inst)


def test_swf_chains(nasa):
    single, chained = nasa
    back = round_trip(chained)
    assert len(back.jobs) < len(single.jobs)
    assert len(back.tasks) == back.meta["jobs_read"] == 200
    assert Counter(t.exec for t in back.tasks) == Counter(t.exec for t in single.tasks)
    assert max(len(job.tasks) for job in back.jobs) > 1
    for job in back.jobs:
        preds = Counter(s for t in job.tasks for s in t.succ)
        assert all(preds[i] == 1 for i in range(1, len(job.tasks))) and preds[0] == 0
    firsts = [job.arrival for job in back.jobs]
    assert firsts == sorted(firsts) and firsts[0] == 0
    # a chain's jobs are one user's and, in the trace, each came 0..gap s after the previous one ended
    assert all(job.user in {j.user for j in single.jobs} for job in back.jobs)
    assert len(workflows_from_swf(NASA, max_jobs=200, chains=True, gap=0).jobs) >= len(back.jobs)


def test_swf_too_wide_job_is_an_error(tmp_path):
    trace = tmp_path / "tiny.swf"
    job = "{id} {submit} 0 10 {procs} -1 -1 {procs} 10 -1 1 3 1 1 1 -1 -1 -1\n"
    trace.write_text("; MaxProcs: 8\n; Acknowledge: nobody\n" + job.format(id=1, submit=5, procs=4)
                     + job.format(id=2, submit=7, procs=16))
    with pytest.raises(InstanceError, match="^--trace:.*16 processors"):
        workflows_from_swf(trace)
    ok = workflows_from_swf(trace, max_jobs=1)
    assert ok.clusters == (Cluster(8, "Kind1"),) and ok.jobs[0].arrival == 0 and ok.meta["acknowledge"] == "nobody"


@pytest.mark.parametrize("call", [
    lambda: synthetic_workload(0, jobs=0),
    lambda: synthetic_workload(0, load=0),
    lambda: synthetic_workload(0, load=-1),
    lambda: synthetic_workload(0, load=1.2),
    lambda: synthetic_workload(0, users=0),
    lambda: synthetic_workload(0, users=3, groups=4),
    lambda: synthetic_workload(0, groups=0),
    lambda: synthetic_workload(0, max_tasks=0),
    lambda: synthetic_workload(0, decades=0),
    lambda: synthetic_workload(0, max_cores_exponent=9),
    lambda: synthetic_workload(0, max_cores_exponent=-1),
    lambda: small_workload(0, jobs=(3, 2)),
    lambda: small_workload(0, tasks=(0, 2)),
    lambda: small_workload(0, exec_range=(0, 3)),
    lambda: small_workload(0, cores=(1.5, 2)),
    lambda: small_workload(0, arrival=(-1, 2)),
    lambda: small_workload(0, clusters=5),
    lambda: workflows_from_swf(NASA, max_jobs=0),
    lambda: workflows_from_swf(NASA, gap=-1),
])
def test_bad_parameters_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
