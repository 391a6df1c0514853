"""Every heuristic's schedule passes the validator; paper examples; known bounds."""

import itertools
import random
import time
from fractions import Fraction

import pytest

from schedbench import families
from schedbench.heuristics.faircamp import faircamp_nondelay_run, faircamp_run
from schedbench.heuristics.pcmax import RULES, list_scheduling, lpt, mlpt, spt
from schedbench.instances.campaign import faircamp_paper, ostrich_paper, random_small
from schedbench.metrics.campaign import campaign_times
from schedbench.model.campaign import Campaign, CampaignInstance, User
from schedbench.validator import validate

CAMPAIGN = families.heuristics("campaign")
ORDER_ONLY = {"ostrich", "faircamp_nondelay"}  # these take a job order, not a placement rule


def inner_options(name):
    if name in ORDER_ONLY:
        return ["lpt", "spt", "list"]
    return list(RULES)


@pytest.mark.parametrize("name", sorted(CAMPAIGN))
def test_every_campaign_heuristic_is_valid_on_hundreds_of_instances(name):
    for seed in range(300):
        inst = random_small(seed, users=(1, 1) if name == "camp" else (1, 4), campaigns=(1, 4), jobs=(1, 5),
                            length=(1, 9), machines=(1, 4), release=(0, 6) if seed % 2 else (0, 0),
                            think=(0, 5) if seed % 3 else (0, 0))
        for inner in inner_options(name):
            schedule = CAMPAIGN[name](inst, inner=inner)
            assert validate(inst, schedule) == [], (name, inner, seed)


@pytest.mark.parametrize("name", ["fcfs", "faircamp", "faircamp_nondelay", "ostrich", "multicamp"])
def test_heuristics_valid_on_the_papers_workloads(name):
    for inst in (faircamp_paper(5, seed=3, n_jobs=2000), ostrich_paper(6, seed=3, n_jobs=2000)):
        assert validate(inst, CAMPAIGN[name](inst)) == []


def test_faircamp_paper_deadline_example():
    """§VI.C: k = 2; user 1 campaigns of length 5, 3; user 2 of length 3, 3, 10.

    The paper prints deadlines 10, 16 and 6, 12, 22, but its own rule
    d_i = k Δ_i + d_{i-1} gives 2*10 + 12 = 32 for the last one: 22 is an
    arithmetic slip in the paper (docs/claims.md, "Findings")."""
    inst = CampaignInstance(1, (User((Campaign((5,)), Campaign((3,)))),
                                User((Campaign((3,)), Campaign((3,)), Campaign((10,))))))
    for run in (faircamp_run, faircamp_nondelay_run):
        found = run(inst)
        assert found.deadlines == ((10, 16), (6, 12, 32))
        assert found.inner_lengths == ((5, 3), (3, 3, 10))
        times = campaign_times(inst, found.schedule)
        assert [[t.completion for t in row] for row in times] == [[8, 14], [3, 11, 24]]


def test_faircamp_blocks_take_all_machines():
    # two users with one unit job each on two machines: blocks run one after the other
    inst = CampaignInstance(2, (User((Campaign((1,)),)), User((Campaign((1,)),))))
    assert sorted(CAMPAIGN["faircamp"](inst).start) == [0, 1]
    assert CAMPAIGN["faircamp_nondelay"](inst).start == (0, 0)


def test_fcfs_is_fifo_on_the_trap():
    """Prop. 6's construction: user 2's unit campaigns each wait for user 1's long ones."""
    from schedbench.instances.campaign import fcfs_trap
    from schedbench.metrics.campaign import user_flows

    inst = fcfs_trap(machines=3, campaigns=4, long=7)
    # user 1: 7, then each later campaign waits 1 for user 2's unit jobs; user 2 always waits 7
    assert user_flows(inst, CAMPAIGN["fcfs"](inst)) == (7 + 3 * 8, 4 * 8)


def test_ostrich_virtual_share_example():
    """m = 1, user 0: one campaign of work 4 at 0; user 1: one campaign of work 1 at 0.

    V shares the machine: user 1 completes in V at 2 (rate 1/2), user 0 at 5,
    so user 1 goes first although user 0 is listed first."""
    inst = CampaignInstance(1, (User((Campaign((4,)),)), User((Campaign((1,)),))))
    assert CAMPAIGN["ostrich"](inst).start == (1, 0)


def test_ostrich_no_campaign_starts_before_its_virtual_start():
    """m = 1: user 0's second campaign (work 1) is submitted at 1 but its
    first campaign completes in V only at 2 (sharing with user 1), so it waits
    although user 1's long job has lower priority."""
    inst = CampaignInstance(1, (User((Campaign((1,)), Campaign((1,)))), User((Campaign((10,)),))))
    start = CAMPAIGN["ostrich"](inst).start
    # V: both active, clock rate 1/2: user 0's campaign 1 (tag 1) completes in V at t = 2.
    # The real machine is free at 1; only user 1 is eligible, so it starts there.
    assert start == (0, 11, 1)


def test_multicamp_orders_blocks_by_length():
    inst = CampaignInstance(1, (User((Campaign((5,)),)), User((Campaign((1,)), Campaign((1,))))))
    assert CAMPAIGN["multicamp"](inst).start == (2, 0, 1)


def _brute_force(lengths, ready):
    best = None
    for assignment in itertools.product(range(len(ready)), repeat=len(lengths)):
        ends = {}
        for j, q in enumerate(assignment):
            ends[q] = ends.get(q, ready[q]) + lengths[j]
        best = min(best, max(ends.values())) if best is not None else max(ends.values())
    return best


def _makespan(lengths, placement):
    return max(s + p for s, p in zip(placement[1], lengths))


def test_list_rules_respect_their_proven_ratios():
    """LPT <= 4/3 - 1/(3m) (all free at 0), LPT <= 3/2 - 1/(2m) and MLPT <= 4/3
    with availability times (Lee 1991), list <= 2 - 1/m, against brute force."""
    rng = random.Random(7)
    for _ in range(600):
        m, n = rng.randint(2, 3), rng.randint(2, 7)
        lengths = [rng.randint(1, 12) for _ in range(n)]
        zeros = [0] * m
        ready = [rng.randint(0, 10) for _ in range(m)]
        opt0, opt = _brute_force(lengths, zeros), _brute_force(lengths, ready)
        assert Fraction(_makespan(lengths, lpt(lengths, zeros)), opt0) <= Fraction(4, 3) - Fraction(1, 3 * m)
        assert Fraction(_makespan(lengths, list_scheduling(lengths, zeros)), opt0) <= 2 - Fraction(1, m)
        assert Fraction(_makespan(lengths, lpt(lengths, ready)), opt) <= Fraction(3, 2) - Fraction(1, 2 * m)
        assert Fraction(_makespan(lengths, mlpt(lengths, ready)), opt) <= Fraction(4, 3)
        assert _makespan(lengths, mlpt(lengths, ready)) <= _makespan(lengths, lpt(lengths, ready))
        for rule in (list_scheduling, lpt, spt, mlpt):
            machine, start = rule(lengths, ready)
            assert all(s >= ready[q] for q, s in zip(machine, start))


def _sum_of_completions(lengths, assignment, m):
    total = 0
    for q in range(m):
        elapsed = 0
        for p in sorted(p for p, a in zip(lengths, assignment) if a == q):
            elapsed += p
            total += elapsed
    return total


def test_spt_minimises_sum_of_completions():
    rng = random.Random(3)
    for _ in range(200):
        m, n = rng.randint(1, 3), rng.randint(1, 6)
        lengths = [rng.randint(1, 9) for _ in range(n)]
        machine, start = spt(lengths, [0] * m)
        total = sum(s + p for s, p in zip(start, lengths))
        best = min(_sum_of_completions(lengths, a, m) for a in itertools.product(range(m), repeat=n))
        assert total == best


def test_simulators_are_deterministic():
    inst = faircamp_paper(4, seed=11, n_jobs=1500)
    for name in ("fcfs", "faircamp", "faircamp_nondelay", "ostrich"):
        assert CAMPAIGN[name](inst) == CAMPAIGN[name](inst)


@pytest.mark.parametrize("name", sorted(families.heuristics("pcmax")))
def test_pcmax_heuristics_are_valid(name):
    from schedbench.instances.pcmax import uniform

    for seed in range(100):
        inst = uniform(seed, jobs=1 + seed % 17, machines=1 + seed % 5)
        assert validate(inst, families.heuristics("pcmax")[name](inst)) == []


def test_ostrich_virtual_clock_is_exact():
    """The clock advanced by int / int (a float) once: ties followed rounding
    and this instance's campaign started a unit late (max stretch 9/5)."""
    import math
    from fractions import Fraction
    from numbers import Rational

    from schedbench.heuristics.ostrich import VirtualFairShare, ostrich
    from schedbench.instances.campaign import random_small
    from schedbench.metrics.campaign import objective_value

    inst = random_small(68, users=(1, 2))
    assert objective_value(inst, ostrich(inst), "max-campaign-stretch", None) == Fraction(7, 4)
    policy = VirtualFairShare(inst)
    policy.submitted(0, 0, 0)
    policy.submitted(0, 1, 0)
    policy.submitted(1, 0, 1)  # two users shared the machines for one unit of time
    assert isinstance(policy.clock, Rational) and not isinstance(policy.clock, int) and policy.clock == Fraction(1, 2)
    # the clock is gmpy2's mpq; the periods read as Fractions of Python ints (JSON-able, no mpz inside)
    policy.fire_event()
    for start, end in [*policy.busy_periods, *(p for row in policy.completed().user_periods for p in row)]:
        for moment in (start, end):
            assert moment == math.inf or (type(moment) is Fraction
                                          and type(moment.numerator) is type(moment.denominator) is int)


@pytest.mark.timing
def test_repartition_skips_subset_sum_tables_too_large_to_build():
    """200 jobs of about 10^5 on one machine: their table would hold 200 x
    2 x 10^7 bits (0.5 GB, a second); the search leaves the pair alone."""
    import time

    from schedbench.solvers.pcmax.fill import SPLIT_CELLS, improve

    lengths = [100_000 + j for j in range(200)]
    machine_of = [0] * 199 + [1]
    assert len(lengths) * sum(lengths) > SPLIT_CELLS
    began = time.monotonic()
    assert improve(lengths, machine_of, 2) == machine_of
    assert time.monotonic() - began < 0.2


def test_fill_to_reaches_the_capacity_or_says_none():
    from schedbench.heuristics.pcmax import multifit
    from schedbench.solvers.pcmax.fill import fill_to
    from schedbench.instances.pcmax import planted

    for seed in range(3):
        inst = planted(seed, 600, 120, 1, 1000)
        start = multifit(inst.jobs, [0] * inst.machines)[0]
        machine_of, moved, stopped_at = fill_to(inst.jobs, start, inst.machines, inst.meta["optimum"],
                                                deadline=time.monotonic() + 10)
        assert stopped_at == machine_of
        assert moved and machine_of == fill_to(inst.jobs, start, inst.machines, inst.meta["optimum"])[0]  # seeded
        loads = [0] * inst.machines
        for j, q in enumerate(machine_of):
            loads[q] += inst.jobs[j]
        assert max(loads) == inst.meta["optimum"] and sum(loads) == sum(inst.jobs)  # every machine exactly full
    # three jobs of 5 never fit two machines of 9: no split qualifies, and the search stops on its own
    assert fill_to((5, 5, 5), [0, 0, 1], 2, 9) == (None, False, [0, 0, 1])
    # 7 + 2 and 4 + 5 fill two machines of 9: found from the worst start
    machine_of, _, _ = fill_to((7, 4, 2, 5), [0, 0, 0, 0], 2, 9)
    assert sorted(sum(p for p, q in zip((7, 4, 2, 5), machine_of) if q == k) for k in (0, 1)) == [9, 9]
    # a job longer than the capacity: nothing to do
    assert fill_to((12, 1), [0, 1], 2, 10)[0] is None


def test_fill_to_carries_an_excess_through_full_machines(monkeypatch):
    """The ejection chain alone (every re-split refused): the machine over C
    by 1 cannot swap with the one below C by 1 (no two of their jobs differ
    by 1), but it can pass 1 to a full machine (11 for 10), which passes it
    on (6 for 5)."""
    from schedbench.solvers.pcmax import fill

    monkeypatch.setattr(fill, "_split", lambda *args: None)
    lengths = (11, 10, 10, 6, 4, 5, 14)
    machine_of, moved, _ = fill.fill_to(lengths, [0, 0, 1, 1, 1, 2, 2], 3, 20)
    assert moved and machine_of is not None
    assert sorted(sum(p for p, q in zip(lengths, machine_of) if q == k) for k in range(3)) == [20, 20, 20]
    assert machine_of[0] == 1 and machine_of[3] == 2  # 11 went to the full machine, its 6 to the one below C
    from schedbench.model.pcmax import PcmaxInstance
    from schedbench.schedule import Schedule, back_to_back
    from schedbench.validator import validate

    instance = PcmaxInstance(3, lengths, "ejection")
    assert validate(instance, Schedule(tuple(machine_of), tuple(back_to_back(machine_of, lengths)))) == []
