"""The family contract (issue 16): every family found in ``schedbench.model``
exposes what the registry needs in every folder, and every door of the
command line reaches it through the registry."""

import inspect
import json

import pytest

from click.testing import CliRunner

from conftest import write_json
from schedbench import families
from schedbench.cli import cli
from schedbench.model import FAMILIES, instance_to_json

def run_cli(*args):
    """The command in-process (the doors are what is tested here; tests/cli/test_cli.py runs it as a user would)."""
    out = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    out.returncode = out.exit_code
    return out


#: A small generator of each family, as the command line calls it.
SMALL = {
    "pcmax": ["pcmax-uniform", "--jobs", "7", "--machines", "3"],
    "campaign": ["small", "--users", "[1,1]", "--campaigns", "[2,3]"],  # user-flow, the default, is for one user
    "mosp": ["mosp-small", "--organizations", "[2,3]"],
    "three_partition": ["three-partition", "--triples", "2", "--bound", "20"],
    "dssp": ["dssp-small"],
    "knapsack": ["knapsack-random", "--items", "8"],
    "workflow": ["workflow-small"],
}


def test_every_family_is_covered():
    assert set(SMALL) == set(FAMILIES) == set(families.names())


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_declaration_holds_the_family(family):
    declared = families.family(family)
    assert declared.model is FAMILIES[family]
    assert declared.solvers.DEFAULT_SOLVER in declared.solvers.BACKENDS
    assert list(inspect.signature(declared.solvers.solve).parameters)[:4] == ["instance", "objective", "solver",
                                                                            "time_limit"]
    made = {inspect.signature(make.__wrapped__).return_annotation.__module__ for make in declared.generators.values()}
    assert made == {f"schedbench.model.{family}"}, "a family declares the generators of its own instances"


def test_a_declaration_missing_a_part_fails_naming_it():
    from types import SimpleNamespace

    from schedbench.registry import Family, RegistryError

    pcmax = families.family("pcmax")
    metrics = SimpleNamespace(__name__="toy.metrics", objective=None, lower_bound=None, METRICS={})
    with pytest.raises(RegistryError, match=r"^family pcmax: metrics module toy.metrics lacks gantt_bars$"):
        Family(model=pcmax.model, metrics=metrics, solvers=pcmax.solvers)
    with pytest.raises(RegistryError, match="with heuristics, declare its summary and search_start"):
        Family(model=pcmax.model, metrics=pcmax.metrics, solvers=pcmax.solvers, heuristics=pcmax.heuristics)
    with pytest.raises(RegistryError, match="maximized names no objective of it: profit"):
        Family(model=pcmax.model, metrics=pcmax.metrics, solvers=pcmax.solvers, maximized=("profit",))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_door_reaches_the_family(family, tmp_path):
    path = tmp_path / "instance.json"
    generated = run_cli("generate", *SMALL[family], "--seed", "1", "-o", path)
    assert generated.returncode == 0, generated.stderr
    assert json.loads(path.read_text())["family"] == family
    solved = run_cli("solve", path, "--time-limit", "10", "--json")
    assert solved.returncode == 0, solved.stderr
    result = json.loads(solved.stdout)
    assert result["solver"] == families.backends(family)[0] and result["status"] in ("optimal", "feasible",
                                                                                     "infeasible")
    if result["status"] == "optimal":
        assert result["proof"]
    for name in families.heuristics(family):
        ran = run_cli("heuristic", name, path, "--json", "--time-limit", "5")
        assert ran.returncode == 0, (name, ran.stderr)
        out = json.loads(ran.stdout)
        assert out["metrics"] and out["family"] == family
        if family != "knapsack":  # a MOSP heuristic may breach SPEC's ref_k, and says so (relaxed)
            breached = bool(out["metrics"].get("spec_reference_violations"))
            assert run_cli("validate", path, write_json(tmp_path, "s.json", out)).returncode == breached, name
    help_text = run_cli("heuristic", "--help").stdout + run_cli("solve", "--help").stdout
    assert family in help_text and all(name in help_text for name in families.heuristics(family))


def test_every_registered_generator_is_a_command():
    listed = run_cli("generate", "--help").stdout
    assert all(name in listed for name in families.generators())
    out = run_cli("generate", "knapsack-random", "--items", "5", "--seed", "3")
    assert out.returncode == 0 and json.loads(out.stdout)["family"] == "knapsack"


def test_the_seed_reaches_dssp_random(tmp_path):
    path = tmp_path / "d.json"
    assert run_cli("generate", "dssp-standard", "--processors", "3", "--deadline", "40", "--stages", "[1,3]",
                   "--tasks", "[1,3]", "--length", "[1,9]", "-o", path).returncode == 0
    outputs = {run_cli("heuristic", "random", path, "--json", "-o", f"seed={seed}").stdout for seed in (0, 5, 9)}
    assert len(outputs) > 1
    tuned = json.loads(run_cli("heuristic", "lcpf", path, "--json", "-o", "r=1/2").stdout)
    assert tuned["metrics"]["reward"] <= json.loads(run_cli("heuristic", "lcpf", path, "--json").stdout)[
        "metrics"]["knapsack_bound"]


def test_pcmax_defaults_to_the_portfolio(tmp_path):
    path = write_json(tmp_path, "p.json", instance_to_json(families.generators()["pcmax-uniform"](seed=3)))
    assert json.loads(run_cli("solve", path, "--json").stdout)["solver"] == "portfolio"
