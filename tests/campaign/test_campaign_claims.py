"""The claim checks catch real violations and pass where the papers are right."""

from fractions import Fraction

import pytest

from schedbench.claims import shrink
from schedbench.claims.campaign import CLAIMS, CampaignCase, smaller_instances, thm1
from schedbench.claims.campaign_run import instances, run
from schedbench.instances.campaign import fcfs_trap, unit_campaigns
from schedbench.model import load_instance
from schedbench.model.campaign import Campaign, CampaignInstance, User
from schedbench.validator import validate

BY_KEY = {claim.key: claim for claim in CLAIMS}

# m = 1 (so ρ = 1 and FAIRCAMP's inner schedules are optimal): user A has one
# campaign [3], user B campaigns [2] then [3]. FAIRCAMP: B1 (deadline 4) runs
# first, then A (deadline 6), then B2 (deadline 10): stretch of A 5/3.
# Optimal: A, B1, B2 gives max(1, 8/5) = 8/5 < 5/3.
THM1_COUNTEREXAMPLE = CampaignInstance(1, (User((Campaign((3,)),)), User((Campaign((2,)), Campaign((3,))))))


def test_faircamp_theorem_1_counterexample_is_caught():
    case = CampaignCase(THM1_COUNTEREXAMPLE)
    for run_name in ("faircamp", "faircamp_nondelay"):
        check = thm1(case, run_name)
        assert not check.holds
        assert check.numbers[run_name] == Fraction(5, 3) and check.numbers["OPT"] == Fraction(8, 5)
        assert check.ratio == Fraction(25, 24)


def test_true_claims_hold_on_their_constructions():
    assert BY_KEY["faircamp.prop4"].check(CampaignCase(unit_campaigns(3, 2, 2))).holds
    check = BY_KEY["faircamp.prop6"].check(CampaignCase(fcfs_trap(2, 3, 5)))
    assert check.holds and check.numbers["FCFS/OPT"] >= 5


def test_a_worsened_heuristic_is_caught(monkeypatch):
    """Prop. 7 must fail if FAIRCAMP stops honouring its deadlines (here: LIFO order)."""
    import schedbench.heuristics.faircamp as fc

    inst = CampaignInstance(1, (User((Campaign((1,)), Campaign((1,)))), User((Campaign((9,)),))))
    assert BY_KEY["faircamp.prop7"].check(CampaignCase(inst)).holds
    original = fc.faircamp_run

    def lifo(instance, inner="lpt"):
        found = original(instance, inner)
        # swap the users' roles: the long job first, as if deadlines were ignored
        start = list(found.schedule.start)
        start[2] = 0
        start[0], start[1] = 9, 10
        return fc.FaircampRun(type(found.schedule)(found.schedule.machine, tuple(start)),
                              found.deadlines, found.inner_lengths)

    monkeypatch.setattr("schedbench.claims.campaign.faircamp_run", lifo)
    case = CampaignCase(inst)
    assert validate(inst, case.faircamp.schedule) == []
    assert not BY_KEY["faircamp.prop7"].check(case).holds


def test_shrinking_finds_a_smaller_violation():
    big = CampaignInstance(1, (User((Campaign((3, 1)), Campaign((1,), 2))),
                               User((Campaign((2,)), Campaign((3,)), Campaign((2, 2)))),
                               User((Campaign((4,)),), release=1)))
    claim = BY_KEY["faircamp.thm1.ext"]

    def violates(inst):
        return claim.applies(inst) and not claim.check(CampaignCase(inst)).holds

    if not violates(big):
        pytest.skip("seed instance does not violate")
    small = shrink(big, violates, smaller_instances)
    assert violates(small)
    assert len(small.lengths) < len(big.lengths) or sum(small.lengths) < sum(big.lengths)
    assert not any(violates(c) for c in smaller_instances(small))


def test_bounds_run_saves_reproducing_counterexamples(tmp_path):
    tallies = {t.claim.key: t for t in run(instances(count=24, seed=1), out_dir=tmp_path)}
    assert tallies["faircamp.prop4"].tried == 18 and tallies["faircamp.prop4"].violations == 0
    assert tallies["faircamp.prop2"].violations == 0 and tallies["faircamp.prop3"].violations == 0
    thm = tallies["faircamp.thm1"]
    assert thm.tried > 0 and thm.violations > 0 and thm.worst > 1
    for path in thm.counterexamples:
        inst = load_instance(path)
        assert BY_KEY["faircamp.thm1"].applies(inst)
        assert not BY_KEY["faircamp.thm1"].check(CampaignCase(inst)).holds


def test_ostrich_lemma_1_measures_idle_areas_exactly():
    """m = 2, user A's one job of 4 at 0, user B's at 2: from R's first start
    (0) to its last (2) R idles one machine for 2 units while V, running A
    alone at full rate until 2, never idles."""
    from schedbench.claims.campaign import ostrich_lemma1

    inst = CampaignInstance(2, (User((Campaign((4,)),)), User((Campaign((4,)),), release=2)))
    check = ostrich_lemma1(CampaignCase(inst))
    assert check.holds and check.ratio == Fraction(1, 4)
    assert check.numbers == {"idle R": 2, "idle V": 0, "m p_max": 8}


def test_ostrich_k_counts_the_users_active_in_the_virtual_schedule():
    """One machine; A (job 10) and B (job 2) at 0, C (job 1) released at 11.
    In V, A and B share the machine until B completes at 4; A runs alone
    until C arrives at 11, then A's last unit and C's share it: both end at
    13. R runs B, then A (2 to 12), then C (12 to 13), where A, done in R,
    is still active in V: k = 2 for every campaign under the paper's
    reading (k~(t), users active in V), 3 under the all-users one."""
    from schedbench.claims.campaign import most_active_users, ostrich_lemma2
    from schedbench.metrics.campaign import campaign_times

    inst = CampaignInstance(1, (User((Campaign((10,)),)), User((Campaign((2,)),)), User((Campaign((1,)),), release=11)))
    case = CampaignCase(inst)
    schedule, virtual = case.ostrich
    periods = virtual.completed().user_periods
    assert periods == [[[0, 13]], [[0, 4]], [[11, 13]]]
    times = campaign_times(inst, schedule)
    assert [most_active_users(periods, t.submission, t.completion) for (t,) in times] == [2, 2, 2]
    assert most_active_users(periods, 4, 11) == 1  # A alone in V
    assert ostrich_lemma2(case, "all").numbers["k"] == 3 and ostrich_lemma2(case).numbers["k"] == 2


def test_the_ledger_separates_the_papers_claims_from_the_projects_checks():
    from schedbench.claims import PAPER, PROJECT, Tally, table
    from schedbench.claims.workflow import CLAIMS as WORKFLOW

    sources = {c.key: c.source for c in CLAIMS + WORKFLOW}
    assert sources["faircamp.thm1"] == PAPER and sources["faircamp.thm1.ext"] == PROJECT
    assert sources["workflow.pslr.transient"] == PROJECT and sources["workflow.pslr.starvation"] == PAPER
    text = table(Tally(c) for c in CLAIMS)
    papers, project = text.split("This project's checks")
    assert "| faircamp.thm1 |" in papers and "| faircamp.thm1.ext |" not in papers
    assert "| faircamp.thm1.ext |" in project and "| ostrich.lemma1 |" in papers
    assert "| ostrich.lemma2.all-users |" in project and "| ostrich.lemma2 |" in papers
