"""MOSP Fig. 8's Stretch decided from bounds of C^(k)alone
(``solvers.mosp.stretch``, ``metrics.mosp.decided_stretch``): the same
value as with every C^(k)alone proven, fewer proofs, and no value where the
bounds do not decide it."""

from fractions import Fraction

import pytest

import schedbench.solvers.mosp.stretch as lazy
from schedbench.heuristics.mosp import PAPER_HEURISTICS
from schedbench.instances.mosp import GENERATORS
from schedbench.metrics.mosp import decided_stretch, proven_stretch, stretch
from schedbench.solvers.mosp import alone_optima
from schedbench.solvers.pcmax import PcmaxSolution, clear_cache
from schedbench.validator.mosp import local_makespans

PAPER = GENERATORS["mosp-paper"]


@pytest.mark.parametrize("organizations, jobs", [(3, 12), (5, 20), (5, 40), (10, 30), (10, 60)])
def test_the_decided_stretch_is_the_stretch_over_every_proven_alone(organizations, jobs):
    for seed in range(6):
        inst = PAPER(organizations=organizations, jobs=jobs, seed=seed)
        alone = alone_optima(inst, 30)
        for name, run in PAPER_HEURISTICS.items():
            schedule = run(inst)
            references = lazy.stretch_references(inst, schedule, 30)
            assert "alone_unproven" not in references, (seed, name)
            assert proven_stretch(inst, schedule, references) == stretch(inst, schedule, alone), (seed, name)
            for (lower, upper), exact in zip((b for b in references["alone_bounds"] if b), (a for a in alone if a)):
                assert lower <= exact <= upper  # every bound handed on is true


def test_only_the_organizations_that_can_decide_the_maximum_are_solved(monkeypatch):
    """N = 10, n = 500 (seed 2): the least loaded organizations decide it;
    the large ones, whose C^(k) / L_k is below the Stretch, are never asked."""
    clear_cache()
    asked = []
    solve = lazy.pcmax_optima
    monkeypatch.setattr(lazy, "pcmax_optima", lambda problems, *rest: asked.append(len(problems[0][0]))
                        or solve(problems, *rest))
    inst = PAPER(organizations=10, jobs=500, seed=2)
    schedule = PAPER_HEURISTICS["ilba"](inst)
    references = lazy.stretch_references(inst, schedule, 30)
    value = proven_stretch(inst, schedule, references)
    assert value is not None and len(asked) < sum(1 for org in inst.organizations if org.jobs)
    makespans = local_makespans(inst, schedule)
    for k, bounds in enumerate(references["alone_bounds"]):
        if bounds and bounds[0] < bounds[1]:  # not proven: bounded out
            assert Fraction(makespans[k], bounds[0]) <= value


def test_bounds_that_do_not_decide_give_no_stretch():
    inst = PAPER(organizations=3, jobs=12, seed=0)
    schedule = PAPER_HEURISTICS["ilba"](inst)
    makespans = local_makespans(inst, schedule)
    exact = [(c, c) for c in makespans]  # C_alone = C^(k): every ratio 1
    assert decided_stretch(inst, schedule, exact) == 1
    loose = [(c - 1, c) if k == 0 else (c, c) for k, c in enumerate(makespans)]  # org 0 might reach C/(C-1)
    assert decided_stretch(inst, schedule, loose) is None
    tied = [(c, c + 5) if k == 0 else (c, c) for k, c in enumerate(makespans)]  # org 0 at most 1: ties the exact
    assert decided_stretch(inst, schedule, tied) == 1


def test_an_organization_not_proven_in_time_is_named_and_the_stretch_is_missing(monkeypatch):
    clear_cache()
    inst = PAPER(organizations=10, jobs=300, seed=0)
    schedule = PAPER_HEURISTICS["lpt-lpt"](inst)

    def unproven(problems, solver, limit):
        return [PcmaxSolution("feasible", sum(jobs), 1, (0,) * len(jobs), (0,) * len(jobs), "lpt")
                for jobs, _ in problems]

    monkeypatch.setattr(lazy, "pcmax_optima", unproven)
    monkeypatch.setattr(lazy, "_cheap_bounds", lambda jobs, machines: (1, sum(jobs)))
    references = lazy.stretch_references(inst, schedule, 5)
    assert references["alone_unproven"].startswith("--time-limit: C_alone of organization ")
    assert proven_stretch(inst, schedule, references) is None


def test_an_organization_left_open_costs_the_limit_once_for_all_four_schedules(monkeypatch):
    """The four heuristics' schedules of one workload often share the
    organization that decides their Stretch: one left open within the limit
    is not solved again for the next schedule with no more time (before,
    each schedule spent the whole limit on it again)."""
    from schedbench.solvers import pcmax

    clear_cache()
    solved = []

    def open_answer(lengths, machines, solver, seconds, search=None):
        solved.append(lengths)
        return PcmaxSolution("feasible", sum(lengths), 1, (0,) * len(lengths), (0,) * len(lengths), "lpt")

    monkeypatch.setattr(pcmax, "_optimum", open_answer)
    inst = PAPER(organizations=10, jobs=300, seed=1)  # organization 2 (27 jobs) decides all four
    for run in PAPER_HEURISTICS.values():
        references = lazy.stretch_references(inst, run(inst), 5)
        assert references["alone_unproven"].startswith("--time-limit: C_alone of organization 2 (27 jobs)")
    assert solved == [inst.organizations[2].jobs]
    clear_cache()


def test_an_organizations_cheap_bounds_are_computed_once_for_the_four_schedules(monkeypatch):
    """The four heuristics' schedules of one workload share each organization's
    L0/L1/L2 and LPT's makespan; ``clear_cache`` forgets them with the answers."""
    clear_cache()
    computed = []
    lower_bound = lazy.lower_bound
    monkeypatch.setattr(lazy, "lower_bound", lambda jobs, *rest: computed.append(jobs) or lower_bound(jobs, *rest))
    inst = PAPER(organizations=5, jobs=40, seed=3)
    first = [lazy.stretch_references(inst, run(inst), 30) for run in PAPER_HEURISTICS.values()]
    organizations = sum(1 for org in inst.organizations if org.jobs)
    assert len(computed) == organizations
    clear_cache()
    again = [lazy.stretch_references(inst, run(inst), 30) for run in PAPER_HEURISTICS.values()]
    assert len(computed) == 2 * organizations and again == first
