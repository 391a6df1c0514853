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


def _project_modules():
    """(path, syntax tree) of every module the package installs, and of bench/."""
    import ast

    for folder in ("schedbench", "solvers", "heuristics", "instances", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            yield path, ast.parse(path.read_text())


def test_no_function_is_longer_than_60_lines():
    import ast

    long = [f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path, tree in _project_modules() for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60]
    assert not long, long


def test_no_module_is_found_by_a_family_name():
    """Family modules are reached through the registry; the only
    ``import_module`` calls left scan a package (``schedbench.model.discovery``,
    the registry and the commands: ``{__name__}.{info.name}``),
    load a user's file (user_code) or the front door's exports on first use."""
    import ast

    lookups = []
    for path, tree in _project_modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "import_module":
                text = ast.unparse(node.args[0])
                if text not in ("f'{package.__name__}.{info.name}'", "f'{__name__}.{info.name}'", "_EXPORTS[name]") \
                        and path.name != "user_code.py":
                    lookups.append(f"{path.relative_to(REPO)}:{node.lineno} import_module({text})")
    assert not lookups, lookups
