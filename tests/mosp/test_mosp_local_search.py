"""The selfish MOSP local search: it meets the bound where the models and
heuristics did not, and every schedule it returns is valid."""

import random
import threading
import time

import pytest

from schedbench.instances.mosp import random_small
from schedbench.metrics.mosp import makespan
from schedbench.model import parse_instance
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.mosp import MospSpec, incumbent, local_references, relaxation
from schedbench.solvers.exact.stopping import stoppable
from schedbench.solvers.mosp.local_search import PlacementSearch, improve
from schedbench.validator.mosp import check
from schedbench.families import model_backends


def _start(inst):
    spec = MospSpec(inst, local_references(inst, 10))
    _, relaxed = relaxation(spec, 5)
    return spec, incumbent(spec, (relaxed,), 5)


def _selfish(seed: int, objective: str):
    return random_small(seed, organizations=(2, 4), machines=(1, 3), jobs=(0, 8), length=(1, 9),
                        local_objective=objective, selfish=True)


def test_it_meets_the_bound_the_heuristics_and_models_missed():
    """A 43-job instance of the frontier's sum_ci selfish line: the best
    heuristic schedule has makespan 34, and CP-SAT found none below it
    within 10 s before this search; the search reaches the bound 31, so both
    backends prove it by the bound alone."""
    inst = random_small(4012, organizations=(4, 4), machines=(1, 2), jobs=(10, 12), length=(1, 9),
                        local_objective="sum_ci", selfish=True)
    spec, best = _start(inst)
    assert (makespan(inst, best), spec.lower_bound()) == (34, 31)
    found = improve(spec, best, 31, time.monotonic() + 10)
    assert makespan(inst, found) == 31 and check(inst, found, references=spec.references) == []
    for backend in model_backends():
        result = solve(inst, None, backend, 10)
        assert (result.status, result.objective, result.proof) == (OPTIMAL, 31, ("LB",))


@pytest.mark.parametrize("objective", ["cmax", "sum_ci"])
def test_it_returns_valid_schedules_and_improves_some(objective):
    """60 random selfish instances of 2 to 4 organizations (some without
    jobs): the schedule passes the validator, is no longer than the one it
    started from, and is shorter on some."""
    shorter = 0
    for seed in range(60):
        inst = _selfish(9000 + seed, objective)
        spec, best = _start(inst)
        if best is None:
            continue
        found = improve(spec, best, spec.lower_bound(), time.monotonic() + 1)
        assert check(inst, found, references=spec.references) == []
        assert makespan(inst, found) <= makespan(inst, best)
        shorter += makespan(inst, found) < makespan(inst, best)
    assert shorter >= 3


@pytest.mark.parametrize("objective", ["cmax", "sum_ci"])
def test_its_score_is_zero_exactly_on_valid_schedules(objective):
    """Random placements on 30 random instances: score 0 at their makespan
    iff the placements' schedule passes the validator (the score is what
    the search trusts; the validator only guards what it returns)."""
    rng, valid = random.Random(1), 0
    for seed in range(30):
        inst = _selfish(9500 + seed, objective)
        spec = MospSpec(inst, local_references(inst, 10))
        search = PlacementSearch(spec)
        for _ in range(40):
            machine = [rng.randrange(inst.machines) for _ in inst.lengths]
            schedule = search.schedule(machine)
            target = makespan(inst, schedule)
            fits = check(inst, schedule, references=spec.references) == []
            assert (search.score(machine, target)[0] == 0) == fits
            valid += fits
    assert valid >= 20


def test_foreign_jobs_run_by_completion_deadline():
    """Organization 0 has a machine and no job; 1 exports its 5 (start by
    its prefix 2), 2 its 1 (start by 3). Least prefix first runs the 5 first
    and starts the 1 at 5, too late; completion deadlines (7 and 4) run the
    1 first, and the placement is valid."""
    inst = parse_instance({"family": "mosp", "format_version": 1, "local_objective": "cmax", "selfish": True,
                           "organizations": [{"machines": 1, "jobs": []}, {"machines": 1, "jobs": [2, 5]},
                                             {"machines": 1, "jobs": [3, 1]}]})
    spec = MospSpec(inst, local_references(inst, 10))
    search = PlacementSearch(spec)
    schedule = search.schedule([1, 0, 2, 0])
    assert schedule.start == (0, 1, 0, 0)
    assert search.score([1, 0, 2, 0], 6) == (0, [])
    assert check(inst, schedule, references=spec.references) == []


def test_it_keeps_the_time_limit_and_its_seed():
    """A deadline already past returns the input; the same seed, the same answer."""
    inst = random_small(4012, organizations=(4, 4), machines=(1, 2), jobs=(10, 12), length=(1, 9),
                        local_objective="sum_ci", selfish=True)
    spec, best = _start(inst)
    assert improve(spec, best, 31, time.monotonic() - 1) is best
    first, again = (improve(spec, best, 0, time.monotonic() + 30, seed=3) for _ in range(2))
    assert first == again


def test_a_stop_request_ends_it_as_its_race_lane_needs():
    """With both backends at once the search is a method of the MILP's lane
    (``solvers.mosp._local_search``): once the other lane settles the
    question, the race's stop request ends it, deadline or not. Unstopped,
    the same search reaches the bound."""
    inst = random_small(4012, organizations=(4, 4), machines=(1, 2), jobs=(10, 12), length=(1, 9),
                        local_objective="sum_ci", selfish=True)
    spec, best = _start(inst)
    request = threading.Event()
    request.set()
    with stoppable(request):
        assert improve(spec, best, 31, time.monotonic() + 30) is best
    assert makespan(inst, improve(spec, best, 31, time.monotonic() + 30)) == 31
