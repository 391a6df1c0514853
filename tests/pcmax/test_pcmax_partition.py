"""The P||Cmax decision as a partition into window patterns
(``solvers.milp.pcmax_partition``): it agrees with exhaustive search,
its packings are packings, its pattern list is complete, it refuses wide
windows, and the engine uses it where the other models decided nothing:
MOSP Fig. 8's near-perfect partitions."""

import itertools
import time
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

import schedbench.solvers.pcmax as engine
from schedbench.errors import ModelTooLarge
from schedbench.metrics.pcmax.bounds import l0
from schedbench.model.pcmax import PcmaxInstance
from schedbench.result import FEASIBLE, INFEASIBLE
from schedbench.schedule import Schedule, back_to_back
from schedbench.solvers.milp import pcmax_partition
from schedbench.solvers.milp.pcmax_partition import decide, window_patterns, window_size
from schedbench.validator import validate

instances = st.tuples(st.lists(st.integers(1, 20), min_size=1, max_size=8), st.integers(1, 3))


def _packs(lengths, machines: int, capacity: int) -> bool:
    """Exhaustive: some assignment of every job to a machine keeps each load within ``capacity``."""
    for machine_of in itertools.product(range(machines), repeat=len(lengths)):
        loads = [0] * machines
        for p, q in zip(lengths, machine_of):
            loads[q] += p
        if max(loads) <= capacity:
            return True
    return False


def _validated_makespan(lengths, machines: int, machine_of) -> int:
    """The schedule's makespan, after the independent validator found nothing wrong with it."""
    schedule = Schedule(tuple(machine_of), tuple(back_to_back(list(machine_of), lengths)))
    assert validate(PcmaxInstance(machines, tuple(lengths)), schedule) == []
    return max(s + p for s, p in zip(schedule.start, lengths))


@settings(max_examples=80, deadline=None)
@given(instances)
def test_it_decides_as_exhaustive_search_does_and_its_packings_are_packings(instance):
    lengths, machines = instance
    for capacity in range(max(l0(lengths, machines) - 1, 1), l0(lengths, machines) + 3):
        status, machine_of = decide(lengths, machines, capacity, 10.0)
        assert status == (FEASIBLE if _packs(lengths, machines, capacity) else INFEASIBLE), (lengths, capacity)
        if status == FEASIBLE:
            assert _validated_makespan(lengths, machines, machine_of) <= capacity


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=7), st.integers(0, 30), st.integers(0, 10))
def test_the_pattern_list_is_every_multiset_in_the_window_once(lengths, low, width):
    counts = Counter(lengths)
    values = sorted(counts, reverse=True)
    found = window_patterns([counts[v] for v in values], values, low, low + width, time.monotonic() + 10)
    expected = {tuple(pick.count(v) for v in values)
                for size in range(len(lengths) + 1) for pick in itertools.combinations(sorted(lengths), size)
                if low <= sum(pick) <= low + width}
    assert len(found) == len(set(found)) and set(found) == expected
    assert window_size([counts[v] for v in values], values, low, low + width) == len(expected)


def test_a_wide_window_is_refused_for_the_arcflow_milp(monkeypatch):
    monkeypatch.setattr(pcmax_partition, "MAX_PATTERNS", 5)
    with pytest.raises(ModelTooLarge):
        decide(tuple(range(1, 11)), 2, 40, 10.0)  # slack 25: every subset from 15 to 40


#: Organization 4 of MOSP Fig. 8's workload N = 10, n = 500, seed 155: 33
#: jobs alone on 10 machines. L0 is 1,771 and the LP bound 1,772; bin
#: completion within its node budget, the dive, the arc-flow MILP and CP-SAT
#: left it at 1,779 after 10 s. The optimum is 1,773: 1,772 fits no packing.
TIGHT = (1000, 996, 972, 963, 863, 811, 771, 765, 764, 742, 733, 731, 711, 647, 638, 598, 595, 583, 567, 541, 497,
         454, 413, 389, 246, 226, 106, 96, 85, 79, 77, 43, 5)


def test_the_engine_proves_a_near_perfect_partition_twice():
    assert sum(TIGHT) == 17707 and l0(TIGHT, 10) == 1771
    engine.clear_cache()
    found = engine.pcmax_optimum(TIGHT, 10, "portfolio", 10.0)
    assert (found.status, found.makespan) == ("optimal", 1773)
    assert _validated_makespan(TIGHT, 10, found.machine) == 1773
    assert set(found.proof) == {"partition-milp", "bin-completion"}
    assert decide(TIGHT, 10, 1772, 10.0)[0] == INFEASIBLE


def test_the_engine_asks_the_arcflow_milp_outside_the_gate_and_past_the_window(monkeypatch):
    """Below C = 1,000 (column generation's gate) and where the window holds
    too many patterns, C is the arc-flow MILP's to decide."""
    small = (9, 8, 7, 6, 5, 4, 3, 2)  # 44 in all: 2 machines of 22
    assert engine._arcflow_decide(small, 2, 22, time.monotonic() + 10, dive_first=False)[2] == "arcflow-milp"
    assert engine._arcflow_decide(TIGHT, 10, 1773, time.monotonic() + 10, dive_first=False)[::2] == (
        FEASIBLE, "partition-milp")
    monkeypatch.setattr(pcmax_partition, "MAX_PATTERNS", 5)
    assert engine._arcflow_decide(TIGHT, 10, 1773, time.monotonic() + 10, dive_first=False)[2] == "arcflow-milp"


def test_the_two_scip_models_never_confirm_each_other():
    assert not engine._independent("arcflow-milp", "partition-milp")
    assert not engine._independent("partition-milp", "arcflow-milp")
    assert engine._independent("bin-completion", "partition-milp") and engine._independent("partition-milp", "cpsat")
