"""Bad input over every family: one line naming the field and exit 2, never
a traceback; values too large for the solvers are refused at reading, with
the largest value accepted named (docs/reference/formats.md, general rules)."""

import copy
import random

import pytest

from conftest import run_cli, write_json
from schedbench.errors import UserInputError
from schedbench.model import FAMILIES, instance_to_json, parse_instance
from schedbench.model.fields import MAX_COUNT, MAX_TOTAL, MAX_VALUE

EXAMPLES = {
    "pcmax": {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3, 4, 5]},
    "campaign": {"family": "campaign", "format_version": 1, "machines": 2, "users": [
        {"release": 1, "campaigns": [{"jobs": [2, 3]}, {"jobs": [1], "think_time": 2}]}, {"campaigns": [{"jobs": [4]}]}]},
    "mosp": {"family": "mosp", "format_version": 1, "local_objective": "cmax", "selfish": True,
             "organizations": [{"machines": 1, "jobs": [3, 2]}, {"machines": 2, "jobs": [4]}]},
    "three_partition": {"family": "three_partition", "format_version": 1, "bound": 20, "items": [6, 7, 7, 6, 7, 7]},
    "dssp": {"family": "dssp", "format_version": 1, "processors": 2, "deadline": 9,
             "jobs": [{"reward": 3, "stages": [[2, 1], [3]]}, {"reward": 1, "stages": [[4]]}]},
    "knapsack": {"family": "knapsack", "format_version": 1, "capacity": 5,
                 "items": [{"weight": 2, "profit": 3}, {"weight": 4, "profit": 5}]},
    "workflow": {"family": "workflow", "format_version": 1, "clusters": [{"cores": 2, "kind": "A"}],
                 "jobs": [{"arrival": 0, "tasks": [{"exec": 2, "cores": 1, "kind": "A", "succ": [1]},
                                                   {"exec": 3, "cores": 2, "kind": "A", "succ": []}]}]},
}
#: What a mutation puts in place of a value: huge integers first.
REPLACEMENTS = (10 ** 30, MAX_VALUE + 1, -1, 0, 1.5, "7", True, None, [], {})


def test_every_family_has_an_example():
    assert set(EXAMPLES) == set(FAMILIES)


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, path + (i,))
    if path:
        yield path


def _set(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()


@pytest.mark.parametrize("family", sorted(EXAMPLES))
def test_random_mutations_are_one_clear_error_or_a_valid_instance(family):
    rng = random.Random(family)
    example = EXAMPLES[family]
    parse_instance(example)
    paths = [p for p in _leaves(example) if p[-1] != "family"]
    for _ in range(300):
        document = copy.deepcopy(example)
        for path in rng.sample(paths, rng.randint(1, 2)):
            try:
                _set(document, path, rng.choice(REPLACEMENTS + (_DELETE,)))
            except (KeyError, IndexError, TypeError):
                pass  # a path the first mutation removed
        try:
            instance = parse_instance(document)
        except UserInputError as exc:
            assert exc.field and "\n" not in str(exc)
            continue
        assert instance_to_json(instance)["family"] == family


@pytest.mark.parametrize("family, document, field", [
    ("pcmax", {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [10 ** 30, 3]}, "jobs[0]"),
    ("mosp", {"family": "mosp", "format_version": 1, "local_objective": "cmax",
              "organizations": [{"machines": 1, "jobs": [10 ** 30]}]}, "organizations[0].jobs[0]"),
    ("knapsack", {"family": "knapsack", "format_version": 1, "capacity": 5,
                  "items": [{"weight": 10 ** 30, "profit": 1}]}, "items[0].weight"),
    ("pcmax", {"family": "pcmax", "format_version": 1, "machines": MAX_COUNT + 1, "jobs": [1]}, "machines"),
    ("pcmax", {"family": "pcmax", "format_version": 1, "machines": 2,
               "jobs": [MAX_VALUE] * (MAX_TOTAL // MAX_VALUE + 1)}, "jobs"),
])
def test_too_large_is_refused_with_the_largest_value_accepted(tmp_path, family, document, field):
    path = write_json(tmp_path, "big.json", document)
    for command in (["solve", path, "--time-limit", "1"], ["validate", path, path]):
        out = run_cli(*command)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.count("\n") == 1 and f"{field}:" in out.stderr and "largest" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr


@pytest.mark.parametrize("args, field", [
    (["generate", "dssp-maxcpl", "--max-cpl", "2"], "--max-cpl"),
    (["generate", "dssp-maxcpl", "--max-cpl", "abc"], "--max-cpl"),
    (["generate", "workflow-small", "--colocate", "3"], "--colocate"),
])
def test_new_generator_parameters_are_one_clear_error(args, field):
    out = run_cli(*args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and f": {field}: " in out.stderr, out.stderr


@pytest.mark.parametrize("value", ["no", None, 1])
def test_colocate_must_be_a_boolean(tmp_path, value):
    document = {**EXAMPLES["workflow"], "colocate": value}
    out = run_cli("solve", write_json(tmp_path, "w.json", document), "--time-limit", "1")
    assert out.returncode == 2 and "colocate: must be true or false" in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


@pytest.mark.parametrize("options, message", [
    (["-o", "lambda=2"], "options.lambda: must be in [0, 1]"),
    (["-o", "lambda=abc"], "options.lambda:"),
    (["-o", "lambda=1/5", "-o", "r=0.9"], "options.lambda: give r or lambda, not both"),
])
def test_dssp_lambda_is_checked(tmp_path, options, message):
    out = run_cli("heuristic", "lcpf", write_json(tmp_path, "d.json", EXAMPLES["dssp"]), *options)
    assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_input_errors_survive_a_worker_process():
    """A pool or Dask worker pickles the error it raises: it must arrive whole."""
    import pickle

    from schedbench.errors import InstanceError, ModelTooLarge

    for error in (UserInputError("params.users", "must be a range"), InstanceError("jobs[2]", "negative"),
                  ModelTooLarge("too many start variables")):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error) and back.field == error.field


def _one_clear_line(out, *parts: str) -> None:
    assert out.returncode == 2 and out.stdout == "", (out.returncode, out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert all(part in out.stderr for part in parts), out.stderr


PCMAX_TEXT = '{"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3, 4, 5]}'


@pytest.mark.parametrize("raw, message", [
    (PCMAX_TEXT.replace('"jobs"', '"name": "\xff", "jobs"').encode("latin-1"), "is not UTF-8 text (byte 65 is 0xff)"),
    (PCMAX_TEXT.encode("utf-16"), "is not UTF-8 text (byte 0 is 0xff)"),
    (("[" * 100_000 + "]" * 100_000).encode(), "nests JSON arrays or objects too deeply"),
    (PCMAX_TEXT.replace("[3,", "[" + "9" * 5_000 + ",").encode(), "line 1 column 66: an integer of 5,000 digits"),
    (PCMAX_TEXT.replace('"jobs"', '"note": 1e400, "jobs"').encode(), "line 1 column 65: 1e400 is beyond every float"),
    (PCMAX_TEXT.replace('"machines": 2', '"machines": 2, "machines": 3').encode(), "machines: appears twice"),
    (PCMAX_TEXT.replace('"jobs"', '"note": NaN, "jobs"').encode(), "NaN is not a JSON number"),
    (PCMAX_TEXT.replace('"jobs"', '"note": -Infinity, "jobs"').encode(), "-Infinity is not a JSON number"),
])
def test_files_python_reads_leniently_are_one_clear_error(tmp_path, raw, message):
    """Strict JSON: what Python's json takes (NaN, 1e400 as infinity, a
    repeated key) or raises on (bytes not UTF-8, deep nesting, an integer of
    5,000 digits) is one line, from every command that reads an instance or
    a schedule."""
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    good = write_json(tmp_path, "good.json", EXAMPLES["pcmax"])
    schedule = write_json(tmp_path, "s.json", {"jobs": [{"machine": 0, "start": 0}] * 3})
    for command in (["solve", path, "--time-limit", "1"], ["heuristic", "lpt", path], ["validate", path, schedule],
                    ["validate", good, path]):
        _one_clear_line(run_cli(*command), message)


@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "-inf", "0", "-1", "abc", "1e10"])
def test_every_duration_option_is_a_finite_number_of_seconds(tmp_path, value):
    """NaN and infinity pass click's FloatRange; an infinite --time-limit
    would break its promise, a NaN one reached the solvers."""
    path = write_json(tmp_path, "p.json", EXAMPLES["pcmax"])
    for command, option in ((["solve", path], "--time-limit"), (["heuristic", "lpt", path], "--time-limit"),
                            (["claims", "ledger", "dssp", "--instances", "0"], "--time-limit"),
                            (["worst", "lpt", "--family", "pcmax"], "--time-limit"),
                            (["worst", "lpt", "--family", "pcmax"], "--budget"),
                            (["certify", path], "--time-limit")):
        _one_clear_line(run_cli(*command, option, value), option)
    if value not in ("0", "abc"):
        _one_clear_line(run_cli("claims", "check", path, "--search", value), "--search")


def test_the_solve_function_refuses_a_time_limit_that_is_not_finite():
    from schedbench.solvers import solve

    instance = parse_instance(EXAMPLES["pcmax"])
    for limit in (float("nan"), float("inf"), 1e10):
        with pytest.raises(UserInputError, match="--time-limit: must be a number of seconds > 0 and <= 1e\\+07"):
            solve(instance, time_limit=limit)


@pytest.mark.parametrize("option", ["--objective", "--solver"])
def test_an_empty_objective_or_solver_is_refused_not_defaulted(tmp_path, option):
    out = run_cli("solve", write_json(tmp_path, "p.json", EXAMPLES["pcmax"]), option, "", "--time-limit", "1")
    _one_clear_line(out, f"{option}: ")


def test_schedule_out_into_no_directory_is_refused_before_solving(tmp_path):
    path = write_json(tmp_path, "p.json", EXAMPLES["pcmax"])
    for command in (["solve", path, "--time-limit", "1"], ["heuristic", "lpt", path]):
        _one_clear_line(run_cli(*command, "--schedule-out", tmp_path / "none" / "s.json"),
                        "--schedule-out: cannot write", "does not exist")


def test_a_workflow_task_without_succ_is_refused_not_read_as_a_leaf(tmp_path):
    document = copy.deepcopy(EXAMPLES["workflow"])
    del document["jobs"][0]["tasks"][1]["succ"]
    out = run_cli("solve", write_json(tmp_path, "w.json", document), "--time-limit", "1")
    _one_clear_line(out, "jobs[0].tasks[1].succ: is missing")
