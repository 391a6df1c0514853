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


#: The heavy libraries, imported once by the parent before it forks: each child then
#: imports only the project's modules (7.7 s for the solvers' modules, 28.6 s without).
SHARED_LIBRARIES = ["numpy", "scipy.sparse", "networkx", "pulp", "ortools.sat.python.cp_model",
                    "ortools.linear_solver.pywraplp"]

#: Imports the libraries, then each module first in a forked child of its own, naming those that fail.
EACH_ALONE = """import importlib, json, os, sys
for library in json.loads(sys.argv[2]):
    importlib.import_module(library)
for name in json.loads(sys.argv[1]):
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException as error:
            print(f'{name}: {error!r}', flush=True)
            os._exit(1)
        os._exit(0)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code not in (0, 1):  # 1: the child named its error; else it crashed (a signal: negative)
        print(f'{name}: its child ended with {code}', flush=True)
"""


def test_every_solver_module_imports_first_in_a_process_of_its_own(tree):
    """A circle through a package's ``__init__`` breaks only the import that
    enters it from the other side, which the graph above does not show
    (importing ``a.b.c`` runs ``a.b`` first): a model that reads its
    family's structure, in a package whose ``__init__`` takes the model's
    names, failed to import for a user who imported the model first. The
    solvers are where a family's solver and its models import each other
    (pyproject's contracts), and a child's import costs about 0.1 s (the
    registry's 0.4): in a one-off check of every module of the package
    imported so (2026-12-04), only those two failed."""
    modules = sorted(".".join(path.relative_to(tree).with_suffix("").parts).removesuffix(".__init__")
                     for path in (tree / "schedbench" / "solvers").rglob("*.py"))
    assert len(modules) > 40 and "schedbench.solvers.milp.pcmax_partition" in modules
    done = subprocess.run([sys.executable, "-c", EACH_ALONE, json.dumps(modules), json.dumps(SHARED_LIBRARIES)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree,
                          timeout=300)
    assert done.returncode == 0 and not done.stdout, done.stdout + done.stderr


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
