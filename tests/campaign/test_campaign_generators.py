"""Generators follow the papers' procedures, are seeded and reproducible."""

import json
from collections import Counter

import pytest

from schedbench.instances.campaign import faircamp_paper, ostrich_paper, random_small, zipf_weights
from schedbench.instances.swf import campaigns_from_swf
from schedbench.model import instance_to_json, parse_instance
from schedbench.validator import validate
from schedbench import families

from conftest import SAMPLE_TRACE, run_cli


def test_same_seed_same_bytes():
    for make in (lambda s: faircamp_paper(5, s, n_jobs=800), lambda s: ostrich_paper(4, s, n_jobs=800),
                 lambda s: random_small(s, release=(0, 4), think=(0, 3))):
        assert json.dumps(instance_to_json(make(3))) == json.dumps(instance_to_json(make(3)))
        assert json.dumps(instance_to_json(make(3))) != json.dumps(instance_to_json(make(4)))


def _faircamp_as_written(users, seed, n_jobs, machines=10, max_length=100, new_campaign=0.1, zipf=1.4267):
    """§VII's procedure job by job, the owner by ``random.choices``: the
    generator draws the stream once for every k and maps each owner draw."""
    import random

    rng = random.Random(seed)
    per_user = [[] for _ in range(users)]
    for job in range(n_jobs):
        if job == 0 or rng.random() < new_campaign:
            current = []
            per_user[rng.choices(range(users), cum_weights=zipf_weights(users, zipf))[0]].append(current)
        current.append(rng.randint(1, max_length))
    return [[tuple(c) for c in camps] for camps in per_user if camps]


def test_faircamp_workloads_are_the_procedure_as_written():
    """Every k of a seed one after another, as Fig. 4's bundles ask (the
    shared draw is reused), with several lengths and Zipf exponents."""
    for seed in range(4):
        for n_jobs, new_campaign, max_length, zipf in ((1, 0.1, 100, 1.4267), (60, 0.4, 3, 1.4267),
                                                       (3000, 0.1, 100, 1.4267), (500, 0.2, 50, 3.0)):
            for users in (1, 2, 5, 20, 37):
                made = faircamp_paper(users, seed, n_jobs=n_jobs, new_campaign=new_campaign, max_length=max_length,
                                      zipf=zipf)
                assert [[c.jobs for c in u.campaigns] for u in made.users] == \
                    _faircamp_as_written(users, seed, n_jobs, max_length=max_length, new_campaign=new_campaign,
                                         zipf=zipf)


def test_faircamp_workload_statistics():
    inst = faircamp_paper(10, seed=1, n_jobs=10_000)
    assert len(inst.lengths) == 10_000 and min(inst.lengths) >= 1 and max(inst.lengths) <= 100
    campaigns = sum(len(u.campaigns) for u in inst.users)
    assert 900 <= campaigns <= 1100  # a new campaign with probability 0.1
    # Zipf(1.4267): the most frequent user owns about 1/H share; check the head dominates
    sizes = sorted((len(u.campaigns) for u in inst.users), reverse=True)
    share = sizes[0] / campaigns
    expected = 1 / zipf_weights(10, 1.4267)[-1]
    assert abs(share - expected) < 0.05


def test_ostrich_workload_profiles():
    inst = ostrich_paper(6, seed=2, n_jobs=10_000)
    assert inst.machines == 64
    campaigns = sum(len(u.campaigns) for u in inst.users)
    assert 150 <= campaigns <= 260  # probability 0.02
    short = [p for u in inst.users[:3] for c in u.campaigns for p in c.jobs]
    long_ = [p for u in inst.users[3:] for c in u.campaigns for p in c.jobs]
    assert max(short) <= 3600 and min(long_) >= 3600


def test_ostrich_profiles_follow_the_users_kept():
    """A user who drew no campaign is left out; the recorded profiles (what
    OStrich Fig. 2b groups by) follow the users kept: here user 2 of 6 is
    dropped, so the instance's third user is long, not short."""
    from schedbench.heuristics.fcfs import fcfs
    from schedbench.metrics.campaign import campaign_stretches, max_stretch_by_profile

    inst = ostrich_paper(6, 0, n_jobs=150, machines=4)
    assert inst.n_users == 4 and inst.meta["profiles"] == ["short", "short", "long", "long"]
    for profile, user in zip(inst.meta["profiles"], inst.users):
        jobs = [p for c in user.campaigns for p in c.jobs]
        assert (max(jobs) <= 3600) if profile == "short" else (min(jobs) >= 3600)
    schedule = fcfs(inst)
    worst = [max(row) for row in campaign_stretches(inst, schedule)]
    assert max_stretch_by_profile(inst, schedule) == {"short": (worst[0] + worst[1]) / 2,
                                                      "long": (worst[2] + worst[3]) / 2}


def test_swf_campaigns_are_valid_instances():
    inst = campaigns_from_swf(SAMPLE_TRACE, gap=1200, max_jobs=300)
    assert inst.machines == 64  # the trace's MaxProcs
    again = parse_instance(instance_to_json(inst))
    assert again == inst
    counts = Counter(len(u.campaigns) for u in inst.users)
    assert sum(counts.values()) == inst.n_users and any(k > 1 for k in counts)
    for name in ("fcfs", "ostrich"):
        assert validate(inst, families.heuristics("campaign")[name](inst)) == []


def test_planted_pcmax_instances_fill_every_machine_exactly():
    """W = m C with every length in range, the same bytes for a seed, and the
    engine proving C itself (the optimum by construction)."""
    from schedbench.errors import InstanceError
    from schedbench.instances.pcmax import planted
    from schedbench.schedule import Schedule
    from schedbench.solvers.pcmax import pcmax_optimum

    inst = planted(3, jobs=61, machines=12, low=1, high=100)
    capacity = inst.meta["optimum"]
    assert len(inst.jobs) == 61 and sum(inst.jobs) == 12 * capacity and all(1 <= p <= 100 for p in inst.jobs)
    assert instance_to_json(planted(3, jobs=61, machines=12)) == instance_to_json(inst)
    assert instance_to_json(planted(4, jobs=61, machines=12)) != instance_to_json(inst)
    found = pcmax_optimum(inst.jobs, inst.machines, "portfolio", 10.0)
    assert found.optimal and found.makespan == capacity
    assert validate(inst, Schedule(found.machine, found.start)) == []
    with pytest.raises(InstanceError, match="jobs"):
        planted(0, jobs=5, machines=6)


def test_a_trace_comment_that_is_not_utf8_is_read_and_a_data_line_that_is_not_is_refused(tmp_path):
    """Archived traces' header comments are free text, some Latin-1: they
    must not make a trace unreadable; a data line's bytes stay numbers or
    the trace is one clear error."""
    job = b"1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n"
    trace = tmp_path / "latin1.swf"
    trace.write_bytes(b"; Computer: Universit\xe9\n" + job)
    inst = campaigns_from_swf(trace, gap=1200)
    assert inst.machines == 2 and [c.jobs for u in inst.users for c in u.campaigns] == [(10, 10)]
    assert inst.meta["computer"] == "Universit\ufffd"
    broken = tmp_path / "broken.swf"
    broken.write_bytes(job.replace(b"10 2", b"1\xe9 2", 1))
    out = run_cli("generate", "swf", "--trace", broken)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
