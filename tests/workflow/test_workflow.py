"""Workflows: the format (SPEC's keys and the optional platform, user and
share keys), the validator's rules and the exact metrics on hand-computed
examples."""

import json
from fractions import Fraction

import pytest

from schedbench.metrics.workflow import critical_path, gini, max_slr, slrs, upward_ranks
from schedbench.model import instance_to_json, parse_instance, schedule_from_json, schedule_to_json
from schedbench.model.workflow import WorkflowSchedule as Schedule
from schedbench.validator import validate

from conftest import assert_rejected

# Two clusters: 2 CPU cores, 1 GPU core. Job 0 (arrives at 0) is a diamond
# a(2) -> b(3, GPU), c(1, 2 cores) -> d(2): CP = 2 + 3 + 2 = 7. Job 1
# (arrives at 1) is one CPU task of length 4: CP 4.
WORKFLOW = {"family": "workflow", "format_version": 1,
            "clusters": [{"cores": 2, "kind": "cpu"}, {"cores": 1, "kind": "gpu"}],
            "jobs": [{"arrival": 0, "tasks": [{"exec": 2, "cores": 1, "kind": "cpu", "succ": [1, 2]},
                                              {"exec": 3, "cores": 1, "kind": "gpu", "succ": [3]},
                                              {"exec": 1, "cores": 2, "kind": "cpu", "succ": [3]},
                                              {"exec": 2, "cores": 1, "kind": "cpu", "succ": []}]},
                     {"arrival": 1, "tasks": [{"exec": 4, "cores": 1, "kind": "cpu", "succ": []}]}]}
# a [0,2) cpu, b [2,5) gpu, c [2,3) cpu x2, d [5,7) cpu, job 1 [3,7) cpu.
GOOD = Schedule((0, 1, 0, 0, 0), (0, 2, 2, 5, 3))


def test_round_trip_and_metrics():
    inst = parse_instance(WORKFLOW)
    assert instance_to_json(inst)["jobs"] == WORKFLOW["jobs"]
    assert schedule_from_json(inst, json.loads(json.dumps(schedule_to_json(inst, GOOD)))) == GOOD
    assert upward_ranks(inst.jobs[0]) == [7, 5, 3, 2] and critical_path(inst.jobs[1]) == 4
    assert validate(inst, GOOD) == []
    assert slrs(inst, GOOD) == [Fraction(7, 7), Fraction(6, 4)] and max_slr(inst, GOOD) == Fraction(3, 2)
    assert gini([Fraction(1), Fraction(3, 2)]) == Fraction(1, 10)  # |1 - 3/2| * 2 / (2 * 4 * 5/4)
    assert gini([Fraction(2)] * 3) == 0


def _deep(tree, levels: int):
    for _ in range(levels):
        tree = [tree]
    return tree


@pytest.mark.parametrize("change,field", [
    (lambda d: d["jobs"][0]["tasks"][3].update(succ=[0]), "jobs[0].tasks"),          # a cycle
    (lambda d: d["jobs"][0]["tasks"][0].update(succ=[1, 9]), "jobs[0].tasks[0].succ[1]"),
    (lambda d: d["jobs"][1]["tasks"][0].update(kind="fpga"), "jobs[1].tasks[0].kind"),
    (lambda d: d["jobs"][0]["tasks"][1].update(cores=2), "jobs[0].tasks[1].cores"),
    (lambda d: d["jobs"][0]["tasks"][0].update(exec=0), "jobs[0].tasks[0].exec"),
    (lambda d: d["clusters"][0].update(kind=""), "clusters[0].kind"),
    (lambda d: d["jobs"][0]["tasks"][0].update(exec=2**41), "jobs[0].tasks[0].exec"),  # past 2^40
    (lambda d: d["jobs"][1].update(arrival=10**19), "jobs[1].arrival"),
    (lambda d: d.update(meta=[1, 2]), "meta"),
    (lambda d: d.update(network=_deep([0, 1], 70)), "network" + "[0]" * 65),
    (lambda d: d.update(network=[[0], [0]]), "network[1][0]"),             # a cluster twice
    (lambda d: d.update(network=[[0], []]), "network[1]"),                 # an empty router
    (lambda d: d.update(network=[0]), "network"),                          # cluster 1 missing
    (lambda d: d.update(network=[0, 5]), "network[1]"),
    (lambda d: d.update(shares={"a": {"share": 0}}), "shares.a.share"),
    (lambda d: d.update(shares={"a": {"share": 1, "parent": "b"}}), "shares.a.parent"),
    (lambda d: d.update(shares={"a": {"share": 1, "parent": [1]}}), "shares.a.parent"),
    (lambda d: d.update(shares={"a": {"share": 1, "parent": "b"}, "b": {"share": 1, "parent": "a"}}),
     "shares.a.parent"),                                                   # a cycle
    (lambda d: d.update(shares={"a": {"share": 1}}), "jobs[0].user"),      # shares but no user
    (lambda d: [j.update(user="x") for j in d["jobs"]] and d.update(shares={"a": {"share": 1}}), "jobs[0].user"),
])
def test_bad_instances_name_the_field(change, field):
    assert_rejected(WORKFLOW, change, field)


def test_validator_rules():
    inst = parse_instance(WORKFLOW)
    cases = {
        "precedence": Schedule((0, 1, 0, 0, 0), (0, 1, 2, 5, 3)),   # b starts before a ends
        "arrival": Schedule((0, 1, 0, 0, 0), (0, 2, 2, 5, 0)),      # job 1 before it arrives (and too many cores)
        "kind": Schedule((0, 0, 0, 0, 0), (0, 2, 2, 5, 3)),         # b on the CPU cluster
        "capacity": Schedule((0, 1, 0, 0, 0), (0, 2, 2, 5, 2)),     # c's 2 cores and job 1 at 2
        "cluster-range": Schedule((0, 2, 0, 0, 0), (0, 2, 2, 5, 3)),
    }
    for rule, schedule in cases.items():
        assert rule in {v.rule for v in validate(inst, schedule)}, rule


def test_platform_keys_round_trip():
    doc = json.loads(json.dumps(WORKFLOW))
    doc["network"] = [[1], [0]]
    doc["shares"] = {"g": {"share": 2}, "alice": {"share": 1, "parent": "g"}}
    for job in doc["jobs"]:
        job["user"] = "alice"
    inst = parse_instance(doc)
    assert instance_to_json(inst)["network"] == [[1], [0]] and instance_to_json(inst)["shares"] == doc["shares"]
    assert inst.levels_to_common(0, 1) == 2 and inst.share_paths == (("g", "alice"), ("g", "alice"))
    assert parse_instance(WORKFLOW).levels_to_common(0, 1) == 1  # default: every cluster under the root


def test_commands_validate_a_schedule_file(tmp_path):
    from conftest import run_cli, write_json

    path = write_json(tmp_path, "w.json", WORKFLOW)
    schedule = write_json(tmp_path, "s.json", schedule_to_json(parse_instance(WORKFLOW), GOOD))
    assert run_cli("validate", path, schedule).returncode == 0
    late = schedule_to_json(parse_instance(WORKFLOW), GOOD) | {"network": {"ccr": [1, 2], "exponent": -1}}
    out = run_cli("validate", path, write_json(tmp_path, "late.json", late))
    assert out.returncode == 1 and "network-delay" in out.stdout  # b waits 2 for a's data, d for b's
    bad = schedule_to_json(parse_instance(WORKFLOW), GOOD) | {"network": {"ccr": [3, 2]}}
    out = run_cli("validate", path, write_json(tmp_path, "bad.json", bad))
    assert out.returncode == 2 and "network.ccr" in out.stderr
