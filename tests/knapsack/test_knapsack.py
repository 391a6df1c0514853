"""0-1 knapsack (the DSSP selection phase): format, validator, the DP by
profits and OR-Tools' knapsack solver, both exact backends, the command."""

import json
import math
import random
from fractions import Fraction

import pytest

from schedbench.errors import InstanceError, ScheduleFormatError
from schedbench.metrics.knapsack import dp_by_profits, ortools_knapsack
from schedbench.metrics.knapsack import dantzig
from schedbench.model import instance_to_json, parse_instance, schedule_from_json, schedule_to_json
from schedbench.model.knapsack import Item, KnapsackInstance
from schedbench.result import FEASIBLE, OPTIMAL
from schedbench.solvers import solve
from schedbench.validator import validate

from conftest import run_cli, write_json

EXAMPLE = {"family": "knapsack", "format_version": 1, "capacity": 10,
           "items": [{"weight": 5, "profit": 10}, {"weight": 4, "profit": 40},
                     {"weight": 6, "profit": 30}, {"weight": 3, "profit": 50}]}


def knapsack(capacity, pairs) -> KnapsackInstance:
    return KnapsackInstance(capacity, tuple(Item(w, p) for w, p in pairs))


def random_knapsack(seed: int) -> KnapsackInstance:
    rng = random.Random(seed)
    pairs = [(rng.randint(0, 20), rng.randint(0, 30)) for _ in range(rng.randint(0, 15))]
    return knapsack(rng.randint(0, 60), pairs)


def brute_force(instance: KnapsackInstance) -> int:
    """The best profit over all 2^n subsets, as (weight, profit) sums."""
    sums = [(0, 0)]
    for item in instance.items:
        sums += [(w + item.weight, p + item.profit) for w, p in sums]
    return max(p for w, p in sums if w <= instance.capacity)


def test_round_trip_and_selection_format():
    inst = parse_instance(dict(EXAMPLE, name="example"))
    assert inst.capacity == 10 and inst.weights == (5, 4, 6, 3) and inst.profits == (10, 40, 30, 50)
    assert parse_instance(json.loads(json.dumps(instance_to_json(inst)))) == inst
    assert schedule_from_json(inst, schedule_to_json(inst, (1, 3))) == (1, 3)
    assert schedule_from_json(inst, {"schedule": {"selected": [3]}}) == (3,)  # the whole output of solve
    assert parse_instance(dict(EXAMPLE, items=[])).items == ()


@pytest.mark.parametrize("change,field", [
    ({"capacity": None}, "capacity"),
    ({"capacity": True}, "capacity"),
    ({"capacity": -1}, "capacity"),
    ({"items": {"weight": 1}}, "items"),
    ({"items": [{"weight": 1, "profit": 2}, 3]}, "items[1]"),
    ({"items": [{"weight": -4, "profit": 2}]}, "items[0].weight"),
    ({"items": [{"weight": False, "profit": 2}]}, "items[0].weight"),
    ({"items": [{"weight": 1, "profit": 2.0}]}, "items[0].profit"),
    ({"items": [{"weight": 1, "profit": "2"}]}, "items[0].profit"),
    ({"items": [{"weight": 1, "profit": 2}, {"weight": 1}]}, "items[1].profit"),
])
def test_bad_instances_name_the_field(change, field):
    obj = {k: v for k, v in dict(EXAMPLE, **change).items() if v is not None}  # None: the key is missing
    with pytest.raises(InstanceError) as err:
        parse_instance(obj)
    assert err.value.field == field


@pytest.mark.parametrize("selection,field", [
    ({"selected": [0, 1.0]}, "selected[1]"), ({"selected": [True]}, "selected[0]"), ({"x": []}, "x"),
    ([0], "schedule"), ({}, "selected"),
])
def test_bad_selections_name_the_field(selection, field):
    with pytest.raises(ScheduleFormatError) as err:
        schedule_from_json(parse_instance(EXAMPLE), selection)
    assert err.value.field == field


def test_validator_catches_range_duplicates_and_capacity():
    inst = parse_instance(EXAMPLE)
    assert validate(inst, (1, 3)) == [] and validate(inst, ()) == []
    over = validate(inst, (1, 2, 3))
    assert [v.rule for v in over] == ["capacity"] and "13" in over[0].message and "10" in over[0].message
    assert [v.rule for v in validate(inst, (3, 3))] == ["item-twice"]
    assert [v.rule for v in validate(inst, (4, -1))] == ["item-range", "item-range"]


def test_hand_computed_example(solver):
    """Capacity 10: {1, 3} weighs 7 and earns 90; every other set that fits earns at most 80."""
    inst = parse_instance(EXAMPLE)
    assert dp_by_profits(inst.weights, inst.profits, 10) == (1, 3)
    assert ortools_knapsack(inst.weights, inst.profits, 10) == (1, 3)
    result = solve(inst, None, solver)
    assert (result.status, result.objective, result.bound, result.schedule) == (OPTIMAL, 90, 90, (1, 3))


@pytest.mark.parametrize("select", [dp_by_profits, ortools_knapsack])
def test_selectors_on_edge_cases(select):
    assert select([], [], 5) == () and select([], [], 0) == ()
    assert select([3, 4], [5, 6], 0) == ()
    assert select([0, 3, 0], [7, 5, 2], 0) == (0, 2)    # weight 0, profit > 0: always taken
    assert select([1, 0, 2], [0, 0, 5], 10) == (2,)     # profit 0: never taken
    assert select([30, 40], [9, 9], 10) == ()           # nothing fits


def test_dp_tie_breaking():
    """Least weight among the most profitable sets, then later items left out."""
    assert dp_by_profits([2, 2, 2], [5, 5, 5], 4) == (0, 1)
    assert dp_by_profits([3, 2], [5, 5], 3) == (1,)          # same profit, lighter
    assert dp_by_profits([2, 1, 1], [6, 3, 3], 2) == (0,)    # ties in weight too: the earlier item


def test_all_methods_agree_on_random_instances(solver):
    """200 seeded instances (n <= 15): DP by profits, OR-Tools' knapsack
    solver and the backend prove the same optimum, brute force agrees for
    n <= 12, and every selection passes the validator. The MILP takes every
    third seed: CBC's start costs a quarter of a second a solve."""
    brute = 0
    seeds = range(200) if solver == "cpsat" else range(0, 200, 3)
    for seed in seeds:
        inst = random_knapsack(seed)
        chosen = {"dp": dp_by_profits(inst.weights, inst.profits, inst.capacity),
                  "ortools": ortools_knapsack(inst.weights, inst.profits, inst.capacity)}
        result = solve(inst, None, solver)
        assert result.status == OPTIMAL and result.bound == result.objective, seed
        chosen[solver] = result.schedule
        optimum = inst.profit_of(chosen["dp"])
        for name, selected in chosen.items():
            assert validate(inst, selected) == [], (seed, name)
            assert inst.profit_of(selected) == optimum, (seed, name)
        assert result.objective == optimum
        if len(inst.items) <= 12:
            assert brute_force(inst) == optimum, seed
            brute += 1
    assert brute >= len(seeds) // 2


def test_the_lp_bound_is_dantzigs_and_exact():
    """The hand-computed example (items 3 and 1 whole, half of item 2: 105),
    weight-0 items always in, and 100 random instances against scipy's LP
    (an independent method, to 1e-6)."""
    from scipy.optimize import linprog
    assert dantzig([5, 4, 6, 3], [10, 40, 30, 50], 10) == 105
    assert dantzig([0, 4, 0], [7, 8, 2], 2) == 13 and dantzig([3], [7], 0) == 0
    assert dantzig([3, 3], [2, 2], 4) == Fraction(8, 3)
    for seed in range(100):
        inst = random_knapsack(seed)
        if not inst.items:
            continue
        lp = linprog([-p for p in inst.profits], A_ub=[list(inst.weights)], b_ub=[inst.capacity],
                     bounds=[(0, 1)] * len(inst.items))
        assert abs(float(dantzig(inst.weights, inst.profits, inst.capacity)) + lp.fun) < 1e-6, seed


def test_item_views_are_built_once():
    """The greedy and the models read weights per item: rebuilding the tuple
    at each access made a 4,000-item instance quadratic (seconds past its
    --time-limit)."""
    inst = random_knapsack(3)
    assert inst.weights is inst.weights and inst.profits is inst.profits


def todd(n: int) -> KnapsackInstance:
    """Todd's instances: profit = weight, capacity half the total weight;
    branch and bound needs exponentially many nodes."""
    k = int(math.log2(n))
    weights = [2 ** (k + n + 1) + 2 ** (k + j) + 1 for j in range(1, n + 1)]
    return knapsack(sum(weights) // 2, [(w, w) for w in weights])


def test_milp_bound_on_a_time_limit_is_an_upper_bound():
    """CBC stops on Todd's instance (n = 36) after 1 s: the value is a
    feasible selection's profit, the bound lies above it and at most the
    capacity (profit = weight)."""
    inst = todd(36)
    result = solve(inst, None, "milp", 1)
    assert result.status == FEASIBLE and validate(inst, result.schedule) == []
    assert result.objective <= result.bound <= inst.capacity
    assert isinstance(result.bound, Fraction)


def test_solve_and_validate_commands(tmp_path):
    path = write_json(tmp_path, "knapsack.json", EXAMPLE)
    out = run_cli("solve", path, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert (result["status"], result["objective"], result["bound"]) == ("optimal", 90, 90)
    assert result["selected"] == [1, 3] and result["schedule"] == {"selected": [1, 3]}
    solution = tmp_path / "solution.json"
    solution.write_text(out.stdout)
    assert run_cli("validate", path, solution).returncode == 0
    heavy = write_json(tmp_path, "heavy.json", {"selected": [1, 2, 3]})
    out = run_cli("validate", path, heavy)
    assert out.returncode == 1 and "capacity" in out.stdout


def test_bad_file_exits_2_naming_the_field(tmp_path):
    items = [{"weight": 5, "profit": 10}, {"weight": -4, "profit": 1}]
    bad = write_json(tmp_path, "bad.json", dict(EXAMPLE, items=items))
    out = run_cli("solve", bad, "--json")
    assert out.returncode == 2 and "items[1].weight" in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""
