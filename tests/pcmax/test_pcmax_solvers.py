"""Exact solvers: known optima, both backends agree, schedules validate,
'optimal' only when proven."""

import itertools
import math
import os
import random
import time
from pathlib import Path
from fractions import Fraction

import pytest

from schedbench import families
from schedbench.instances.campaign import random_small, unit_campaigns
from schedbench.instances.pcmax import read_pcmax_text, uniform
from schedbench.metrics.campaign import objective_value
from schedbench.model.campaign import OBJECTIVES, Campaign, CampaignInstance, User
from schedbench.model.pcmax import PcmaxInstance
from schedbench.result import FEASIBLE, OPTIMAL
from schedbench.schedule import Schedule, back_to_back
from schedbench.solvers import solve
from schedbench.solvers.campaign import optimal_user_flows
from schedbench.solvers.pcmax import pcmax_optimum
from schedbench.validator import validate

#: The public P||Cmax benchmark set of Lawrinenko (its folder holds
#: opt-known-instances-lawrinenko.txt and lawrinenko/): the tests on it are
#: benchmarks (``-m benchmark``), run with its path in SCHEDBENCH_PCMAX_SET;
#: the test command reads nothing outside the repository.
LAWRINENKO = Path(os.environ.get("SCHEDBENCH_PCMAX_SET", "/nonexistent"))
ON_LAWRINENKO = pytest.mark.skipif(not LAWRINENKO.is_dir(), reason="set SCHEDBENCH_PCMAX_SET to the folder of the "
                                                                   "public P||Cmax benchmark set (Lawrinenko's)")


def known_optima():
    table = {}
    for line in (LAWRINENKO / "opt-known-instances-lawrinenko.txt").read_text().splitlines():
        name, value = line.split()
        table[name] = int(value)
    return table


@pytest.mark.benchmark
@ON_LAWRINENKO
@pytest.mark.parametrize("backend,size,count", [("milp", "-n20-", 10), ("portfolio", "-n20-", 10),
                                                ("cpsat", "-n20-m10-", 4)])
def test_lawrinenko_sample_matches_known_optima(backend, size, count):
    """A fixed sample of the literature set: every proven optimum equals the
    known one, and every bound brackets it."""
    optima = known_optima()
    names = sorted(n for n in optima if size in n)[::11][:count]
    assert len(names) == count
    proven = 0
    for name in names:
        inst = read_pcmax_text(LAWRINENKO / "lawrinenko" / name)
        result = solve(inst, "makespan", backend, time_limit=5)
        assert validate(inst, result.schedule) == []
        assert result.bound <= optima[name] <= result.objective
        if result.status == OPTIMAL:
            proven += 1
            assert result.objective == optima[name], name
    assert proven >= count // 4


#: Class 5-7 instances where LPT, MULTIFIT and local search miss the optimum.
HARD_LAWRINENKO = ("p_cmax-class5-n162-m72-mu100-sigma50-seed12667.txt",
                   "p_cmax-class6-n180-m80-minsize180-maxsize720-seed1718.txt",
                   "p_cmax-class7-n140-m56-mu560-sigma140-seed18790.txt")


@pytest.mark.benchmark
@ON_LAWRINENKO
@pytest.mark.parametrize("name", HARD_LAWRINENKO)
def test_arcflow_lp_bound_and_dive_reach_the_known_optimum(name):
    """The LP bound (by bisection, with or without a capacity tried first:
    the cheap bound, just below a claim) reaches the optimum, the cheap bounds do not meet there, and the
    LP dive finds a schedule at exactly that makespan."""
    from schedbench.solvers.milp.pcmax import dive
    from schedbench.solvers.pcmax import _arcflow_lower_bound, _bounds, _makespan
    from schedbench.metrics.pcmax.bounds import lower_bound

    optimum = known_optima()[name]
    inst = read_pcmax_text(LAWRINENKO / "lawrinenko" / name)
    upper = _bounds(inst.jobs, inst.machines, math.inf, math.inf, math.inf).upper  # LPT or MULTIFIT, local search
    cheap = lower_bound(inst.jobs, inst.machines, upper)[0]
    assert cheap < upper and upper > optimum
    for first in (None, cheap, optimum - 1, upper - 1):  # bisection, or a capacity tried first
        assert _arcflow_lower_bound(inst.jobs, inst.machines, cheap, upper, time.monotonic() + 60, first) == optimum
    status, machine_of = dive(inst.jobs, inst.machines, optimum, 60)
    assert status == "feasible"
    schedule = Schedule(tuple(machine_of), tuple(back_to_back(machine_of, inst.jobs)))
    assert validate(inst, schedule) == []
    assert _makespan(machine_of, inst.jobs) == optimum


@pytest.mark.benchmark
@ON_LAWRINENKO
def test_a_dive_asked_again_goes_on_where_it_stopped(monkeypatch):
    """The engine's last step gives a dive cut short by its time the time
    left: the LP steps the first one took are remembered, so the second
    solves again no LP the first one finished, and ends in the packing."""
    from schedbench.solvers.milp import pcmax as milp

    name = "p_cmax-class7-n198-m72-mu792-sigma198-seed27362.txt"
    optimum = known_optima()[name]
    inst = read_pcmax_text(LAWRINENKO / "lawrinenko" / name)
    solved = []
    real_lp = milp._lp
    monkeypatch.setattr(milp, "_lp", lambda lengths, *rest: solved.append(tuple(sorted(lengths)))
                        or real_lp(lengths, *rest))
    milp.forget_patterns()
    assert milp.dive(inst.jobs, inst.machines, optimum, 0.2) == ("unknown", None)
    first = len(solved)
    assert first >= 1
    status, machine_of = milp.dive(inst.jobs, inst.machines, optimum, 60)
    assert status == "feasible" and len(solved) > first
    assert len(solved) - len(set(solved)) <= 1  # only the LP the first one's deadline cut is solved again
    assert validate(inst, Schedule(tuple(machine_of), tuple(back_to_back(machine_of, inst.jobs)))) == []
    assert max(sum(p for p, q in zip(inst.jobs, machine_of) if q == k) for k in set(machine_of)) == optimum


def test_dive_never_claims_an_infeasible_capacity():
    """Below the optimum the dive must give up, not return a packing."""
    from schedbench.solvers.milp.pcmax import dive

    assert dive((13, 5, 4, 13, 18, 6), 3, 21, 10) == ("unknown", None)  # optimum 22
    assert dive((13, 5, 4, 13, 18, 6), 3, 22, 10)[0] == "feasible"


def test_pcmax_small_known_optimum(solver):
    # 3 machines, 9 jobs summing to 45 with a perfect split: bounds and LPT close it
    result = solve(PcmaxInstance(3, (9, 8, 7, 6, 5, 4, 3, 2, 1)), "makespan", solver, 20)
    assert result.status == OPTIMAL and result.objective == 15 and result.method == "bounds"
    # here every cheap bound says 21 but the optimum is 22: bin completion's
    # refutation of 21 is confirmed by a second method (the assignment
    # search) before it counts, whatever the backend
    result = solve(PcmaxInstance(3, (13, 5, 4, 13, 18, 6)), "makespan", solver, 20)
    assert result.status == OPTIMAL and result.objective == 22 and result.bound == 22
    assert (result.method, result.proof) == ("bin-completion", ("bin-completion", "assignment-search"))


def _brute_force(lengths, machines):
    best = None
    for assignment in itertools.product(range(machines), repeat=len(lengths)):
        loads = [0] * machines
        for j, q in enumerate(assignment):
            loads[q] += lengths[j]
        best = max(loads) if best is None else min(best, max(loads))
    return best


def test_pcmax_engine_against_brute_force():
    """Every backend of the engine, and the lower bound, against enumeration."""
    from schedbench.metrics.pcmax.bounds import lower_bound

    rng = random.Random(5)
    for _ in range(150):
        m, n = rng.randint(2, 3), rng.randint(3, 8)
        lengths = tuple(rng.randint(1, 20) for _ in range(n))
        optimum = _brute_force(lengths, m)
        assert lower_bound(lengths, m)[0] <= optimum
        for backend in ("cpsat", "milp", "portfolio"):
            found = pcmax_optimum(lengths, m, backend, 20)
            assert found.optimal and found.makespan == optimum, (lengths, m, backend)
            assert validate(PcmaxInstance(m, lengths), Schedule(found.machine, found.start)) == []


def test_cpsat_counts_model_against_brute_force():
    """Many equal lengths send the CP-SAT step to its counts model (mostly
    distinct ones, as above, to the assignment model)."""
    from schedbench.solvers.cpsat.pcmax import minimize

    rng = random.Random(11)
    for _ in range(60):
        m, n = rng.randint(2, 3), rng.randint(6, 8)
        lengths = tuple(rng.randint(2, 4) for _ in range(n))
        assert 2 * len(set(lengths)) <= len(lengths)
        optimum = _brute_force(lengths, m)
        status, machine_of, bound = minimize(lengths, m, 1, sum(lengths), time.monotonic() + 20)
        assert status == "optimal" and bound == optimum
        assert validate(PcmaxInstance(m, lengths), Schedule(tuple(machine_of), tuple(back_to_back(machine_of, lengths)))) == []
        loads = [sum(p for p, q in zip(lengths, machine_of) if q == k) for k in range(m)]
        assert max(loads) == optimum


def test_pcmax_backends_agree_on_random_instances():
    for seed in range(25):
        inst = uniform(seed, jobs=random.Random(seed).randint(5, 12), machines=random.Random(seed).randint(2, 4))
        a = pcmax_optimum(inst.jobs, inst.machines, "cpsat", 20)
        b = pcmax_optimum(inst.jobs, inst.machines, "milp", 20)
        assert a.optimal and b.optimal and a.makespan == b.makespan


def test_time_limit_returns_best_and_bound():
    """A hard instance with a tiny limit: never 'optimal' unless bound == value."""
    inst = uniform(5, jobs=60, machines=7, low=100, high=1000)
    result = solve(inst, "makespan", "cpsat", time_limit=0.05)
    assert validate(inst, result.schedule) == []
    assert result.bound <= result.objective
    assert result.status in (OPTIMAL, FEASIBLE)
    assert (result.status == OPTIMAL) == (result.bound == result.objective)


def _instances():
    """85 small random campaign instances, with and without release and think times (larger ones, both
    backends on each: tests/harness/test_optimality_stress.py and bench/optimality_stress.py)."""
    for seed in range(85):
        if seed % 3 == 0:
            yield random_small(seed, users=(1, 3), campaigns=(1, 2), jobs=(1, 3), length=(1, 5), machines=(1, 3))
        else:
            yield random_small(seed, users=(2, 3), campaigns=(1, 2), jobs=(1, 3), length=(1, 5), machines=(1, 3),
                               release=(0, 3), think=(0, 2))


def test_cpsat_and_milp_agree_on_every_campaign_objective():
    heuristics = families.heuristics("campaign")
    compared = 0
    for inst in _instances():
        flows = optimal_user_flows(inst)
        for objective in OBJECTIVES:
            if objective == "user-flow" and inst.n_users != 1:
                continue
            a = solve(inst, objective, "cpsat", 20)
            b = solve(inst, objective, "milp", 20)
            for result in (a, b):
                assert validate(inst, result.schedule) == []
                assert result.objective == objective_value(inst, result.schedule, objective, flows)
                assert result.bound <= result.objective
            if a.status == b.status == OPTIMAL:
                compared += 1
                assert a.objective == b.objective, (inst, objective, a.objective, b.objective)
                if objective == "sum-user-flow":
                    assert _order_free_bound(inst) <= _sum_flow_bound(inst) <= a.objective, inst
                for name in ("fcfs", "faircamp", "ostrich", "multicamp"):
                    value = objective_value(inst, heuristics[name](inst), objective, flows)
                    assert value >= a.objective, (name, objective)
    assert compared >= 255


def _sum_flow_bound(inst) -> int:
    from schedbench.solvers.campaign import campaign_optima
    from schedbench.solvers.campaign.spec import CampaignSpec

    lower = tuple(tuple(s.bound for s in row) for row in campaign_optima(inst, "cpsat", 10))
    return CampaignSpec(inst, lower, objective="sum-user-flow").sum_flow_lower_bound


def _order_free_bound(inst) -> int:
    """The sum-user-flow bound without the order the users finish in (as beyond ``ORDER_WORK``)."""
    from schedbench.solvers.campaign import spec as campaign_spec

    saved, campaign_spec.ORDER_WORK = campaign_spec.ORDER_WORK, 0
    try:
        return _sum_flow_bound(inst)
    finally:
        campaign_spec.ORDER_WORK = saved


def test_the_sum_flow_bound_knows_the_users_finish_in_some_order(solver):
    """m = 2, user A: jobs 1 and 4, user B: 1 and 5. Each alone: 4 + 5 = 9,
    and the works done shortest first give 3 + 6 = 9; but whoever finishes
    second ends after all 11 units on 2 machines, at 6 or later: 4 + 6 = 10,
    the optimum, proven by the bound alone."""
    inst = CampaignInstance(2, (User((Campaign((1, 4)),)), User((Campaign((1, 5)),))))
    assert (_order_free_bound(inst), _sum_flow_bound(inst)) == (9, 10)
    result = solve(inst, "sum-user-flow", solver, 20)
    assert (result.status, result.objective, result.proof) == (OPTIMAL, 10, ("sum-flow-bound",))
    assert validate(inst, result.schedule) == []


def test_cpsat_formulations_agree():
    for seed in range(10):
        inst = random_small(seed, users=(2, 3), campaigns=(1, 2), jobs=(1, 3), length=(1, 5), machines=(2, 3))
        reference = solve(inst, "sum-user-flow", "cpsat", 20)
        for formulation in ("cumulative", "machines"):
            result = solve(inst, "sum-user-flow", "cpsat", 20, formulation=formulation)
            assert result.status == OPTIMAL and result.objective == reference.objective, formulation
            assert validate(inst, result.schedule) == []


def test_milp_big_m_agrees():
    for seed in range(8):
        inst = random_small(seed, users=(2, 2), campaigns=(1, 2), jobs=(1, 2), length=(1, 4), machines=(2, 2))
        reference = solve(inst, "sum-user-flow", "cpsat", 20)
        result = solve(inst, "sum-user-flow", "milp", 20, formulation="big-m")
        assert result.status == OPTIMAL and result.objective == reference.objective


def test_unit_campaign_optima(solver):
    """FAIRCAMP Prop. 4: k users, n campaigns of m unit jobs: max-user-stretch k,
    sum-user-flow n k (k+1) / 2."""
    inst = unit_campaigns(users=3, campaigns=2, machines=2)
    assert solve(inst, "max-user-stretch", solver, 30).objective == 3
    assert solve(inst, "sum-user-flow", solver, 30).objective == 2 * 3 * 4 // 2


def test_hand_computed_multi_user_optima(solver):
    # m = 1, user A: [3]; user B: [2], [3]. Optimal max-user-stretch 8/5 (A first);
    # optimal sum-user-flow: B1 [0,2], A [2,5], B2 [5,8]: F_B = 2 + 6 = 8, F_A = 5 -> 13;
    # or A first: 3 + (5 + 3) = 11; or B1, B2 then A: 5 + 8 = 13. So 11.
    inst = CampaignInstance(1, (User((Campaign((3,)),)), User((Campaign((2,)), Campaign((3,))))))
    stretch = solve(inst, "max-user-stretch", solver, 30)
    assert stretch.status == OPTIMAL and stretch.objective == Fraction(8, 5)
    flow = solve(inst, "sum-user-flow", solver, 30)
    assert flow.status == OPTIMAL and flow.objective == 11
    # max-campaign-stretch: l = 3, 2, 3. A first: A 1, B1 5/2, B2 1 -> 5/2;
    # B1 first: B1 1, A 5/3, B2 6/3 = 2 -> 2; B1, B2, A: A 8/3. Optimum 2.
    camp = solve(inst, "max-campaign-stretch", solver, 30)
    assert camp.status == OPTIMAL and camp.objective == 2


def test_user_flow_single_user_decomposes(solver):
    inst = CampaignInstance(2, (User((Campaign((3, 3, 2, 2, 2)), Campaign((4,), 5)), release=2),))
    result = solve(inst, "user-flow", solver, 20)
    assert result.status == OPTIMAL and result.objective == 6 + 4 and result.method == "decomposition"
    assert validate(inst, result.schedule) == []


@pytest.mark.timing
def test_l1_is_the_sum_of_the_k_plus_1_shortest_of_the_km_plus_1_longest_and_linear():
    """m = 2, lengths 9 8 7 6 5: k = 1 gives 8 + 7 (of 9 8 7), k = 2 gives
    7 + 6 + 5 (of all five): L1 = 18. One machine and 10^6 jobs: the bound
    (their sum) within a second."""
    import time

    from schedbench.metrics.pcmax.bounds import l1

    assert l1([5, 9, 6, 8, 7], 2) == 18
    lengths = [1 + j % 1000 for j in range(1_000_000)]
    began = time.monotonic()
    assert l1(lengths, 1) == sum(lengths)
    assert time.monotonic() - began < 2


@pytest.mark.timing
def test_pcmax_optima_keeps_its_budget_when_there_are_too_many_problems():
    """A trace's thousands of campaigns: those the budget does not reach get
    LPT and L0, unproven unless they meet, instead of running every
    problem's bounds and MULTIFIT past the limit."""
    import time

    from schedbench.solvers.pcmax import pcmax_optima

    rng = random.Random(11)
    problems = [(tuple(rng.randint(1, 1000) for _ in range(5000)), 97) for _ in range(60)]
    began = time.monotonic()
    found = pcmax_optima(problems, "portfolio", 0.3)
    assert time.monotonic() - began < 2.5
    assert len(found) == 60 and all(f.bound <= f.makespan for f in found)
    assert any(not f.optimal for f in found)
    for (lengths, machines), f in zip(problems, found):
        instance = PcmaxInstance(machines, lengths)
        schedule = Schedule(f.machine, f.start)
        assert validate(instance, schedule) == []
        assert max(s + p for s, p in zip(f.start, lengths)) == f.makespan


@pytest.mark.timing
@pytest.mark.parametrize("high", [1000, 10000])
def test_machines_filled_to_the_planted_optimum_are_proven_by_the_bound(high):
    """Planted instances (every machine filled to C = W / m by construction):
    the bound is the optimum, the CP-SAT model is too large to build, and
    the fill search finds the schedule the bound needs within the limit."""
    from schedbench.instances.pcmax import planted

    inst = planted(3, 2000, 400, 1, high)
    began = time.monotonic()
    result = solve(inst, "makespan", "portfolio", 10.0)
    assert time.monotonic() - began < 12
    assert result.status == OPTIMAL and result.objective == inst.meta["optimum"] and result.method == "fill"
    assert validate(inst, result.schedule) == []


#: FAIRCAMP Fig. 4 campaigns (seeds 313 and 180) whose arc-flow graph's LP
#: bound is one short of the optimum (the arc-flow MILP refutes C, CP-SAT
#: does not confirm it within a minute, bin completion does in 10^5 nodes);
#: the pattern LP, where no pattern repeats a length more often than it has
#: jobs, refutes C on its own (the engine asks it from C = 1,000 on).
ONE_SHORT = [((100, 97, 95, 90, 85, 84, 83, 82, 82, 82, 81, 79, 74, 73, 72, 56, 55, 50, 45, 38, 37, 37, 35, 23, 22,
               19, 13, 8), 172),
             ((99, 98, 95, 94, 94, 85, 84, 82, 80, 79, 79, 76, 75, 68, 63, 62, 62, 61, 59, 57, 51, 47, 30, 28, 28, 28,
               25, 9, 7, 2), 182)]


#: A MOSP Fig. 8 organization (N = 10), one short too: the arc-flow MILP
#: refutes 2,203 in about 3 s, CP-SAT not within a minute, bin completion in
#: 2 x 10^6 nodes (a second), past the 2.5 x 10^5 budget it once had here.
ONE_SHORT_DEEP = ((507, 55, 970, 279, 102, 671, 538, 921, 968, 922, 694, 904, 479, 434, 826, 787, 343, 943, 746, 727,
                   740, 255, 229, 969, 669, 707, 122, 953, 933, 437, 695, 993, 557, 940), 2204)


@pytest.mark.parametrize("lengths,optimum", ONE_SHORT)
def test_the_pattern_lp_refutes_where_the_graphs_lp_is_one_short(lengths, optimum):
    from schedbench.solvers.milp.pcmax import lp_bins
    from schedbench.solvers.milp.pcmax_patterns import PatternLP

    assert lp_bins(lengths, optimum - 1, 10.0) == 10  # the graph's LP: fits, fractionally
    assert PatternLP(lengths).refuted_through(optimum - 1, 10, optimum - 1, time.monotonic() + 10.0) == optimum - 1


@pytest.mark.parametrize("lengths,optimum", ONE_SHORT + [ONE_SHORT_DEEP])
def test_a_refutation_the_lp_bound_misses_is_confirmed_by_bin_completion(lengths, optimum):
    from schedbench.solvers.pcmax import clear_cache

    clear_cache()
    found = pcmax_optimum(lengths, 10, "portfolio", 30.0)
    assert (found.status, found.makespan) == (OPTIMAL, optimum)
    assert "bin-completion" in found.proof and len(found.proof) == 2
    assert validate(PcmaxInstance(10, lengths), Schedule(found.machine, found.start)) == []


def test_the_arc_flow_milp_decides_as_enumeration_does():
    """The sparse-matrix arc-flow model (SCIP through model_builder) on its
    own: infeasible one below the optimum, a valid packing at it."""
    from schedbench.solvers.milp.pcmax import decide
    from schedbench.solvers.pcmax import _makespan

    rng = random.Random(8)
    for _ in range(40):
        m, n = rng.randint(2, 3), rng.randint(3, 8)
        lengths = tuple(rng.randint(1, 20) for _ in range(n))
        optimum = _brute_force(lengths, m)
        assert decide(lengths, m, optimum - 1, 20)[0] == "infeasible", (lengths, m)
        status, machine_of = decide(lengths, m, optimum, 20)
        assert status == "feasible" and _makespan(machine_of, lengths) <= optimum, (lengths, m)
        assert validate(PcmaxInstance(m, lengths), Schedule(tuple(machine_of), tuple(back_to_back(machine_of, lengths)))) == []


def test_a_problem_left_open_is_not_asked_again_with_no_more_time(monkeypatch):
    """FAIRCAMP Fig. 4's five values of k share every campaign: one that a
    call could not prove costs its time once, not once per workload."""
    from schedbench.solvers import pcmax

    asked = []

    def open_forever(lengths, machines, solver, seconds, search=None):
        asked.append(seconds)
        return pcmax._unreached(lengths, machines)

    pcmax.clear_cache()
    monkeypatch.setattr(pcmax, "_optimum", open_forever)
    problems = [(ONE_SHORT[0][0], 10)]
    first = pcmax.pcmax_optima(problems, "portfolio", 0.5)
    rounds = len(asked)
    second = pcmax.pcmax_optima(problems, "portfolio", 0.5)
    assert rounds >= 1 and not first[0].optimal and second == first and len(asked) == rounds
    pcmax.pcmax_optima(problems, "portfolio", 2.0)  # more time: asked again
    assert len(asked) > rounds
    pcmax.clear_cache()


#: FAIRCAMP Fig. 4 campaigns (seed 0): one bin completion refutes at its
#: LP bound (151; the optimum is 152), one of 41 jobs the fill closes at 210.
REFUTED_AT_LP = ((71, 74, 29, 62, 68, 48, 63, 75, 100, 74, 43, 62, 26, 83, 65, 87, 60, 50, 67, 90, 22, 91, 79), 152)
FILLED = ((89, 98, 16, 50, 90, 63, 93, 22, 45, 80, 74, 49, 42, 70, 19, 11, 39, 4, 67, 29, 85, 38, 1, 77, 66, 45, 66,
           75, 3, 8, 71, 10, 94, 19, 81, 83, 1, 44, 51, 60, 68), 210)


def test_a_capacity_bin_completion_refuted_is_not_dived(monkeypatch):
    """A dive only finds packings: at a C bin completion already refuted
    only the arc-flow MILP runs (it can confirm the refutation); before,
    the dive spent half of the campaign's share there in vain."""
    from schedbench.solvers import pcmax

    dived = []
    real_dive = pcmax.arcflow_models.dive
    monkeypatch.setattr(pcmax.arcflow_models, "dive", lambda lengths, machines, capacity, seconds:
                        dived.append(capacity) or real_dive(lengths, machines, capacity, seconds))
    pcmax.clear_cache()
    lengths, optimum = REFUTED_AT_LP
    found = pcmax.pcmax_optimum(lengths, 10, "portfolio", 10.0)
    assert (found.status, found.makespan) == (OPTIMAL, optimum)
    assert optimum - 1 not in dived
    assert validate(PcmaxInstance(10, lengths), Schedule(found.machine, found.start)) == []
    pcmax.clear_cache()


def _first_step(monkeypatch, lengths, machines) -> str:
    """Which of bin completion and the fill the engine tries first on an open problem."""
    from schedbench.solvers import pcmax

    steps = []
    real_pack, real_fill = pcmax.pack, pcmax.fill_to
    with monkeypatch.context() as patch:  # undone on return: a second call wraps the real functions
        patch.setattr(pcmax, "pack", lambda *a, **k: steps.append("pack") or real_pack(*a, **k))
        patch.setattr(pcmax, "fill_to", lambda *a, **k: steps.append("fill") or real_fill(*a, **k))
        pcmax.clear_cache()
        found = pcmax.pcmax_optimum(lengths, machines, "portfolio", 10.0)
    assert found.optimal and found.method != "bounds"
    assert validate(PcmaxInstance(machines, lengths), Schedule(found.machine, found.start)) == []
    pcmax.clear_cache()
    return steps[0]


def test_with_four_jobs_a_machine_the_fill_goes_before_bin_completion(monkeypatch):
    """FAIRCAMP Fig. 4's campaigns of 40 jobs and more on 10 machines: the
    fill closes them in a millisecond where bin completion spent 2 x 10^4
    nodes in vain; with fewer jobs a machine bin completion goes first."""
    assert _first_step(monkeypatch, FILLED[0], 10) == "fill"
    assert _first_step(monkeypatch, REFUTED_AT_LP[0], 10) == "pack"


class _AtTheModels(Exception):
    """Raised where the engine reaches the backend's search: the steps before it are recorded."""


def _steps_before_the_models(monkeypatch, lengths, machines) -> list[tuple]:
    """The engine's steps up to the backend's search on a problem whose bin
    completion stays undecided and whose fill finds nothing: ("pack",) or
    ("fill", its patience: None for a full try)."""
    from schedbench.solvers import pcmax

    steps = []

    def search(*args):
        raise _AtTheModels

    with monkeypatch.context() as patch:
        patch.setattr(pcmax, "pack", lambda *a, **k: steps.append(("pack",)) or ("unknown", None))
        patch.setattr(pcmax, "fill_to", lambda lengths, start, *rest, patience=None:
                      steps.append(("fill", patience)) or (None, False, list(start)))
        patch.setattr(pcmax, "_search", search)
        pcmax.clear_cache()
        with pytest.raises(_AtTheModels):
            pcmax._optimum(lengths, machines, "portfolio", 10.0)
    pcmax.clear_cache()
    return steps


def test_where_bin_completion_is_undecided_the_fill_probes_below_four_jobs_a_machine_and_tries_from_four(
        monkeypatch):
    """Below four jobs a machine a full try of the fill there cost more than
    it closed (300 Lawrinenko instances 94.2 s against 64.7 s with a
    probe); from four on, where two probes went before bin completion, the
    full try closes what the dive would take longer for (902 of MOSP Fig.
    8's organizations 29.2 s against 39.9 s without it)."""
    from schedbench.solvers.pcmax import FILL_FIRST_PATIENCE as PROBE

    assert _steps_before_the_models(monkeypatch, REFUTED_AT_LP[0], 10) == [("pack",), ("fill", PROBE)]
    assert _steps_before_the_models(monkeypatch, FILLED[0], 10) == [
        ("fill", PROBE), ("fill", PROBE), ("pack",), ("fill", None)]


#: A MOSP Fig. 8 organization (N = 10) of 4.7 jobs a machine with a schedule
#: at L0 = 1,926: the fill probe finds it from LPT's schedule in
#: milliseconds, not from the local search's (the arc-flow dive took a
#: second and a half instead).
FILLED_FROM_LPT = (11, 571, 442, 536, 19, 461, 121, 462, 263, 112, 316, 460, 367, 365, 164, 304, 23, 331, 550, 794,
                   661, 869, 672, 167, 167, 798, 578, 51, 448, 264, 813, 454, 702, 23, 530, 834, 545, 2, 624, 904, 2,
                   61, 189, 658, 835, 446, 282)


def test_the_fill_probe_starts_from_lpts_schedule():
    from schedbench.solvers.pcmax import clear_cache

    clear_cache()
    found = pcmax_optimum(FILLED_FROM_LPT, 10, "portfolio", 10.0)
    assert (found.status, found.makespan, found.method, found.proof) == (OPTIMAL, 1926, "fill", ("L0",))
    assert validate(PcmaxInstance(10, FILLED_FROM_LPT), Schedule(found.machine, found.start)) == []
    clear_cache()
