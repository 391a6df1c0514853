"""A family is one module per layer and one declaration: the toy family of
docs/tutorials/extending.md, written from the tutorial's own code blocks
into a copy of the package (new files only, no shared file edited), is
reached by every door."""

import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from conftest import REPO, package_tree

TUTORIAL = REPO / "docs" / "tutorials" / "extending.md"


def _tutorial_files() -> dict[str, str]:
    """Each ```python block of the tutorial that starts with ``# PATH``, by PATH."""
    blocks = re.findall(r"```python\n# (\S+\.py)\n(.*?)```", TUTORIAL.read_text(), re.S)
    return {path: text for path, text in blocks if "toy" in path}


def _installed(path: str) -> str:
    """Where a file of the repository sits in the installed package."""
    folders = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    package, folder = max(((p, f) for p, f in folders.items() if path.startswith(f + "/")), key=lambda pf: len(pf[1]))
    return package.replace(".", "/") + path.removeprefix(folder)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    tree = package_tree(tmp_path_factory.mktemp("with_toy"))
    files = _tutorial_files()
    assert len(files) == 8, sorted(files)  # model, validator, metrics, heuristics, solvers, instances, summaries, registry
    for path, text in files.items():
        target = tree / _installed(path)
        assert not target.exists(), f"the tutorial edits {path}, which exists: a family touches only its places"
        target.write_text(text)
    return tree


def _door(toy, work, *args) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", "from schedbench.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, cwd=work, env={**os.environ, "PYTHONPATH": str(toy)})
    assert done.returncode == 0, (args, done.stderr)
    return done


def test_every_door_reaches_the_toy_family(toy, tmp_path):
    _door(toy, tmp_path, "generate", "toy-uniform", "--seed", "3", "--jobs", "4", "-o", "toy.json")
    assert json.loads(_door(toy, tmp_path, "schema", "toy").stdout)["properties"]["family"] == {
        "description": "The family's name.", "enum": ["toy"]}
    for backend in ("cpsat", "milp"):
        solved = json.loads(_door(toy, tmp_path, "solve", "toy.json", "--solver", backend, "--json").stdout)
        assert solved["status"] == "optimal" and solved["proof"] == ["spt-formula"]
    ran = json.loads(_door(toy, tmp_path, "heuristic", "in-order", "toy.json", "--json").stdout)
    assert ran["metrics"]["sum_completion"] >= ran["metrics"]["optimum"]
    (tmp_path / "schedule.json").write_text(json.dumps(ran["schedule"]))
    assert _door(toy, tmp_path, "validate", "toy.json", "schedule.json").stdout == "valid\n"
    worst = json.loads(_door(toy, tmp_path, "worst", "in-order", "--family", "toy", "--budget", "3",
                             "--max-jobs", "4", "--json").stdout)
    assert worst["evaluated"] >= 1
    (tmp_path / "toy.toml").write_text('[[grid]]\nfamily = "toy"\ngenerator = "toy-uniform"\nseeds = 2\n'
                                       'heuristics = ["in-order"]\nsolvers = [{ name = "cpsat", time_limit = 5 }]\n')
    _door(toy, tmp_path, "run", "toy.toml", "--store", "toy.sqlite", "--workers", "1", "--no-progress")
    assert "in-order" in _door(toy, tmp_path, "table", "toy.sqlite").stdout
