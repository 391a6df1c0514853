"""Bin completion: every packing it returns fits, and its verdicts agree
with enumeration on both sides of the optimum."""

import itertools
import math
import random
import time

import pytest
from hypothesis import given, settings, strategies as st

from schedbench.model.pcmax import PcmaxInstance
from schedbench.schedule import Schedule, back_to_back
from schedbench.solvers.pcmax.bin_completion import (FEASIBLE, INFEASIBLE, UNKNOWN, _OutOfBudget, _Packer, _VERDICTS,
                                                     forget_verdicts, pack)
from schedbench.validator import validate

from test_pcmax_solvers import _brute_force


@pytest.fixture(autouse=True)
def _fresh_verdicts():
    """Each test's searches are its own: no verdict an earlier test reached."""
    forget_verdicts()


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


def _undominated_completions(values, counts, first, room, slack):
    """Every multiset of the jobs left (value indices >= ``first``) that fits
    in ``room`` wasting at most ``slack``, without a job left that fits in
    the room it leaves or that could replace a shorter chosen job: enumerated."""
    found = []
    for taken in itertools.product(*(range(counts[i] + 1) for i in range(first, len(values)))):
        chosen = [0] * first + list(taken)
        used = sum(c * v for c, v in zip(chosen, values))
        left = room - used
        if not room - slack <= used <= room:
            continue
        unplaced = [v for i, v in enumerate(values) if counts[i] > chosen[i]]
        replaced = any(values[i] < w <= values[i] + left for i in range(len(values)) if chosen[i] for w in unplaced)
        if not any(w <= left for w in unplaced) and not replaced:
            found.append((tuple(sorted(i for i, c in enumerate(chosen) for _ in range(c))), used))
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6, unique=True), st.data())
def test_completions_are_the_undominated_ones_fullest_first(values, data):
    """The completions the search branches on, against enumeration: a leaf
    decided where the choice is made must neither drop nor add one."""
    values = sorted(values, reverse=True)
    counts = [data.draw(st.integers(0, 3)) for _ in values]
    first = data.draw(st.integers(0, len(values) - 1))
    room, slack = data.draw(st.integers(0, 80)), data.draw(st.integers(0, 40))
    found = _Packer(values, 100, math.inf, math.inf)._completions(list(counts), first, room, slack)
    assert sorted((tuple(sorted(c)), used) for c, used in found) == sorted(
        _undominated_completions(values, counts, first, room, slack))
    assert [used for _, used in found] == sorted((used for _, used in found), reverse=True)


def test_equal_lengths_are_placed_job_by_job():
    lengths = (5, 5, 5, 3, 3, 2, 2, 5)
    status, machine_of = pack(lengths, 3, 10, time.monotonic() + 10)
    assert status == FEASIBLE and _makespan(lengths, machine_of, 3) == 10  # 30 units on 3 machines: each at 10


def test_a_budget_too_small_says_unknown():
    rng = random.Random(8)
    lengths = tuple(rng.randint(100, 400) for _ in range(60))
    assert pack(lengths, 24, sum(lengths) // 24 + 1, time.monotonic() + 10, node_limit=5) == (UNKNOWN, None)


def test_a_verdict_is_searched_once_and_a_budget_ended_search_again_only_with_more_nodes(monkeypatch):
    """Asked again (a dive's branches leave the same jobs), a verdict comes
    from memory: the same packing for the jobs in their new order, the same
    refutation, unknown where the budget is no more than the search spent;
    an unknown kept with its node budget is searched again only with more
    nodes, and one the deadline ended is not kept at all."""
    rng = random.Random(8)
    hard = tuple(rng.randint(100, 400) for _ in range(60))
    lengths = (5, 5, 5, 3, 3, 2, 2, 5)
    packed = pack(lengths, 3, 10, time.monotonic() + 10)
    refuted = pack(lengths, 3, 9, time.monotonic() + 10)
    assert pack(hard, 24, sum(hard) // 24 + 1, time.monotonic() + 10, node_limit=5) == (UNKNOWN, None)
    searched = []
    real_fill = _Packer.fill
    monkeypatch.setattr(_Packer, "fill", lambda self, *args: searched.append(args) or real_fill(self, *args))
    assert pack(lengths, 3, 10, time.monotonic() + 10) == packed
    status, machine_of = pack(lengths[::-1], 3, 10, time.monotonic() + 10)
    assert status == FEASIBLE and _makespan(lengths[::-1], machine_of, 3) == 10
    assert pack(lengths, 3, 9, time.monotonic() + 10) == refuted == (INFEASIBLE, None)
    assert pack(hard, 24, sum(hard) // 24 + 1, time.monotonic() + 10, node_limit=5) == (UNKNOWN, None)
    assert pack(lengths, 3, 10, time.monotonic() + 10, node_limit=2) == (UNKNOWN, None)  # as the search would end
    assert searched == []
    pack(hard, 24, sum(hard) // 24 + 1, time.monotonic() + 10, node_limit=50)
    assert searched
    searched.clear()
    real_spend = _Packer._spend

    def deadline_at_the_third_node(self):
        if self.nodes == 2:
            raise _OutOfBudget  # as the deadline ends a search: short of its node budget
        real_spend(self)

    forget_verdicts()
    monkeypatch.setattr(_Packer, "_spend", deadline_at_the_third_node)
    assert pack(hard, 24, sum(hard) // 24 + 1, time.monotonic() + 10) == (UNKNOWN, None)
    monkeypatch.setattr(_Packer, "_spend", real_spend)
    assert pack(hard, 24, sum(hard) // 24 + 1, time.monotonic() + 10)[0] == INFEASIBLE and len(searched) > 1


def test_a_kept_verdict_answers_each_budget_as_a_fresh_search_does():
    """A search that decides in N nodes decides under a budget above N and
    runs out at N or below: so does its kept verdict, the motivating case
    being a verdict an unbudgeted search reached, asked again with less."""
    rng = random.Random(8)
    hard = tuple(rng.randint(100, 400) for _ in range(60))
    capacity = sum(hard) // 24 + 1
    assert pack(hard, 24, capacity, time.monotonic() + 10, node_limit=math.inf)[0] == INFEASIBLE
    (spent,) = [nodes for _, _, nodes in _VERDICTS.values()]
    for budget in (spent, spent + 1, 5):
        kept = pack(hard, 24, capacity, time.monotonic() + 10, node_limit=budget)
        forget_verdicts()
        assert kept == pack(hard, 24, capacity, time.monotonic() + 10, node_limit=budget)
        pack(hard, 24, capacity, time.monotonic() + 10, node_limit=math.inf)
    assert pack(hard, 24, capacity, time.monotonic() + 10, node_limit=spent) == (UNKNOWN, None)
    assert pack(hard, 24, capacity, time.monotonic() + 10, node_limit=spent + 1) == (INFEASIBLE, None)


def test_thousands_of_machines_or_of_jobs_a_machine_give_up_instead_of_crashing():
    """One call level a machine and a job: past Python's recursion limit the
    search says unknown, and it starts nothing once its deadline has passed."""
    assert pack((50, 30, 20) * 1200, 1200, 100, time.monotonic() + 10)[0] in (FEASIBLE, UNKNOWN)
    assert pack((3,) + (2,) * 3000, 2, 3002, time.monotonic() + 10)[0] in (FEASIBLE, UNKNOWN)
    assert pack((4, 3, 3, 2), 2, 6, time.monotonic() - 1) == (UNKNOWN, None)


@pytest.mark.parametrize("solver", ["cpsat", "portfolio"])
def test_a_false_refutation_by_bin_completion_is_caught(solver, monkeypatch):
    """Planted: bin completion refutes every capacity. Optimum 48 = the lower
    bound, incumbent 50: believed, the lie would make 49 "optimal". The
    second method finds a schedule at 48 instead, and the answer is 48."""
    from schedbench.solvers import pcmax as engine

    lengths = (14, 30, 4, 22, 10, 9, 8, 13, 24, 18, 1, 7, 17, 15)
    monkeypatch.setattr(engine, "pack", lambda *args, **kwargs: (INFEASIBLE, None))
    found = _solved_afresh(engine, lengths, 4, solver, 20)
    assert found.optimal and found.makespan == found.bound == 48 and "bin-completion" not in found.proof
    assert _makespan(lengths, found.machine, 4) == 48  # the schedule the second method found, validated


def test_a_refutation_by_bin_completion_is_confirmed_before_it_counts(monkeypatch):
    """Its refutation of 21 (optimum 22) makes 22 optimal only with a second
    method's: silence the confirmation (CP-SAT is not asked: the claim
    already reaches the incumbent) and the answer stays feasible at bound 21."""
    from schedbench.solvers.exact import certificate
    from schedbench.solvers import pcmax as engine

    lengths = (13, 5, 4, 13, 18, 6)
    engine.clear_cache()
    assert engine.pcmax_optimum(lengths, 3, "cpsat", 20).proof == ("bin-completion", "assignment-search")
    engine.clear_cache()
    monkeypatch.setattr(engine, "confirm", lambda alternatives, deadline: certificate.Confirmation(None, None, 0.0))
    try:
        found = engine.pcmax_optimum(lengths, 3, "cpsat", 20)
    finally:
        engine.clear_cache()
    assert not found.optimal and found.bound == 21 and found.unconfirmed == (22, "bin-completion")


def _solved_afresh(engine, lengths, machines, solver, time_limit):
    """The engine's answer with nothing cached before or after (the tests read what it asks)."""
    engine.clear_cache()
    try:
        return engine.pcmax_optimum(lengths, machines, solver, time_limit)
    finally:
        engine.clear_cache()


def _record_capacities(engine, monkeypatch) -> tuple[list[int], list[int]]:
    """The capacities the engine asks its LP bound and bin completion, in order, as it asks them."""
    asked, decided = [], []
    lp_refuted_through, pack_at = engine.lp_refuted_through, engine.pack
    monkeypatch.setattr(engine, "lp_refuted_through", lambda jobs, m, capacity, *rest: (
        asked.append(capacity), lp_refuted_through(jobs, m, capacity, *rest))[1])
    monkeypatch.setattr(engine, "pack", lambda jobs, m, capacity, *rest, **options: (
        decided.append(capacity), pack_at(jobs, m, capacity, *rest, **options))[1])
    return asked, decided


@pytest.mark.parametrize("second_search", [True, False])
def test_bin_completion_climbs_and_one_method_confirms_its_claim(second_search, monkeypatch):
    """A FAIRCAMP Fig. 4 campaign: bounds 99 and 102; bin completion refutes
    99, 100 and 101. The assignment search refutes 101 again, and no LP is
    solved; where it cannot (out of its budget), the one LP, at 101, proves
    102 from its duals (bisection asked two). Without the climb's claims
    the LP's first capacity would be 100."""
    from schedbench.solvers import pcmax as engine

    lengths = (93, 99, 51, 91, 44, 93, 30, 24, 15, 64, 87, 38, 80, 45, 87)
    asked, decided = _record_capacities(engine, monkeypatch)
    if not second_search:
        monkeypatch.setattr(engine, "fits", lambda *args, **options: (UNKNOWN, None))
    found = _solved_afresh(engine, lengths, 10, "portfolio", 10)
    assert decided == [99, 100, 101] and asked == ([] if second_search else [101])
    assert found.optimal and found.makespan == 102
    assert found.proof == (("bin-completion", "assignment-search") if second_search else ("arcflow-lp-dual",))
    assert _makespan(lengths, found.machine, 10) == 102


#: A MOSP Fig. 8 organization: 29 jobs U[1, 1000] on 10 machines, L0 = 1532, optimum 1540.
FIG8_ORGANIZATION = (373, 539, 922, 360, 632, 804, 109, 434, 778, 131, 952, 261, 818, 338, 368, 185, 103, 944, 481,
                     452, 780, 684, 893, 42, 765, 618, 655, 209, 684)


def test_where_column_generation_pays_the_lp_refutes_instead_of_the_climb(monkeypatch):
    """A MOSP Fig. 8 organization (29 jobs U[1, 1000], 10 machines): L0 =
    1532, optimum 1540. Bin completion refutes 1532 and does not climb on:
    the column generation's LP refutes up to 1539 (one LP's weights often
    refute several capacities), and bin completion is asked again only at
    the LP's bound. The LP's first capacity is just below bin completion's
    claim, 1533, once the assignment search has confirmed it, else 1532.
    Below C = 1,000 it climbs (the test above)."""
    from schedbench.solvers import pcmax as engine

    lengths = FIG8_ORGANIZATION
    asked, decided = _record_capacities(engine, monkeypatch)
    found = _solved_afresh(engine, lengths, 10, "portfolio", 10)
    assert decided[:2] == [1532, 1540] and asked[0] in (1532, 1533)  # a search the load left open: once more
    assert found.optimal and found.makespan == 1540 and found.proof == ("arcflow-lp-dual",)
    assert _makespan(lengths, found.machine, 10) == 1540


def test_backend_cpsat_asks_no_lp_so_its_bin_completion_climbs(monkeypatch):
    """The organization above with backend cpsat: no LP would refute the
    capacities above bin completion's first refutation, so it climbs,
    refuting 1532 to 1539 (milliseconds each), and the claim of 1540 is
    confirmed by a second method. Whether the schedule at 1540 is found
    within the limit depends on the machine's load (bin completion's share,
    then CP-SAT's), so only the bound and the schedule's validity are asserted."""
    from schedbench.solvers import pcmax as engine

    asked, decided = _record_capacities(engine, monkeypatch)
    found = _solved_afresh(engine, FIG8_ORGANIZATION, 10, "cpsat", 20)
    assert decided[:8] == list(range(1532, 1540)) and asked == []
    assert found.bound == 1540 and found.proof[0] == "bin-completion"
    assert _makespan(FIG8_ORGANIZATION, found.machine, 10) == found.makespan >= 1540


#: The deciding organization of MOSP Fig. 8's workload N = 20, n = 400, seed
#: 3611 (organization 1): 56 jobs on 20 machines, LP bound 1,298, which the
#: engine's search left open within 10 s, its incumbent at 1,302.
FIG8_OPEN = (811, 481, 646, 402, 987, 46, 97, 610, 482, 27, 198, 892, 733, 243, 301, 640, 251, 128, 569, 78, 68,
             305, 255, 70, 124, 711, 631, 677, 498, 132, 582, 942, 242, 366, 723, 679, 697, 243, 784, 355, 28, 257,
             559, 896, 684, 43, 264, 933, 854, 330, 880, 659, 583, 169, 710, 349)


def test_after_the_search_bin_completion_without_a_budget_packs_what_its_budget_fell_short_of():
    import schedbench.solvers.pcmax as engine

    far = time.monotonic() + 60
    search = engine._bounds(FIG8_OPEN, 20, 0.0, far, far)
    search.lower = engine._arcflow_lower_bound(FIG8_OPEN, 20, search.lower, search.upper, far)
    assert (search.lower, search.closed) == (1298, False)
    assert pack(FIG8_OPEN, 20, 1298, far)[0] == UNKNOWN  # the 20,000 nodes it gets at the bound fall short
    engine._pack_unbudgeted(search, time.monotonic() + 10)
    assert search.closed and search.upper == 1298 and search.method == "bin-completion"
    schedule = Schedule(tuple(search.best), back_to_back(search.best, FIG8_OPEN))
    assert validate(PcmaxInstance(20, FIG8_OPEN), schedule) == []


def test_bin_completion_without_a_budget_is_asked_only_where_column_generation_pays(monkeypatch):
    """Lawrinenko's instances of up to 64 jobs and FAIRCAMP's campaigns
    have C below 1,000: their path is the one measured before it."""
    import schedbench.solvers.pcmax as engine

    lengths = tuple(p // 2 + 1 for p in FIG8_OPEN)  # C near 650
    far = time.monotonic() + 60
    search = engine._bounds(lengths, 20, 0.0, far, far)
    assert not search.closed and search.lower < 1000
    asked = []
    monkeypatch.setattr(engine, "pack", lambda *args, **kwargs: asked.append(args) or (UNKNOWN, None))
    engine._pack_unbudgeted(search, time.monotonic() + 10)
    assert asked == []


def test_a_refutation_by_bin_completion_without_a_budget_stays_a_claim_until_confirmed(monkeypatch):
    """Bin completion refutes the bound, no second method confirms it: the
    bound stays, the claim is reported unconfirmed and nothing is proven."""
    import schedbench.solvers.pcmax as engine
    from schedbench.solvers.exact.certificate import Confirmation

    far = time.monotonic() + 60
    search = engine._bounds(FIG8_OPEN, 20, 0.0, far, far)
    lower = search.lower
    monkeypatch.setattr(engine, "pack", lambda *args, **kwargs: (INFEASIBLE, None))
    monkeypatch.setattr(engine, "confirm", lambda methods, deadline: Confirmation(None, None, 0.0))
    engine._pack_unbudgeted(search, time.monotonic() + 2)
    found = search.answer()
    assert search.lower == lower and not found.optimal and found.unconfirmed == (lower + 1, "bin-completion")
