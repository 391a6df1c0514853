"""The certificates of the P||Cmax instances whose optimum the literature
did not know (bench/pcmax_open.py, docs/results/pcmax_open.md): each
schedule passes the validator at the makespan it claims, and each lower
bound is checked here on its own, without the engine: L0 by its formula,
the arc-flow LP's bound by its dual weights (a bounded knapsack computed
by a plain dynamic program: no bin of capacity bound - 1 holds enough
weight for the machines there are)."""

import json
from collections import Counter
from pathlib import Path

import pytest

from schedbench.model import parse_instance, schedule_from_json
from schedbench.validator import validate

CERTIFICATES = sorted((Path(__file__).resolve().parents[2] / "bench" / "certificates" / "pcmax").glob("*.json"))


def most_weight(lengths: list[int], weights: dict[int, int], capacity: int) -> int:
    """The most weight one bin of ``capacity`` holds: 0/1 knapsack over the jobs, one by one."""
    best = [0] * (capacity + 1)
    for length in lengths:
        gain = weights.get(length, 0)
        if gain and length <= capacity:
            for load in range(capacity, length - 1, -1):
                best[load] = max(best[load], best[load - length] + gain)
    return best[capacity]


def test_every_open_instance_of_the_set_is_closed():
    assert len(CERTIFICATES) == 11
    statuses = Counter(json.loads(path.read_text())["status"] for path in CERTIFICATES)
    assert statuses == {"optimal": 11}   # every one closed (docs/results/pcmax_open.md)


@pytest.mark.parametrize("path", CERTIFICATES, ids=lambda p: p.stem)
def test_a_certificate_holds(path):
    certificate = json.loads(path.read_text())
    instance = parse_instance(certificate["instance"])
    schedule = schedule_from_json(instance, certificate["schedule"])
    assert validate(instance, schedule) == []
    loads = Counter()
    for job, length in enumerate(instance.jobs):
        loads[schedule.machine[job]] += length
    assert max(loads.values()) == certificate["makespan"]
    bound, jobs, machines = certificate["lower_bound"], instance.jobs, instance.machines
    if certificate["proof"] == ["L0"]:
        assert bound == max(-(-sum(jobs) // machines), max(jobs))
    else:
        assert certificate["proof"] == ["arcflow-lp-dual"]
        dual = certificate["dual_certificate"]
        weights = {int(s): y for s, y in dual["weights"].items()}
        assert dual["capacity"] == bound - 1 and all(y >= 0 for y in weights.values())
        total = sum(weights.get(length, 0) for length in jobs)
        per_bin = most_weight(list(jobs), weights, dual["capacity"])
        assert total > machines * per_bin   # so capacity bound - 1 needs more than the machines there are
    assert (certificate["status"] == "optimal") == (certificate["makespan"] == bound)
