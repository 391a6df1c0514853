"""Two methods deciding caps at once (``solvers.exact.race``): a bound
counts only where both lanes refuted it, a schedule of either is the
incumbent of both, a false refutation is caught, a method that gives no
answer hands its lane to the next, and a question made moot is stopped
in the model that runs it (CP-SAT and CBC alike)."""

import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from ortools.sat.python import cp_model

from schedbench.result import INFEASIBLE
from schedbench.solvers import cpsat
from schedbench.solvers.exact import settings
from schedbench.solvers.milp import _cbc_watch
from schedbench.solvers.exact.certificate import checked_refutation
from schedbench.solvers.exact.race import race
from schedbench.solvers.exact.stopping import stop_request, stoppable


def lane(name, answers, log=None, delay=0.0):
    """A method answering cap C with ``answers(C)``: "infeasible" or a
    schedule, which here is its own value; None: it gives no answer."""
    def ask(cap, seconds):
        time.sleep(delay)
        if log is not None:
            log.append((name, cap))
        answer = answers(cap)
        if answer is None:
            return "unknown", None
        return (INFEASIBLE, None) if answer == "infeasible" else ("feasible", answer)
    return name, ask


def optimum_at(value):
    """An honest method on a problem whose optimum is ``value``."""
    return lambda cap: value if cap >= value else "infeasible"


def run(lanes, lower=10, upper=19, incumbent=20, seconds=5.0):
    return race(lanes, lower, upper, incumbent, lambda schedule: schedule, time.monotonic() + seconds)


def test_a_bound_counts_where_both_lanes_refuted_it():
    """Both honest: the optimum 13 with both behind the bound."""
    log = []
    outcome = run([[lane("a", optimum_at(13), log)], [lane("b", optimum_at(13), log, delay=0.01)]])
    assert (outcome.bound, outcome.value, outcome.proof) == (13, 13, ("a", "b"))
    assert {cap for _, cap in log} <= set(range(10, 14))


def test_a_lane_alone_certifies_nothing():
    """Lane b never answers: a's refutations up to 12 are claims, the
    bound stays ``lower``, the schedule a found is kept."""
    outcome = run([[lane("a", optimum_at(13))], [lane("b", lambda cap: None)]])
    assert (outcome.bound, outcome.value, outcome.proof) == (10, 13, ())
    assert outcome.details["race"]["lanes"] == [["a"], ["b"]]


def test_the_next_method_takes_a_lane_over():
    """b gives no answer; c, the lane's fallback, refutes for it."""
    outcome = run([[lane("a", optimum_at(13))], [lane("b", lambda cap: None), lane("c", optimum_at(13))]])
    assert (outcome.bound, outcome.proof) == (13, ("a", "c"))
    assert outcome.details["race"]["lanes"] == [["a"], ["b", "c"]]


def test_a_schedule_above_the_cap_is_the_incumbent_and_the_lane_moves_on():
    """b, a heuristic search, answers cap 10 with a schedule of 16 (better
    than the incumbent 20, not under the cap): asked once, its schedule
    the incumbent, and c takes the cap."""
    log = []
    outcome = run([[lane("a", optimum_at(13), delay=0.02)], [lane("b", lambda cap: 16, log), lane("c", optimum_at(13))]])
    assert log == [("b", 10)]
    assert (outcome.bound, outcome.value, outcome.proof) == (13, 13, ("a", "c"))
    assert outcome.details["race"]["lanes"] == [["a"], ["b", "c"]]


def test_a_lane_keeps_the_refutations_of_a_method_that_gave_up():
    """b refutes 10 and 11, then answers nothing; c starts at 12."""
    log = []
    b = lane("b", lambda cap: "infeasible" if cap <= 11 else None)
    outcome = run([[lane("a", optimum_at(13), delay=0.02)], [b, lane("c", optimum_at(13), log)]])
    assert (outcome.bound, outcome.proof) == (13, ("a", "c"))
    assert min(cap for _, cap in log) == 12


def test_a_false_refutation_is_caught_and_drops_its_claims():
    """The liar refutes every cap; the honest lane finds 12: the liar's
    claims are dropped, nothing past ``lower`` is certified."""
    outcome = run([[lane("liar", lambda cap: "infeasible")], [lane("honest", optimum_at(12), delay=0.05)]])
    assert (outcome.bound, outcome.value, outcome.proof) == (10, 12, ())
    assert outcome.details["refuted_claim"]["by"] == "liar"
    assert outcome.details["refuted_claim"]["solution_from"] == "honest"


def test_the_incumbent_bounds_the_caps_asked():
    """With an incumbent of value 12 no cap at or above 12 is asked; both
    refuting 11 makes it optimal; without any schedule, every cap refuted
    is an infeasibility (the bound passes ``upper``)."""
    log = []
    outcome = run([[lane("a", optimum_at(12), log)], [lane("b", optimum_at(12), log)]], incumbent=12)
    assert (outcome.bound, outcome.value) == (12, 12)
    assert max(cap for _, cap in log) == 11
    nothing = run([[lane("a", lambda cap: "infeasible")], [lane("b", lambda cap: "infeasible")]],
                  upper=14, incumbent=None)
    assert (nothing.bound, nothing.schedule) == (15, None)


def test_a_lagging_lane_asks_the_cap_the_other_refuted():
    """b cannot decide a cap below 13 (only a stop ends such a question);
    a refutes up to 13 and finds 14. b's refutation of 13 refutes every
    lower cap: with a's, enough for the bound."""
    log = []

    def stuck_below_13(cap):
        if cap < 13:
            stop_request().wait(5)
            return None
        return optimum_at(14)(cap)

    outcome = run([[lane("a", optimum_at(14), delay=0.05)], [lane("b", stuck_below_13, log)]])
    assert (outcome.bound, outcome.proof) == (14, ("a", "b"))
    assert ("b", 13) in log


@pytest.mark.timing
def test_a_moot_question_is_stopped_at_once():
    """b's model would run the whole limit; a's schedule at the bound,
    found after b has started, makes it moot, and the race ends long
    before the limit."""
    asked = []

    def stuck(cap):
        asked.append(cap)
        stop_request().wait(30)
        return None

    began = time.monotonic()
    outcome = run([[lane("a", lambda cap: 10, delay=0.3)], [lane("b", stuck)]], seconds=30)
    assert outcome.value == 10 and asked == [10] and time.monotonic() - began < 2


def test_one_lane_is_no_race():
    with pytest.raises(ValueError, match="two lanes"):
        run([[lane("a", optimum_at(13))]])


def _golomb_ruler(marks: int = 11, length: int = 120) -> cp_model.CpModel:
    """The shortest Golomb ruler of 11 marks: minutes for one CP-SAT worker to prove."""
    model = cp_model.CpModel()
    at = [model.new_int_var(0, length, "") for _ in range(marks)]
    model.add(at[0] == 0)
    for a, b in zip(at, at[1:]):
        model.add(a < b)
    gaps = []
    for i in range(marks):
        for j in range(i + 1, marks):
            gap = model.new_int_var(1, length, "")
            model.add(gap == at[j] - at[i])
            gaps.append(gap)
    model.add_all_different(gaps)
    model.minimize(at[-1])
    return model


@pytest.mark.timing
def test_a_stop_request_ends_a_cpsat_search():
    request = threading.Event()
    threading.Timer(0.3, request.set).start()
    began = time.monotonic()
    with stoppable(request), settings.cpsat_workers(1):
        outcome = cpsat.run(_golomb_ruler(), 30, [])
    assert outcome.status in ("feasible", "unknown") and time.monotonic() - began < 2


@pytest.mark.timing
def test_a_stop_request_kills_cbc(tmp_path):
    """This run's CBC (here a renamed ``yes``, which computes for ever) is
    killed once the stop request is set, long before its limit."""
    (tmp_path / "run").mkdir()
    fake = tmp_path / "run" / "cbc"
    shutil.copy(shutil.which("yes"), fake)
    request = threading.Event()
    threading.Timer(0.3, request.set).start()
    began = time.monotonic()
    with stoppable(request), _cbc_watch(30, str(tmp_path / "run")) as ended:
        code = subprocess.run([fake], stdout=subprocess.DEVNULL).returncode
    assert code != 0 and ended.killed.is_set() and time.monotonic() - began < 2


@pytest.mark.timing
def test_an_error_in_a_model_stops_the_race_and_is_raised():
    """A bug in one lane's model is raised to the caller (not a lane quietly
    lost), and the other lane's question is stopped, not run to its limit."""
    def broken(cap):
        raise AssertionError("invalid model")

    def stuck(cap):
        stop_request().wait(30)
        return None

    began = time.monotonic()
    with pytest.raises(AssertionError, match="invalid model"):
        run([[lane("a", stuck)], [lane("b", broken, delay=0.1)]], seconds=30)
    assert time.monotonic() - began < 2


def test_a_milp_stopped_while_it_is_built_never_starts_cbc():
    """A stop that comes before CBC starts: the model is not handed to CBC,
    and the selfish MILP's enumeration of configurations ends at once."""
    import pulp

    from schedbench.instances.mosp import random_small
    from schedbench.solvers import milp
    from schedbench.solvers.milp import mosp as milp_mosp
    from schedbench.solvers.mosp import MospSpec, local_references

    problem = pulp.LpProblem("one", pulp.LpMinimize)
    x = problem.add_variable("x", cat=pulp.LpBinary)
    problem += x >= 0
    request = threading.Event()
    request.set()
    inst = random_small(3100, organizations=(4, 4), machines=(1, 2), jobs=(4, 6), length=(1, 9),
                        local_objective="sum_ci", selfish=True)
    spec = MospSpec(inst, local_references(inst, 10))
    with stoppable(request):
        assert milp.run(problem, 30, [x]).status == "unknown"
        assert milp_mosp.configurations_of(spec, 0, spec.horizon, float("inf")) is None
    assert milp.run(problem, 30, [x]).status == "optimal"
    assert milp_mosp.configurations_of(spec, 0, spec.horizon, float("inf"))


def checked_lane(name, checked_up_to, value):
    """A method whose refutations up to ``checked_up_to`` are checkable
    computations (``certificate.checked_refutation``), then honest about ``value``."""
    def ask(cap, seconds):
        if cap <= checked_up_to:
            return checked_refutation(name), None
        return ("feasible", value) if cap >= value else ("unknown", None)
    return name, ask


def test_a_checked_refutation_counts_for_every_lane():
    """b's checkable computation refutes caps 10 to 12; a never answers:
    the bound is 13 on b's check alone, the proof names it once."""
    outcome = run([[lane("a", lambda cap: None)], [checked_lane("lp", 12, 13)]])
    assert (outcome.bound, outcome.value, outcome.proof) == (13, 13, ("lp",))


def test_a_slow_lane_skips_the_caps_a_check_refuted():
    """The check refutes 10 and 11 at once and finds 12; the slow honest
    lane's question is made moot: the bound 12 rests on the check alone."""
    log = []
    outcome = run([[lane("a", optimum_at(12), log, delay=0.05)], [checked_lane("lp", 11, 12)]], incumbent=13)
    assert (outcome.bound, outcome.value, outcome.proof) == (12, 12, ("lp",))
    assert ("a", 11) not in log


def test_a_schedule_under_a_checked_refutation_drops_it():
    """A check that refutes cap 14 while a lane finds 12 is wrong: nothing past ``lower`` rests on it."""
    outcome = run([[lane("a", lambda cap: 12 if cap >= 12 else None, delay=0.05)], [checked_lane("lp", 14, 99)]])
    assert outcome.value == 12 and outcome.bound == 10 and outcome.proof == ()
    assert outcome.details["refuted_claim"]["by"] == "lp"


@pytest.mark.timing
def test_a_stop_request_interrupts_glop(monkeypatch):
    """The phase 1 of an infeasible configuration LP (51 jobs, about 3 s in
    GLOP: it gives weights when left alone) gives none when the stop comes
    while GLOP runs."""
    import pulp

    from bench.frontier import instance, lines
    from schedbench.solvers.milp import farkas
    from schedbench.solvers.milp import mosp as milp_mosp
    from schedbench.solvers.mosp import MospSpec, local_references

    line = next(line for line in lines(Path("bench/frontier_shapes.toml"))
                if line["name"] == "mosp sum_ci selfish, 8 orgs x 1 machine")
    inst = instance(line, 2, 3)
    spec = MospSpec(inst, local_references(inst, 10))
    problem = pulp.LpProblem("lp", pulp.LpMinimize)
    assert not isinstance(milp_mosp._selfish(problem, spec, 31, 30), milp_mosp.ModelOutcome)
    assert farkas.farkas_weights(problem, 30)
    request, phase_one = threading.Event(), farkas._phase_one

    def built_then_stopped(problem):  # the stop comes 0.3 s after phase 1 is built: inside GLOP
        built = phase_one(problem)
        threading.Timer(0.3, request.set).start()
        return built

    monkeypatch.setattr(farkas, "_phase_one", built_then_stopped)
    began = time.monotonic()
    with stoppable(request):
        assert farkas.farkas_weights(problem, 30) is None
    assert time.monotonic() - began < 1.5
