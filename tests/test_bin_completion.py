"""Bin completion: every packing it returns fits, and its verdicts agree
with enumeration on both sides of the optimum."""

import random
import time

from schedbench.model.pcmax import PcmaxInstance
from schedbench.schedule import Schedule, back_to_back
from schedbench.solvers.bin_completion import FEASIBLE, INFEASIBLE, UNKNOWN, pack
from schedbench.validator import validate

from test_solvers import _brute_force


def _makespan(lengths, machine_of, machines):
    """The packing's makespan, once the independent validator accepts it as a schedule."""
    schedule = Schedule(tuple(machine_of), tuple(back_to_back(machine_of, lengths)))
    assert validate(PcmaxInstance(machines, lengths), schedule) == []
    return max(start + p for start, p in zip(schedule.start, lengths))


def test_bin_completion_decides_like_enumeration():
    rng = random.Random(3)
    for _ in range(300):
        m, n = rng.randint(2, 4), rng.randint(2, 8)
        lengths = tuple(rng.randint(1, 30) for _ in range(n))
        optimum = _brute_force(lengths, m)
        status, machine_of = pack(lengths, m, optimum, time.monotonic() + 10)
        assert status == FEASIBLE, (lengths, m)
        assert len(machine_of) == n and _makespan(lengths, machine_of, m) <= optimum
        assert pack(lengths, m, optimum - 1, time.monotonic() + 10) == (INFEASIBLE, None), (lengths, m)


def test_equal_lengths_are_placed_job_by_job():
    lengths = (5, 5, 5, 3, 3, 2, 2, 5)
    status, machine_of = pack(lengths, 3, 10, time.monotonic() + 10)
    assert status == FEASIBLE and _makespan(lengths, machine_of, 3) == 10  # 30 units on 3 machines: each at 10


def test_a_budget_too_small_says_unknown():
    rng = random.Random(8)
    lengths = tuple(rng.randint(100, 400) for _ in range(60))
    assert pack(lengths, 24, sum(lengths) // 24 + 1, time.monotonic() + 10, node_limit=5) == (UNKNOWN, None)


def test_thousands_of_machines_or_of_jobs_a_machine_give_up_instead_of_crashing():
    """One call level a machine and a job: past Python's recursion limit the
    search says unknown, and it starts nothing once its deadline has passed."""
    assert pack((50, 30, 20) * 1200, 1200, 100, time.monotonic() + 10)[0] in (FEASIBLE, UNKNOWN)
    assert pack((3,) + (2,) * 3000, 2, 3002, time.monotonic() + 10)[0] in (FEASIBLE, UNKNOWN)
    assert pack((4, 3, 3, 2), 2, 6, time.monotonic() - 1) == (UNKNOWN, None)
