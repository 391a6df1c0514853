"""Loading instances: SPEC's rules, one clear error naming the field."""

import pytest

from schedbench.errors import InstanceError
from schedbench.model import instance_to_json, parse_instance

CAMPAIGN = {"family": "campaign", "format_version": 1, "machines": 2,
            "users": [{"release": 3, "campaigns": [{"jobs": [2, 1]}, {"jobs": [4], "think_time": 2}]},
                      {"campaigns": [{"jobs": [1]}]}]}


def test_campaign_round_trip_and_defaults():
    inst = parse_instance(CAMPAIGN)
    assert inst.users[1].release == 0 and inst.users[0].campaigns[0].think_time == 0
    assert inst.lengths == (2, 1, 4, 1)
    assert list(inst.campaign_slice(0, 1)) == [2] and list(inst.user_slice(1)) == [3]
    assert parse_instance(instance_to_json(inst)) == inst


def test_an_unknown_key_is_refused_but_meta_holds_anything():
    with pytest.raises(InstanceError, match=r"^extra: unknown key \(known: "):
        parse_instance(dict(CAMPAIGN, extra={"x": 1}))
    assert parse_instance(dict(CAMPAIGN, meta={"extra": {"x": 1}}, name="any")).machines == 2


def bad(path, value):
    """CAMPAIGN with the field at ``path`` replaced (or removed if value is ...)."""
    import copy

    obj = copy.deepcopy(CAMPAIGN)
    target = obj
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return obj


@pytest.mark.parametrize("path,value,field", [
    (["machines"], 0, "machines"),
    (["machines"], 2.0, "machines"),
    (["machines"], True, "machines"),
    (["machines"], "2", "machines"),
    (["machines"], ..., "machines"),
    (["format_version"], 2, "format_version"),
    (["family"], "nope", "family"),
    (["users"], [], "users"),
    (["users", 0, "release"], -1, "users[0].release"),
    (["users", 0, "campaigns"], [], "users[0].campaigns"),
    (["users", 0, "campaigns", 0, "jobs"], [], "users[0].campaigns[0].jobs"),
    (["users", 0, "campaigns", 0, "jobs"], [2, 0], "users[0].campaigns[0].jobs[1]"),
    (["users", 0, "campaigns", 0, "jobs"], [2, -3], "users[0].campaigns[0].jobs[1]"),
    (["users", 0, "campaigns", 0, "jobs"], [2, 1.5], "users[0].campaigns[0].jobs[1]"),
    (["users", 0, "campaigns", 1, "think_time"], -2, "users[0].campaigns[1].think_time"),
    (["users", 1], "user", "users[1]"),
])
def test_bad_campaign_instances_name_the_field(path, value, field):
    with pytest.raises(InstanceError) as err:
        parse_instance(bad(path, value))
    assert err.value.field == field
    assert field in str(err.value)


@pytest.mark.parametrize("obj,field", [
    ({"family": "pcmax", "format_version": 1, "machines": 2, "jobs": []}, "jobs"),
    ({"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [1, False]}, "jobs[1]"),
    ({"family": "pcmax", "format_version": 1, "jobs": [1]}, "machines"),
    ({"family": "pcmax", "machines": 1, "jobs": [1]}, "format_version"),
    ([1, 2], "instance"),
])
def test_bad_pcmax_instances(obj, field):
    with pytest.raises(InstanceError) as err:
        parse_instance(obj)
    assert err.value.field == field


def test_flat_job_views_are_built_once():
    """Heuristics read ``lengths`` per job: rebuilding it at each access made
    ILBA quadratic (160 s on 20,000 trace jobs)."""
    from schedbench.instances.dssp import GENERATORS as DSSP
    from schedbench.instances.mosp import paper_workload

    for instance in (paper_workload(5, 100, 0), DSSP["dssp-standard"](seed=0)):
        assert instance.lengths is instance.lengths
