"""The layers as rules: import-linter's contracts (``[tool.importlinter]`` in
pyproject.toml) hold, and no import circle exists among the project's
modules, checked on the package as installed."""

import json
import os
import subprocess
import sys

import networkx as nx
import pytest

from conftest import REPO, package_tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return package_tree(tmp_path_factory.mktemp("installed"))


def test_import_linter_contracts_hold(tree):
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                                                 "lint_imports_command()", str(REPO / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, env=env, cwd=tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 broken." in done.stdout


def test_no_import_circle_among_the_modules(tree):
    script = ("import grimp, json; g = grimp.build_graph('schedbench', exclude_type_checking_imports=True); "
              "print(json.dumps([[m, i] for m in g.modules for i in g.find_modules_directly_imported_by(m)]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree, check=True)
    graph = nx.DiGraph(json.loads(done.stdout))
    layers = {module.split(".")[1] for module in graph if module.count(".") >= 1}
    assert {"model", "validator", "metrics", "heuristics", "solvers", "instances", "registry", "harness"} <= layers
    cycles = sorted(nx.simple_cycles(graph), key=len)
    assert not cycles, f"{len(cycles)} import circles, the shortest: {' -> '.join(cycles[0])}"
