"""The validator rejects hand-made broken schedules of every kind."""

import pytest

from schedbench.model import parse_instance
from schedbench.schedule import Schedule
from schedbench.validator import validate

# m = 2; user 0: release 3, campaign 0 jobs (2, 1), campaign 1 job (4) with think 2;
# user 1: campaign 0 job (1).
INSTANCE = parse_instance({"family": "campaign", "format_version": 1, "machines": 2,
                           "users": [{"release": 3, "campaigns": [{"jobs": [2, 1]}, {"jobs": [4], "think_time": 2}]},
                                     {"campaigns": [{"jobs": [1]}]}]})
# campaign 0 of user 0 runs [3,5) and [3,4): C = 5, so campaign 1 is submitted at 7.
GOOD = Schedule((0, 1, 0, 1), (3, 3, 7, 0))


def test_good_schedule_is_valid():
    assert validate(INSTANCE, GOOD) == []


@pytest.mark.parametrize("machine,start,rule", [
    ((0, 0, 0, 1), (3, 3, 7, 0), "overlap"),            # two jobs on machine 0 at once
    ((0, 2, 0, 1), (3, 3, 7, 0), "machine-range"),      # machine 2 does not exist
    ((0, -1, 0, 1), (3, 3, 7, 0), "machine-range"),
    ((0, 1, 0, 1), (3, 3, 7, -1), "start"),             # negative start
    ((0, 1, 0, 1), (2, 3, 7, 0), "release"),            # before the user's release
    ((0, 1, 0, 1), (3, 3, 4, 0), "campaign-barrier"),   # before campaign 0 completes (5)
    ((0, 1, 0, 1), (3, 3, 6, 0), "campaign-barrier"),   # after C but before C + think time (7)
])
def test_broken_schedules_are_rejected(machine, start, rule):
    violations = validate(INSTANCE, Schedule(machine, start))
    assert rule in {v.rule for v in violations}, violations


def test_submission_chain_is_recomputed_from_the_schedule():
    # campaign 0 ends at 6 (job 0 starts at 4), so campaign 1 may start at 8 but not at 7
    assert validate(INSTANCE, Schedule((0, 1, 0, 1), (4, 3, 8, 0))) == []
    assert "campaign-barrier" in {v.rule for v in validate(INSTANCE, Schedule((0, 1, 1, 1), (4, 3, 7, 0)))}


def test_wrong_number_of_jobs():
    assert validate(INSTANCE, Schedule((0, 1, 0), (3, 3, 7)))[0].rule == "shape"


def test_overlap_message_names_both_jobs():
    (v,) = validate(INSTANCE, Schedule((0, 0, 0, 1), (3, 4, 7, 0)))
    assert v.rule == "overlap" and "users[0].campaigns[0].jobs[0]" in v.message and "jobs[1]" in v.message


def test_touching_intervals_do_not_overlap():
    inst = parse_instance({"family": "pcmax", "format_version": 1, "machines": 1, "jobs": [2, 3]})
    assert validate(inst, Schedule((0, 0), (0, 2))) == []
    assert validate(inst, Schedule((0, 0), (0, 1)))[0].rule == "overlap"


@pytest.mark.parametrize("bad", [1.0, True, "3", None, 1 << 70])
def test_a_start_that_is_not_a_plain_integer_is_named(bad):
    (v,) = validate(INSTANCE, Schedule((0, 1, 0, 1), (3, 3, 7, bad)))
    assert (v.rule, v.where) == ("start", "users[1].campaigns[0].jobs[0]"), v


def test_numpy_integers_are_not_schedule_values():
    import numpy as np

    (v,) = validate(INSTANCE, Schedule((0, 1, 0, np.int64(1)), (3, 3, 7, 0)))
    assert (v.rule, v.where) == ("machine-range", "users[1].campaigns[0].jobs[0]")


def test_the_overlaps_found_are_exactly_the_pairs_that_meet():
    """Random schedules on 3 machines against a pairwise check: every
    overlapping pair of consecutive jobs on a machine is reported, and none
    other."""
    import random

    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(1, 12)
        lengths = [rng.randint(1, 5) for _ in range(n)]
        inst = parse_instance({"family": "pcmax", "format_version": 1, "machines": 3, "jobs": lengths})
        machine = tuple(rng.randrange(3) for _ in range(n))
        start = tuple(rng.randint(0, 15) for _ in range(n))
        reported = [v for v in validate(inst, Schedule(machine, start)) if v.rule == "overlap"]
        overlapping = any(machine[a] == machine[b] and start[a] < start[b] + lengths[b] and
                          start[b] < start[a] + lengths[a] for a in range(n) for b in range(a))
        assert bool(reported) == overlapping, (machine, start, lengths, reported)
