"""The P||Cmax LP bound by column generation (``solvers.milp.pcmax_patterns``):
its refutations are true (no packing exists, by exhaustive search), it is
at least as strong as the arc-flow graph's LP, the restricted LP carried
from one capacity to another answers as a fresh one does, and its
fractional packings are packings."""

import itertools
import math
import time
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from schedbench.metrics.pcmax.bounds import l0, weights_bound
from schedbench.result import INFEASIBLE
from schedbench.solvers.milp.pcmax import lp_bins
from schedbench.solvers.milp import pcmax_patterns
from schedbench.solvers.milp.pcmax_patterns import PatternLP, best_patterns
from schedbench.solvers.pcmax.bin_completion import pack

instances = st.tuples(st.lists(st.integers(1, 30), min_size=3, max_size=14), st.integers(2, 4))


def test_parameters_glop_refuses_are_an_error(monkeypatch):
    """A misspelt parameter would otherwise leave GLOP's presolve on without a word."""
    PatternLP([5, 5, 3, 3, 2])
    monkeypatch.setattr(pcmax_patterns, "GLOP_PARAMETERS", pcmax_patterns.GLOP_PARAMETERS.replace("use_", "uze_"))
    with pytest.raises(RuntimeError, match="uze_preprocessing"):
        PatternLP([5, 5, 3, 3, 2])


def _later(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


def _refutes(lp: PatternLP, capacity: int, machines: int, deadline: float | None = None) -> bool:
    return lp.refuted_through(capacity, machines, capacity, _later() if deadline is None else deadline) == capacity


@settings(max_examples=60, deadline=None)
@given(instances)
def test_a_refutation_is_true_and_the_graphs_lp_never_refutes_more(instance):
    lengths, machines = instance
    lp = PatternLP(lengths)
    for capacity in range(max(lengths), l0(lengths, machines) + 4):  # down and up: the restricted LP is carried
        refuted = _refutes(lp, capacity, machines)
        if refuted:
            assert pack(tuple(lengths), machines, capacity, _later(), node_limit=math.inf)[0] == INFEASIBLE
        graph = lp_bins(lengths, capacity, 10.0)
        assert not (graph is not None and graph > machines) or refuted, (lengths, machines, capacity)
        assert _refutes(PatternLP(lengths), capacity, machines) == refuted


def test_the_capacity_can_go_down_again():
    """Patterns too long for a smaller C are switched off, not kept."""
    lengths = (10, 9, 8, 7, 6, 5, 4, 3)  # 52 in all
    lp = PatternLP(lengths)
    assert not _refutes(lp, 26, 2)  # 10 + 9 + 7 = 26 | 8 + 6 + 5 + 4 + 3 = 26
    assert _refutes(lp, 25, 2)      # below L0
    assert not _refutes(lp, 18, 3)  # 52 / 3: 18 + 17 + 17 fit
    assert _refutes(lp, 17, 3)


@settings(max_examples=40, deadline=None)
@given(instances)
def test_a_fractional_packing_covers_every_job_in_the_machines_given(instance):
    lengths, machines = instance
    capacity = l0(lengths, machines) + 2
    used = PatternLP(lengths).fractional(capacity, machines, _later())
    if used is None:
        assert lp_bins(lengths, capacity, 10.0) > machines
        return
    assert sum(weight for weight, _ in used) <= machines + 1e-6
    assert all(sum(items) <= capacity and weight > 0 for weight, items in used)
    covered = Counter()
    for weight, items in used:
        for s, jobs in Counter(items).items():
            covered[s] += weight * jobs
    assert all(covered[s] >= count - 1e-6 for s, count in Counter(lengths).items())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=9), st.integers(0, 30), st.integers(1, 6),
       st.lists(st.integers(0, 48), min_size=12, max_size=12))
def test_pricing_returns_the_best_packing_of_each_of_the_best_loads(lengths, extra, many, per_unit):
    """Every packing of at most count(s) jobs of each length s within C, by
    enumeration: the priced patterns are the best packings of the loads of
    the highest value above 1, best first, one per load (so all distinct),
    and the heaviest value is the best of all. Lengths of dual 0 add no
    value and are left out. Duals per unit of length are multiples of 1/97,
    so no value is within the pricing's float tolerance of 1 without being 1."""
    duals = {s: per_unit[s - 1] * s / 97 for s in set(lengths)}
    counts, capacity = Counter(s for s in lengths if duals[s] > 0), max(lengths) + extra
    best_at: dict[int, float] = {}  # load -> the most dual value of a packing of exactly that load
    for jobs in itertools.product(*(range(c + 1) for c in counts.values())):
        load = sum(s * k for s, k in zip(counts, jobs))
        if load <= capacity:
            best_at[load] = max(best_at.get(load, 0.0), sum(duals[s] * k for s, k in zip(counts, jobs)))
    patterns, heaviest = best_patterns(counts, duals, capacity, many)
    assert math.isclose(heaviest, max(best_at.values()), abs_tol=1e-12)
    loads = [sum(s * k for s, k in pattern) for pattern in patterns]
    values = [sum(duals[s] * k for s, k in pattern) for pattern in patterns]
    assert all(k <= counts[s] for pattern in patterns for s, k in pattern) and len(set(loads)) == len(loads)
    assert all(math.isclose(value, best_at[load], abs_tol=1e-7) for value, load in zip(values, loads))
    assert values == sorted(values, reverse=True) and all(value > 1 for value in values)
    better = sorted((value for value in best_at.values() if value > 1 + 1e-7), reverse=True)
    assert len(patterns) == min(many, len(better))  # as many as asked, as long as any is left
    assert all(value >= other - 1e-7 for value, other in zip(values, better))


def test_a_deadline_passed_refutes_nothing():
    lengths = (100, 97, 95, 90, 85, 84, 83, 82, 82, 82, 81, 79, 74, 73, 72, 56, 55, 50, 45, 38, 37, 37, 35, 23, 22,
               19, 13, 8)
    assert not _refutes(PatternLP(lengths), 171, 10, time.monotonic() - 1)
    assert _refutes(PatternLP(lengths), 171, 10)


@settings(max_examples=40, deadline=None)
@given(instances)
def test_one_lps_weights_refute_exactly_the_capacities_they_prove(instance):
    """``refuted_through`` from one LP's weights: every capacity up to it is
    refuted by the same weights (``weights_bound``), the next one is not."""
    lengths, machines = instance
    lower, counts = max(lengths), dict(Counter(lengths))
    lp = PatternLP(lengths)
    through = lp.refuted_through(lower, machines, lower + 40, _later())
    if through < lower:
        return
    assert all(weights_bound(counts, c, lp.weights) > machines for c in range(lower, through + 1))
    assert through == lower + 40 or weights_bound(counts, through + 1, lp.weights) <= machines
    assert pack(tuple(lengths), machines, through, _later(), node_limit=math.inf)[0] == INFEASIBLE


def test_a_seed_keeps_only_the_patterns_the_jobs_can_fill():
    lp = PatternLP((5, 5, 3, 2))
    lp.seed([(5, 5), (2, 3, 5), (7, 3), (3, 3)])  # no 7, one 3
    assert {((5, 2),), ((2, 1), (3, 1), (5, 1))} <= set(lp.columns)
    assert not any(7 in dict(pattern) or dict(pattern).get(3, 0) > 1 for pattern in lp.columns)


@settings(max_examples=40, deadline=None)
@given(instances, st.lists(st.lists(st.integers(1, 30), min_size=1, max_size=4), max_size=6))
def test_a_seeded_lp_answers_as_a_fresh_one(instance, seeds):
    """Seeds only change where column generation starts, never whether the
    jobs fit fractionally, nor the fractional packing's cover."""
    lengths, machines = instance
    capacity = l0(lengths, machines) + 1
    seeded = PatternLP(lengths)
    seeded.seed(seeds)
    used = seeded.fractional(capacity, machines, _later())
    assert (used is None) == (PatternLP(lengths).fractional(capacity, machines, _later()) is None)
    if used is not None:
        assert sum(weight for weight, _ in used) <= machines + 1e-6
        assert all(sum(items) <= capacity for _, items in used)
        covered = Counter()
        for weight, items in used:
            for s, jobs in Counter(items).items():
                covered[s] += weight * jobs
        assert all(covered[s] >= count - 1e-6 for s, count in Counter(lengths).items())


def test_a_dives_deeper_steps_start_from_the_patterns_above(monkeypatch):
    """MOSP Fig. 8's organization 3 of N = 10, n = 700, seed 8 (41 jobs on
    10 machines, optimum 1996, column generation's regime): the dive's
    deeper steps solve restricted LPs seeded with the steps above, not the
    graph's LP, and the dive ends in a packing at the optimum that the
    validator accepts. (With 41 jobs its deeper steps ask bin completion
    first, and the LP where bin completion's node budget runs out.)"""
    from schedbench.instances.mosp import paper_workload
    from schedbench.model.pcmax import PcmaxInstance
    from schedbench.schedule import Schedule, back_to_back
    from schedbench.solvers.milp import pcmax as milp
    from schedbench.validator import validate

    jobs = paper_workload(10, 700, 8).organizations[3].jobs
    seeded, graph = [], []
    real_seed, real_lp = PatternLP.seed, milp._lp
    monkeypatch.setattr(PatternLP, "seed", lambda lp, machines: seeded.append(tuple(machines))
                        or real_seed(lp, seeded[-1]))
    monkeypatch.setattr(milp, "_lp", lambda *args: graph.append(args) or real_lp(*args))
    milp.forget_patterns()
    status, machine_of = milp.dive(jobs, 10, 1996, 60)
    assert status == "feasible" and seeded and all(seeded) and not graph  # each step was handed patterns
    instance = PcmaxInstance(10, jobs)
    assert validate(instance, Schedule(tuple(machine_of), tuple(back_to_back(machine_of, jobs)))) == []
    assert max(sum(p for p, q in zip(jobs, machine_of) if q == k) for k in set(machine_of)) == 1996
