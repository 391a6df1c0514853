"""The suite's own rules: a test that asserts wall-clock seconds is marked
``timing`` (the README runs those alone, the others on two cores), and a
timing test run under pytest-xdist fails, saying why, instead of passing or
failing with the load."""

import ast
import subprocess
import sys
from pathlib import Path

from conftest import REPO

TESTS = REPO / "tests"


def _marked_timing(decorators: list[ast.expr]) -> bool:
    return any("timing" in ast.unparse(d) for d in decorators)


def _asserts_a_clock(node: ast.AST) -> bool:
    """An ``assert`` over ``time.monotonic() - began`` (or ``perf_counter``)
    anywhere in ``node``, the form the suite's time assertions take; a
    deadline already passed (``time.monotonic() - 1``) measures nothing."""
    for found in ast.walk(node):
        if isinstance(found, ast.Assert):
            for part in ast.walk(found.test):
                if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Sub) \
                        and not isinstance(part.right, ast.Constant) \
                        and any(clock in ast.unparse(part.left) for clock in ("monotonic()", "perf_counter()")):
                    return True
    return False


def _unmarked_clock_tests(path: Path) -> list[str]:
    """The tests of the file at ``path`` that assert the clock unmarked."""
    module = ast.parse(path.read_text())
    if any(isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "pytestmark" and "timing" in ast.unparse(n.value)
           for n in module.body):
        return []
    return [n.name for n in module.body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
            and _asserts_a_clock(n) and not _marked_timing(n.decorator_list)]


def test_every_test_that_asserts_the_clock_is_marked_timing():
    unmarked = [f"{path.relative_to(REPO)}::{name}" for path in sorted(TESTS.rglob("test_*.py"))
                for name in _unmarked_clock_tests(path)]
    assert unmarked == []


def test_the_rule_finds_an_unmarked_clock_assertion(tmp_path):
    path = tmp_path / "test_example.py"
    path.write_text("import time\nimport pytest\n\n"
                    "def test_fast():\n    began = time.monotonic()\n    assert time.monotonic() - began < 1\n\n"
                    "@pytest.mark.timing\ndef test_marked():\n    began = time.monotonic()\n"
                    "    assert time.monotonic() - began < 1\n\n"
                    "def test_a_passed_deadline():\n    assert time.monotonic() - 1 > 0\n\n"
                    "def test_slow():\n    began = time.perf_counter()\n    assert 2 > time.perf_counter() - began\n")
    assert _unmarked_clock_tests(path) == ["test_fast", "test_slow"]
    path.write_text("import pytest\npytestmark = pytest.mark.timing\n" + path.read_text())
    assert _unmarked_clock_tests(path) == []


def test_a_timing_test_under_xdist_fails_saying_why():
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider",
                          "tests/contract/test_race.py::test_a_moot_question_is_stopped_at_once"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 1 and "cannot share the machine with pytest -n workers" in out.stdout, out.stdout[-2000:]
