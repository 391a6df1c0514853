"""The second exhaustive search: its verdicts agree with enumeration and with
bin completion, every packing it returns is a valid schedule, and it says
unknown rather than overrun its budget."""

import random
import time

import pytest

from schedbench.solvers.pcmax.assignment_search import fits
from schedbench.solvers.pcmax.bin_completion import FEASIBLE, INFEASIBLE, UNKNOWN, pack

from test_pcmax_bin_completion import _makespan
from test_pcmax_solvers import _brute_force


def test_it_decides_like_enumeration_on_both_sides_of_the_optimum():
    rng = random.Random(11)
    for _ in range(300):
        m, n = rng.randint(2, 4), rng.randint(2, 8)
        lengths = tuple(rng.randint(1, 30) for _ in range(n))
        optimum = _brute_force(lengths, m)
        status, machine_of = fits(lengths, m, optimum, time.monotonic() + 10, node_limit=10**6)
        assert status == FEASIBLE and _makespan(lengths, machine_of, m) <= optimum, (lengths, m)
        assert fits(lengths, m, optimum - 1, time.monotonic() + 10, node_limit=10**6) == (INFEASIBLE, None)


def test_it_agrees_with_bin_completion_where_fig4_needs_it():
    """Campaigns like FAIRCAMP Fig. 4's (10 machines, 14-40 jobs of U[1,100])
    at the capacities around their lower bound: wherever both decide, the
    same verdict; and it decides most of them in its default budget."""
    rng = random.Random(4)
    decided = both = 0
    for _ in range(150):
        lengths = tuple(rng.randint(1, 100) for _ in range(rng.randint(14, 40)))
        floor = max(-(-sum(lengths) // 10), max(lengths))
        for capacity in range(floor, floor + 3):
            status, machine_of = fits(lengths, 10, capacity, time.monotonic() + 10)
            other, _ = pack(lengths, 10, capacity, time.monotonic() + 10)
            decided += status != UNKNOWN
            if status != UNKNOWN and other != UNKNOWN:
                both += 1
                assert status == other, (lengths, capacity)
            if status == FEASIBLE:
                assert _makespan(lengths, machine_of, 10) <= capacity
    assert both >= 300 and decided >= 0.7 * 450


def test_a_small_case_decided_by_hand():
    """Every length a multiple of 3: 27 splits into 12 + 15 at best, so 15 fits and 14 does not."""
    status, machine_of = fits((6, 9, 3, 3, 3, 3), 2, 15, time.monotonic() + 10)
    assert status == FEASIBLE and _makespan((6, 9, 3, 3, 3, 3), machine_of, 2) == 15
    assert fits((6, 9, 3, 3, 3, 3), 2, 14, time.monotonic() + 10) == (INFEASIBLE, None)


@pytest.mark.timing
def test_a_budget_too_small_or_a_passed_deadline_says_unknown():
    rng = random.Random(8)
    lengths = tuple(rng.randint(100, 400) for _ in range(60))
    assert fits(lengths, 24, sum(lengths) // 24 + 1, time.monotonic() + 10, node_limit=5) == (UNKNOWN, None)
    assert fits((4, 3, 3, 2), 2, 6, time.monotonic() - 1) == (UNKNOWN, None)
    assert fits((3,) + (2,) * 3000, 2, 3002, time.monotonic() + 10, node_limit=10**6) == (UNKNOWN, None)  # too deep
    long = tuple(p * 10**8 for p in (13, 5, 4, 13, 18, 6))  # subset-sum tables of 10^10 bits: not started
    began = time.monotonic()
    assert fits(long, 3, 22 * 10**8 - 1, time.monotonic() + 10) == (UNKNOWN, None)
    assert time.monotonic() - began < 0.1
