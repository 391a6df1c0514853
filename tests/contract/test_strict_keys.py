"""A typo never changes the problem: every reader refuses a key it does not
know, naming its path and the nearest known key; the JSON Schemas are made
from the readers' own declarations and agree with them."""

import copy
import json
import random

import jsonschema
import pytest

from conftest import REPO, run_cli, write_json
from schedbench.errors import BeyondSchemaError, InstanceError, UserInputError
from schedbench.model import FAMILIES, family_module, json_schema, parse_instance
from schedbench.model.shape import Record, Shape
from test_bad_input import EXAMPLES, REPLACEMENTS

#: An example of each family holding every optional key its format has.
FULL = {
    **EXAMPLES,
    "mosp": dict(EXAMPLES["mosp"], local_reference="lpt", name="m", meta={"any": [1]}),
    "workflow": {"family": "workflow", "format_version": 1, "colocate": False, "network": [[0], [1]],
                 "shares": {"g": {"share": 2}, "alice": {"share": 1, "parent": "g"}},
                 "clusters": [{"cores": 2, "kind": "A"}, {"cores": 1, "kind": "A"}],
                 "jobs": [{"arrival": 0, "user": "alice",
                           "tasks": [{"exec": 2, "cores": 1, "kind": "A", "succ": [1]},
                                     {"exec": 3, "cores": 2, "kind": "A", "succ": []}]}]},
}


@pytest.mark.parametrize("document,field,near", [
    ({"family": "mosp", "format_version": 1, "local_objective": "cmax", "selfsh": True,
      "organizations": [{"machines": 1, "jobs": [3, 1]}, {"machines": 1, "jobs": [5]}]}, "selfsh", "selfish"),
    ({"family": "campaign", "format_version": 1, "machines": 1,
      "users": [{"relase": 50, "campaigns": [{"jobs": [1]}]}]}, "users[0].relase", "release"),
    ({"family": "campaign", "format_version": 1, "machines": 1,
      "users": [{"campaigns": [{"jobs": [1]}, {"jobs": [2], "think_tme": 100}]}]},
     "users[0].campaigns[1].think_tme", "think_time"),
    ({"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [1], "jobz": [4, 5]}, "jobz", "jobs"),
])
def test_the_misspellings_users_make_are_one_line_with_the_nearest_key(tmp_path, document, field, near):
    result = run_cli("solve", write_json(tmp_path, "typo.json", document), "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f'schedbench: {field}: unknown key (did you mean "{near}"?)\n'


def test_a_key_misspelled_in_the_wrong_object_says_where_it_belongs(tmp_path):
    document = {"family": "mosp", "format_version": 1, "local_objective": "cmax",
                "organizations": [{"machines": 1, "jobs": [3], "selfsh": True}]}
    result = run_cli("solve", write_json(tmp_path, "typo.json", document))
    assert (result.returncode, result.stderr) == (2, 'schedbench: organizations[0].selfsh: unknown key (did you mean '
                                                     '"selfish"? it is a key of the top level)\n')


def _records(shape: Shape, value, path: str = ""):
    """(path, object, its Record) for every object of ``value`` that a Record declares."""
    if isinstance(shape, Record) and isinstance(value, dict):
        yield path, value, shape
        for key in shape.keys:
            if key.name in value:
                yield from _records(key.shape, value[key.name], f"{path}.{key.name}" if path else key.name)
    for attribute in ("items", "values", "shape"):
        inner = getattr(shape, attribute, None)
        if isinstance(inner, Shape) and isinstance(value, list) and attribute == "items":
            for i, item in enumerate(value):
                yield from _records(inner, item, f"{path}[{i}]")
        elif isinstance(inner, Shape) and isinstance(value, dict) and attribute == "values":
            for name, item in value.items():
                yield from _records(inner, item, f"{path}.{name}")
        elif isinstance(inner, Shape) and attribute == "shape" and value is not None:
            yield from _records(inner, value, path)


def _misspelled(key: str) -> str:
    return key[:-1] if len(key) > 3 else key + key[-1]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_key_of_every_family_misspelled_in_turn_is_named_with_its_fix(family):
    declaration = family_module(family).INSTANCE
    document = FULL[family]
    parse_instance(document)
    checked = 0
    for path, obj, record in list(_records(declaration, document)):
        for key in record.keys:
            if key.name == "family":
                continue
            bad = copy.deepcopy(document)
            target = next(o for p, o, _ in _records(declaration, bad) if p == path)
            typo = _misspelled(key.name)
            target[typo] = target.pop(key.name, 1)
            with pytest.raises(InstanceError) as error:
                parse_instance(bad)
            assert str(error.value) == f'{f"{path}." if path else ""}{typo}: unknown key (did you mean "{key.name}"?)'
            checked += 1
    optional = sum(not key.required for _, _, record in _records(declaration, document) for key in record.keys)
    assert checked and optional >= 2  # name and meta at least, every optional key in FULL


def test_meta_and_name_hold_anything_and_a_shares_map_any_names():
    document = dict(FULL["workflow"], meta={"selfsh": True, "deep": {"x": [None]}}, name="")
    document["shares"] = {"any name at all": {"share": 1}, "alice": {"share": 1, "parent": "any name at all"}}
    assert parse_instance(document).shares[0][0] == "any name at all"


def test_a_key_far_from_every_known_one_lists_them():
    with pytest.raises(InstanceError, match=r"^zzzz: unknown key \(known: family, format_version, jobs, machines, "
                                            r"meta, name\)$"):
        parse_instance(dict(EXAMPLES["pcmax"], zzzz=1))


# -- schedules and results -------------------------------------------------------------------------------------

def test_validate_refuses_a_schedule_or_result_with_an_unknown_key(tmp_path):
    instance = write_json(tmp_path, "p.json", EXAMPLES["pcmax"])
    good = {"jobs": [{"machine": 0, "start": 0}, {"machine": 1, "start": 0}, {"machine": 0, "start": 3}]}
    assert run_cli("validate", instance, write_json(tmp_path, "s.json", good)).returncode == 0
    typo = copy.deepcopy(good)
    typo["jobs"][2]["strat"] = typo["jobs"][2].pop("start")
    extra = dict(good, comment="mine")
    result = dict(json.loads(run_cli("solve", instance, "--json").stdout), sttus="optimal")
    for bad, message in ((typo, 'jobs[2].strat: unknown key (did you mean "start"?)'),
                         (extra, "comment: unknown key (known: jobs)"),
                         (result, 'sttus: unknown key (did you mean "status"?)')):
        out = run_cli("validate", instance, write_json(tmp_path, "bad.json", bad))
        assert (out.returncode, out.stderr) == (2, f"schedbench: {message}\n")
    nested = json.loads(run_cli("solve", instance, "--json").stdout)
    nested["schedule"]["jobs"][0]["machin"] = 0
    out = run_cli("validate", instance, write_json(tmp_path, "bad.json", nested))
    assert (out.returncode, out.stderr) == (2, 'schedbench: schedule.jobs[0].machin: unknown key '
                                               '(did you mean "machine"?)\n')


# -- options, experiment files, claim files, tables --------------------------------------------------------------

@pytest.mark.parametrize("args,message", [
    (["solve", "{mosp}", "-o", "warm_strat=true"], "options.warm_strat: unknown key (known: none)"),
    (["heuristic", "fcfs", "{campaign}", "-o", "iner=lpt"], 'options.iner: unknown key (did you mean "inner"?)'),
    (["heuristic", "lcpf", "{dssp}", "-o", "sed=3"], 'options.sed: unknown key (did you mean "seed"?)'),
])
def test_an_option_name_misspelled_is_named_with_its_fix(tmp_path, args, message):
    paths = {f: str(write_json(tmp_path, f"{f}.json", EXAMPLES[f])) for f in ("mosp", "campaign", "dssp")}
    result = run_cli(*[arg.format(**paths) for arg in args])
    assert (result.returncode, result.stderr) == (2, f"schedbench: {message}\n")


def test_an_experiment_key_misspelled_is_named_with_its_fix(tmp_path):
    path = tmp_path / "e.toml"
    path.write_text('[[grid]]\nfamily = "pcmax"\ngenerator = "pcmax-uniform"\nseed = [1]\n')
    result = run_cli("run", path, "--store", tmp_path / "s.sqlite")
    assert (result.returncode, result.stderr) == (2, 'schedbench: grid[0].seed: unknown key (did you mean "seeds"?)\n')


def test_a_claim_file_name_misspelled_is_named_with_its_fix(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("from schedbench.claims import Check, Claim\nFAMILY = 'pcmax'\n"
                    "CLAIMS = [Claim('c', 'always', lambda i: True, lambda case: Check(True, 1), 'project')]\n"
                    "def instance(count, seed):\n    return []\n")
    result = run_cli("claims", "check", path)
    assert (result.returncode, result.stderr) == (2, 'schedbench: mine.py: instance: unknown name '
                                                     '(did you mean "instances"?)\n')


# -- the schemas -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_schema_is_a_valid_draft_2020_12_schema_printed_by_the_command(family):
    for extra in ([], ["--schedule"]):
        result = run_cli("schema", family, *extra)
        assert result.returncode == 0
        schema = json.loads(result.stdout)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema == json_schema(family, bool(extra))
    assert run_cli("schema", "mospp").returncode == 2


def test_the_docs_show_the_schemas_the_command_prints():
    folder = REPO / "docs" / "reference" / "schemas"
    for family in FAMILIES:
        for suffix, schedule in (("", False), ("-schedule", True)):
            shown = json.loads((folder / f"{family}{suffix}.json").read_text())
            assert shown == json_schema(family, schedule), f"run: schedbench schema --all {folder}"
    formats = (REPO / "docs" / "reference" / "formats.md").read_text()
    assert all(f"docs/reference/schemas/{family}.json" in formats for family in FAMILIES)


def test_every_corpus_instance_validates_against_its_family_schema():
    validators = {family: jsonschema.Draft202012Validator(json_schema(family)) for family in FAMILIES}
    files = sorted((REPO / "instances" / "corpus").glob("*/*.json"))
    assert len(files) > 1000
    for path in files:
        document = json.loads(path.read_text())
        validators[document["family"]].validate(document)


def _json_blocks(text: str):
    """The JSON objects of a Markdown page's fenced code blocks that parse as JSON."""
    for block in text.split("```")[1::2]:
        body = block.split("\n", 1)[1] if "\n" in block else block
        try:
            yield json.loads(body)
        except ValueError:
            continue


def test_every_json_instance_in_the_docs_validates_and_loads():
    found = 0
    for page in sorted((REPO / "docs").rglob("*.md")):
        for document in _json_blocks(page.read_text()):
            if isinstance(document, dict) and document.get("family") in FAMILIES:
                jsonschema.validate(document, json_schema(document["family"]))
                parse_instance(document)
                found += 1
    assert found >= 7  # one per family at least, in the format reference


def _verdicts(document: dict, validator: jsonschema.Draft202012Validator) -> tuple[bool, Exception | None]:
    try:
        parse_instance(document)
        error = None
    except UserInputError as exc:
        error = exc
    return validator.is_valid(document), error


def _integral_floats(node) -> bool:
    """JSON Schema reads 2.0 as the integer 2; schedbench refuses it (listed in the docs)."""
    if isinstance(node, float):
        return node.is_integer()
    if isinstance(node, dict):
        return any(map(_integral_floats, node.values()))
    if isinstance(node, list):
        return any(map(_integral_floats, node))
    return False


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_schema_and_reader_agree_on_mutated_instances(family):
    """Both accept or both refuse, except where the reader checks what no
    schema states (``BeyondSchemaError``) or reads 2.0 as no integer."""
    from test_bad_input import _DELETE, _leaves, _set

    rng = random.Random(f"schema-{family}")
    validator = jsonschema.Draft202012Validator(json_schema(family))
    example = FULL[family]
    paths = [p for p in _leaves(example) if p[-1] != "family"]
    beyond = 0
    for _ in range(400):
        document = copy.deepcopy(example)
        for path in rng.sample(paths, rng.randint(1, 2)):
            value = rng.choice(REPLACEMENTS + (_DELETE, 2.0, "x", {"k": 1}))
            try:
                _set(document, path, value)
            except (KeyError, IndexError, TypeError):
                pass
        if rng.random() < 0.2:
            document["unknown_" + rng.choice(("a", "b"))] = 1
        valid, error = _verdicts(document, validator)
        if valid and error is not None:
            assert isinstance(error, BeyondSchemaError) or _integral_floats(document), (document, error)
            beyond += isinstance(error, BeyondSchemaError)
        else:
            assert valid == (error is None), (document, error)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_schedule_made_validates_against_the_schedule_schema(tmp_path, family):
    from schedbench import families
    from schedbench.model import schedule_to_json

    instance = parse_instance(EXAMPLES[family])
    schedules = []
    for heuristic in families.heuristics(family).values():
        try:
            schedules.append(heuristic(instance))
        except UserInputError:
            continue  # a heuristic for another setting (camp(A) takes one user)
    result = json.loads(run_cli("solve", write_json(tmp_path, "i.json", EXAMPLES[family]), "--json",
                                "--objective", families.objectives(family)[-1]).stdout)
    validator = jsonschema.Draft202012Validator(json_schema(family, schedule=True))
    for schedule in [schedule_to_json(instance, s) for s in schedules] + [result["schedule"]]:
        validator.validate(json.loads(json.dumps(schedule)))



def test_a_generator_parameter_misspelled_is_named_with_its_fix():
    result = run_cli("generate", "pcmax-uniform", "--jobz", "5")
    assert (result.returncode, result.stderr) == (2, 'schedbench: --jobz: unknown parameter (did you mean "jobs"?)\n')


def test_a_table_column_misspelled_is_named_with_its_fix(tmp_path):
    baseline = tmp_path / "baseline.csv"
    baseline.write_text("instance,objective,heuristic,ratoi\n")
    result = run_cli("regress", "--family", "pcmax", "--baseline", baseline)
    assert (result.returncode, result.stderr) == (2, f"schedbench: --baseline: {baseline}: column ratoi: unknown "
                                                     'column (did you mean "ratio"?)\n')
