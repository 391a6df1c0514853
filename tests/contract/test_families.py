"""The family registry (schedbench/families.py): every family's generators, heuristics,
options, objectives, bounds, metrics and Gantt bars, reached through the
door only, as the experiment harness reaches them."""

import inspect
import json
from fractions import Fraction

import jsonschema
import pytest

from schedbench import families
from schedbench.errors import NotProven, UserInputError
from schedbench.model import FAMILIES, instance_to_json, json_schema, parse_instance, schedule_from_json
from schedbench.model.workflow import Network
from schedbench.schedule import Schedule
from schedbench.solvers import solve

# Jobs 1-3: users 1, 2, 2 and groups 1, 2, 2; job 3 comes long after job 2 ended.
SWF = """; MaxProcs: 4
1 0 0 10 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1
2 5 1 20 1 -1 -1 1 -1 -1 1 2 2 -1 -1 -1 -1 -1
3 30 0 5 1 -1 -1 1 -1 -1 1 2 2 -1 -1 -1 -1 -1
4 9000 0 7 3 -1 -1 3 -1 -1 1 2 2 -1 -1 -1 -1 -1
"""


@pytest.fixture(scope="module")
def small_params(tmp_path_factory) -> dict[str, dict]:
    """Small parameters for every generator (a new generator must add its own)."""
    folder = tmp_path_factory.mktemp("sources")
    trace = folder / "trace.swf"
    trace.write_text(SWF)
    make = generators = families.generators()
    three, dssp = folder / "three.json", folder / "dssp.json"
    three.write_text(json.dumps(instance_to_json(make["three-partition"](seed=0, triples=2, bound=20))))
    dssp.write_text(json.dumps(instance_to_json(make["dssp-small"](seed=0))))
    return {
        "pcmax-uniform": {"jobs": 6, "machines": 2}, "pcmax-planted": {"jobs": 12, "machines": 3},
        "faircamp": {"users": 3, "jobs": 40, "machines": 3},
        "ostrich": {"users": 3, "jobs": 40, "machines": 4},
        "small": {"users": [1, 2]},
        "unit-campaigns": {"users": 2, "campaigns": 2, "machines": 2},
        "fcfs-trap": {"machines": 2, "campaigns": 2, "long": 3},
        "swf": {"trace": str(trace)},
        "mosp-paper": {"organizations": 3, "jobs": 10},
        "mosp-small": {"organizations": [2, 3]},
        "mosp-swf": {"trace": str(trace), "organizations": 2},
        "mosp-figure1": {"organizations": 3},
        "mosp-figure2": {"organizations": 3, "selfish": False},
        "mosp-stretch-tight": {"organizations": 3},
        "mosp-two-jobs": {"source": str(three)},
        "three-partition": {"triples": 2, "bound": 20},
        "three-partition-random": {"triples": 2, "bound": 20},
        "three-partition-no": {"triples": 2, "bound": 20},
        "dssp-standard": {"processors": 2, "deadline": 30, "stages": [1, 2], "tasks": [1, 2], "length": [1, 10]},
        "dssp-t1": {"stages": 2, "processors": 2, "deadline": 40, "base_stages": 3, "tasks": [1, 2],
                    "length": [1, 10]},
        "dssp-t2": {"source": str(dssp), "max_critical_path": 3},
        "dssp-small": {"reward": "unit"},
        "dssp-scaled": {"scale": 120}, "dssp-maxcpl": {"max_cpl": "1/2"},
        "knapsack-random": {"items": 6},
        "workflow-synthetic": {"jobs": 4, "load": "3/2", "max_tasks": 4},
        "workflow-small": {"jobs": [1, 2]},
        "workflow-swf": {"trace": str(trace), "chains": True},
        "starvation-stream": {"length": 30, "lone": "wide"},
        **{name: {"tasks": 110} for name in generators if name.startswith("wfcommons-")},  # each recipe's smallest fits
    }


def _text(instance) -> str:
    return json.dumps(instance_to_json(instance))


def test_every_generator_runs_and_is_reproducible(small_params):
    generators = families.generators()
    assert set(small_params) == set(generators)
    for name, make in generators.items():
        seeded = "seed" in inspect.signature(make).parameters
        args = {**small_params[name], **({"seed": 7} if seeded else {})}
        text = _text(make(**args))
        assert text == _text(make(**args)), name
        assert _text(parse_instance(json.loads(text))) == text, name  # a valid instance of its family
        assert json.loads(text)["family"] in FAMILIES
        jsonschema.validate(json.loads(text), json_schema(json.loads(text)["family"]))  # and of its schema


def test_sizes_count_jobs_and_machines():
    make = families.generators()
    expected = {"pcmax-uniform": (6, 2), "fcfs-trap": (2 + 2 * 3, 2), "mosp-figure1": (2 + 2 * 3, 3),  # two jobs of length N, N - 1 organizations of N unit jobs
                "knapsack-random": (6, 1), "three-partition": (6, 2)}
    params = {"pcmax-uniform": {"jobs": 6, "machines": 2}, "fcfs-trap": {"machines": 2, "campaigns": 2, "long": 3},
              "mosp-figure1": {"organizations": 3}, "knapsack-random": {"items": 6},
              "three-partition": {"triples": 2, "bound": 20}}
    for name, size in expected.items():
        inst = make[name](**params[name], **({"seed": 1} if name != "fcfs-trap" and name != "mosp-figure1" else {}))
        assert tuple(families.size(inst)) == size, name


def test_seeds_change_random_instances():
    make = families.generators()
    for name in ("pcmax-uniform", "small", "mosp-small", "dssp-small", "knapsack-random", "workflow-small"):
        assert len({_text(make[name](seed=s)) for s in range(5)}) > 1, name


def test_a_duplicate_generator_name_is_an_error(monkeypatch):
    from schedbench.instances import knapsack

    monkeypatch.setitem(knapsack.GENERATORS, "pcmax-uniform", knapsack.random_knapsack)
    with pytest.raises(RuntimeError, match="pcmax-uniform"):
        families.generators()


@pytest.mark.parametrize("name, params, field", [
    ("pcmax-uniform", {"seed": 0, "jobs": 0}, "params.jobs"),
    ("pcmax-uniform", {"seed": 0, "jobs": "5"}, "params.jobs"),
    ("pcmax-uniform", {"seed": 0, "jobs": True}, "params.jobs"),
    ("pcmax-uniform", {"seed": 0, "job": 5}, "params.job"),
    ("pcmax-uniform", {"jobs": 5}, "params.seed"),
    ("pcmax-uniform", {"seed": 0, "low": 5, "high": 3}, "params"),
    ("small", {"seed": 0, "users": [3, 1]}, "params.users"),
    ("small", {"seed": 0, "users": 2}, "params.users"),
    ("dssp-small", {"seed": 0, "reward": "big"}, "params.reward"),
    ("workflow-synthetic", {"seed": 0, "load": "x"}, "params.load"),
    ("workflow-synthetic", {"seed": 0, "jobs": 3, "users": 2, "groups": 3}, "params"),
    ("mosp-figure1", {"organizations": 1}, "params.organizations"),
    ("mosp-paper", {"seed": 0, "selfish": "yes"}, "params.selfish"),
    ("knapsack-random", {"seed": 0, "capacity_share": "3/2"}, "params"),
])
def test_bad_generator_parameters_name_the_field(name, params, field):
    with pytest.raises(UserInputError) as caught:
        families.generators()[name](**params)
    assert caught.value.field == field


def test_generator_parameters_are_converted(small_params):
    make = families.generators()
    inst = make["workflow-synthetic"](seed=1, jobs=3, load=1.5)  # a TOML float is the decimal it reads as
    assert inst.meta["load"] == [3, 2]
    assert _text(inst) == _text(make["workflow-synthetic"](seed=1, jobs=3, load="3/2"))
    source = small_params["dssp-t2"]["source"]
    with pytest.raises(UserInputError) as caught:
        make["mosp-two-jobs"](source=source)
    assert caught.value.field == "params.source"


def test_maximized_and_objectives():
    for family in FAMILIES:
        expected = {"dssp": {"reward"}, "knapsack": {"profit"}}.get(family, set())
        assert {o for o in families.objectives(family) if families.maximized(family, o)} == expected
    assert families.objectives("campaign")[0] == "user-flow"


SMALL_INSTANCE = {
    "pcmax": ("pcmax-uniform", {"jobs": 7, "machines": 3}),
    "campaign": ("small", {"users": [2, 3], "release": [0, 3], "think": [0, 2]}),
    "mosp": ("mosp-small", {"organizations": [2, 4], "jobs": [1, 4]}),
    "three_partition": ("three-partition", {"triples": 2, "bound": 20}),
    "dssp": ("dssp-small", {}),
    "knapsack": ("knapsack-random", {"items": 8}),
    "workflow": ("workflow-small", {}),
}


def small_instance(family: str, seed: int, **extra):
    name, params = SMALL_INSTANCE[family]
    return families.generators()[name](seed=seed, **{**params, **extra})


def _objectives(instance) -> list[str]:
    """The family's objectives defined on this instance (user-flow needs one user)."""
    return [o for o in families.objectives(instance.family)
            if not (o == "user-flow" and instance.n_users != 1)]


def _runs(instance):
    """(name, schedule) of every heuristic that applies (camp: one user only)."""
    for name, heuristic in families.heuristics(instance.family).items():
        if name == "camp" and instance.n_users != 1:
            continue
        yield name, heuristic(instance)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_heuristic_gives_valid_schedules(family):
    if family == "three_partition":
        assert families.heuristics(family) == {}
        return
    instances = [small_instance(family, seed) for seed in range(3)]
    if family == "campaign":
        instances.append(small_instance(family, 0, users=[1, 1]))
    ran = set()
    for instance in instances:
        for name, schedule in _runs(instance):
            ran.add(name)
            for objective in _objectives(instance):
                assert families.violations(instance, schedule, objective, heuristic=name) == [], (name, objective)
                assert isinstance(families.objective_value(instance, schedule, objective, 10.0), Fraction)
            for metric, measure in families.metrics(family).items():
                value = measure(instance, schedule)
                # None only where the metric says it has nothing to measure: no user profiles recorded, too
                # few jobs for a rank correlation (the small instances have both); never otherwise
                assert value is not None or metric in ("max-stretch-by-profile", "slr-cp-rho", "slr-class"), metric
    assert ran == set(families.heuristics(family))


def test_mosp_heuristics_are_checked_against_their_own_local_schedules():
    # One organization, LPT alone gives 7 while the optimum (SPEC's ref_k) is 6.
    inst = parse_instance({"family": "mosp", "format_version": 1, "local_objective": "cmax",
                           "organizations": [{"machines": 2, "jobs": [3, 3, 2, 2, 2]}]})
    for name, heuristic in families.heuristics("mosp").items():
        schedule = heuristic(inst)
        assert families.violations(inst, schedule, "makespan", heuristic=name) == []
        assert [v.rule for v in families.violations(inst, schedule, "makespan")] == ["local-constraint"]
    tight = Schedule.of([0, 1, 0, 1, 1], [0, 0, 3, 3, 5])  # 7 on machine 1 as well
    worse = Schedule.of([0, 0, 0, 1, 1], [0, 3, 6, 0, 2])  # 8: beyond LPT's own 7
    assert families.violations(inst, tight, "makespan", heuristic="lpt-lpt") == []
    assert families.violations(inst, worse, "makespan", heuristic="lpt-lpt")
    assert families.violations(inst, worse, "unconstrained-makespan", heuristic="lpt-lpt") == []


# Hand-computed examples: (instance, schedule JSON, {objective or metric: value}).
CAMPAIGN = {"family": "campaign", "format_version": 1, "machines": 2,
            "users": [{"campaigns": [{"jobs": [2, 2]}, {"jobs": [4], "think_time": 1}]},
                      {"release": 1, "campaigns": [{"jobs": [1, 1, 1, 1]}]}]}
# u0: C_1 = 2, t_2 = 3, C_2 = 7 (flows 2 + 4); u1: its jobs at 2..6 on M2 (flow 5).
CAMPAIGN_SCHEDULE = {"users": [{"campaigns": [{"jobs": [{"machine": 0, "start": 0}, {"machine": 1, "start": 0}]},
                                              {"jobs": [{"machine": 0, "start": 3}]}]},
                               {"campaigns": [{"jobs": [{"machine": 1, "start": s} for s in (2, 3, 4, 5)]}]}]}
EXAMPLES = [
    ({"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3, 3, 2, 2, 2]},
     {"jobs": [{"machine": q, "start": s} for q, s in zip([0, 1, 0, 1, 0], [0, 0, 3, 3, 5])]},
     {"makespan": 7}, {"makespan": 6}),
    (CAMPAIGN, CAMPAIGN_SCHEDULE,
     {"sum-user-flow": 11, "max-campaign-stretch": Fraction(5, 2), "max-user-stretch": Fraction(5, 2),
      "makespan": 7},  # l = 2, 4, 2; F_u* = 2 + 4 and 2
     {"sum-user-flow": 8, "max-campaign-stretch": 1, "max-user-stretch": 1}),
    ({"family": "mosp", "format_version": 1, "local_objective": "cmax",
      "organizations": [{"machines": 1, "jobs": [2, 2]}, {"machines": 1, "jobs": [1]}]},
     {"organizations": [{"jobs": [{"machine": 0, "start": 0}, {"machine": 1, "start": 1}]},
                        {"jobs": [{"machine": 1, "start": 0}]}]},
     {"makespan": 3, "unconstrained-makespan": 3, "sum-local-makespans": 4,
      "jain-index": Fraction(25, 26)},  # x = 3 / 2 and 1
     {"makespan": Fraction(5, 2), "unconstrained-makespan": Fraction(5, 2)}),
    ({"family": "dssp", "format_version": 1, "processors": 1, "deadline": 5,
      "jobs": [{"reward": 3, "stages": [[2], [2]]}, {"reward": 4, "stages": [[3]]}]},
     {"jobs": [{"stages": [[{"processor": 0, "start": 0}], [{"processor": 0, "start": 2}]]}, None]},
     {"reward": 3, "completed-jobs": 1},
     {"reward": 4}),  # P x D = 5 holds work 4 or 3, not both
    ({"family": "knapsack", "format_version": 1, "capacity": 6,
      "items": [{"weight": 3, "profit": 4}, {"weight": 2, "profit": 3}, {"weight": 4, "profit": 5}]},
     {"selected": [1, 2]},
     {"profit": 8, "weight": 6},
     {"profit": Fraction(33, 4)}),  # items 1, 0 and a quarter of 2
    ({"family": "workflow", "format_version": 1, "clusters": [{"cores": 2, "kind": "K"}],
      "jobs": [{"arrival": 0, "tasks": [{"exec": 2, "cores": 1, "kind": "K", "succ": [1]},
                                        {"exec": 3, "cores": 1, "kind": "K", "succ": []}]},
               {"arrival": 1, "tasks": [{"exec": 2, "cores": 2, "kind": "K", "succ": []}]}]},
     {"jobs": [{"tasks": [{"cluster": 0, "start": 0}, {"cluster": 0, "start": 2}]},
               {"tasks": [{"cluster": 0, "start": 5}]}]},
     {"max-slr": 3, "gini": Fraction(1, 4), "worst-wait": 4},  # SLRs 5/5 and 6/2
     {"max-slr": 1}),
    ({"family": "three_partition", "format_version": 1, "bound": 20, "items": [6, 7, 7, 6, 6, 8]},
     {"certificate": [[0, 1, 2], [3, 4, 5]]},
     {"decision": 1},
     {"decision": None}),
]


@pytest.mark.parametrize("document, schedule_json, values, bounds", EXAMPLES,
                         ids=[e[0]["family"] for e in EXAMPLES])
def test_values_and_bounds_on_hand_computed_examples(document, schedule_json, values, bounds):
    inst = parse_instance(document)
    schedule = schedule_from_json(inst, schedule_json)
    measures = families.metrics(inst.family)
    for name, expected in values.items():
        if name in families.objectives(inst.family):
            assert families.violations(inst, schedule, name) == []
            assert families.objective_value(inst, schedule, name, 10.0) == expected, name
        if name in measures:
            assert measures[name](inst, schedule) == expected, name
    for name, expected in bounds.items():
        assert families.lower_bound(inst, name) == expected, name


def test_the_campaign_example_agrees_with_the_metric_functions():
    from schedbench.metrics.campaign import objective_value
    from schedbench.solvers.campaign import optimal_user_flows

    inst = parse_instance(CAMPAIGN)
    schedule = schedule_from_json(inst, CAMPAIGN_SCHEDULE)
    flows = optimal_user_flows(inst, "cpsat", 10.0)
    assert flows == (6, 2)
    for name in ("sum-user-flow", "max-campaign-stretch", "max-user-stretch"):
        assert families.objective_value(inst, schedule, name, 10.0) == objective_value(inst, schedule, name, flows)


def test_unproven_user_stretch_raises_not_proven(monkeypatch):
    import schedbench.solvers.campaign

    inst = parse_instance(CAMPAIGN)
    schedule = schedule_from_json(inst, CAMPAIGN_SCHEDULE)
    monkeypatch.setattr(schedbench.solvers.campaign, "optimal_user_flows", lambda *args: None)
    with pytest.raises(NotProven):
        families.objective_value(inst, schedule, "max-user-stretch", 0.1)
    assert families.objective_value(inst, schedule, "sum-user-flow", 0.1) == 11  # needs no optimum


def _on_the_right_side(family, objective, bound, value) -> bool:
    return bound >= value if families.maximized(family, objective) else bound <= value


@pytest.mark.parametrize("family", sorted(set(FAMILIES) - {"three_partition"}))
def test_bounds_hold_against_heuristics_and_optima(family):
    """Dozens of random small instances: the cheap bound is never on the wrong
    side of a heuristic's value, nor of the CP-SAT optimum (first few)."""
    checked = proven = 0
    for seed in range(24):
        extra = {"users": [1, 1]} if family == "campaign" and seed % 3 == 0 else {}
        inst = small_instance(family, seed, **extra)
        for objective in _objectives(inst):
            bound = families.lower_bound(inst, objective)
            for name, schedule in _runs(inst):
                value = families.objective_value(inst, schedule, objective, 10.0)
                assert _on_the_right_side(family, objective, bound, value), (seed, objective, name, bound, value)
                checked += 1
            if seed < 8:
                result = solve(inst, objective, "cpsat", 10.0)
                if result.status == "optimal":
                    assert _on_the_right_side(family, objective, bound, result.objective), (seed, objective)
                    proven += 1
    assert checked >= 24 and proven >= 8


def test_three_partition_has_no_bound():
    inst = small_instance("three_partition", 0)
    assert families.lower_bound(inst, "decision") is None
    assert families.metrics("three_partition") == {}


ROW = {"workflow": "cluster ", "dssp": "P"}  # then the 1-based machine number; others: "M"


@pytest.mark.parametrize("family", ["pcmax", "campaign", "mosp", "dssp", "workflow"])
def test_gantt_bars_cover_every_job_once(family):
    """One bar per job (task) that runs, on its machine, at its start, as long
    as the job: so the bars' lengths add up to the work that runs."""
    for seed in range(3):
        inst = small_instance(family, seed)
        lengths = [t.exec for t in inst.tasks] if family == "workflow" else inst.lengths
        for name, schedule in _runs(inst):
            bars = families.gantt_bars(inst, schedule)
            expected = [(f"{ROW.get(family, 'M')}{q + 1}", s, p)
                        for q, s, p in zip(schedule.machine, schedule.start, lengths) if s is not None]
            assert sorted((b.row, b.start, b.length) for b in bars) == sorted(expected), name
            assert sum(b.length for b in bars) == sum(p for _, _, p in expected)
    assert families.gantt_bars(small_instance("knapsack", 0), (0, 1)) == []


def test_campaign_bars_are_grouped_by_user():
    inst = parse_instance(CAMPAIGN)
    bars = families.gantt_bars(inst, schedule_from_json(inst, CAMPAIGN_SCHEDULE))
    assert [b.group for b in bars] == ["user 0"] * 3 + ["user 1"] * 4
    assert bars[2] == type(bars[2])("M1", 3, 4, "user 0")


def _field(family: str, instance, raw: dict) -> str:
    with pytest.raises(UserInputError) as caught:
        families.heuristic_options(family, instance, raw)
    return caught.value.field


def test_dssp_options():
    inst = small_instance("dssp", 1)
    assert families.heuristic_options("dssp", inst, {"r": "43/50", "seed": 3}) == {"r": Fraction(43, 50), "seed": 3}
    assert families.heuristic_options("dssp", inst, {"r": 0.86}) == {"r": Fraction(43, 50)}
    for raw, field in (({"r": "x"}, "options.r"), ({"r": -1}, "options.r"), ({"seed": 1.5}, "options.seed"),
                       ({"ratio": 1}, "options.ratio")):
        assert _field("dssp", inst, raw) == field
    heuristics = families.heuristics("dssp")
    for name in ("lcpf", "stcpu", "random"):
        nothing = heuristics[name](inst, **families.heuristic_options("dssp", inst, {"r": 0}))
        assert families.objective_value(inst, nothing, "reward", 1.0) == 0  # r = 0: a knapsack of capacity 0
        everything = heuristics[name](inst, **families.heuristic_options("dssp", inst, {"r": 1, "seed": 2}))
        assert families.violations(inst, everything, "reward", heuristic=name) == []
        assert families.objective_value(inst, everything, "reward", 1.0) > 0


def test_campaign_options():
    inst = small_instance("campaign", 0)
    assert families.heuristic_options("campaign", inst, {"inner": "spt"}) == {"inner": "spt"}
    assert _field("campaign", inst, {"inner": "best"}) == "options.inner"
    assert _field("campaign", inst, {"inner": 3}) == "options.inner"
    assert _field("campaign", inst, {"outer": "lpt"}) == "options.outer"


def test_workflow_options():
    inst = small_instance("workflow", 2)
    out = families.heuristic_options("workflow", inst, {"seed": 2, "ccr": "1/5", "estimate": "log:10"})
    assert out["seed"] == 2 and out["network"] == Network(Fraction(1, 5), -1)
    assert len(out["estimates"]) == len(inst.tasks) and all(e in (1, 10, 100) for e in out["estimates"])
    out = families.heuristic_options("workflow", inst, {"ccr": 0.5, "network_exponent": 1})
    assert out == {"seed": 0, "network": Network(Fraction(1, 2), 1)}
    schedule = families.heuristics("workflow")["pslr"](inst, **out)
    assert families.violations(inst, schedule, "max-slr", heuristic="pslr") == []
    out = families.heuristic_options("workflow", inst, {"cascade": "uniform", "estimate": "normal:1000",
                                                        "negative_estimates": "redraw"})
    assert out["cascade"] == "uniform" and min(out["estimates"]) >= 1
    schedule = families.heuristics("workflow")["srtf"](inst, **out)
    assert families.violations(inst, schedule, "max-slr", heuristic="srtf") == []
    for raw, field in (({"ccr": 0}, "options.ccr"), ({"ccr": "x"}, "options.ccr"),
                       ({"cascade": "by-cores"}, "options.cascade"),
                       ({"estimate": "normal:5", "negative_estimates": "keep"}, "options.negative_estimates"),
                       ({"estimate": "log:10", "negative_estimates": "redraw"}, "options.negative_estimates"),
                       ({"network_exponent": 2}, "options.network_exponent"),
                       ({"ccr": 0.5, "network_exponent": 99}, "options.network_exponent"),
                       ({"estimate": "normal:x"}, "options.estimate"), ({"estimate": 3}, "options.estimate"),
                       ({"seed": "1"}, "options.seed"), ({"bogus": 1}, "options.bogus")):
        assert _field("workflow", inst, raw) == field


def test_families_without_options_refuse_them():
    for family in ("pcmax", "mosp", "knapsack"):
        assert families.heuristic_options(family, small_instance(family, 0), {}) == {}
        assert _field(family, small_instance(family, 0), {"inner": "lpt"}) == "options.inner"
