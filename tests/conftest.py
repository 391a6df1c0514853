import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from hypothesis import settings

from schedbench.families import model_backends

#: Property-based tests (tests/contract/test_properties.py): "ci", the default, draws
#: the same examples on every run (a failure is reproducible as it is
#: reported); HYPOTHESIS_PROFILE=explore searches afresh each time, for a
#: developer hunting new failures (keep each as an @example).
settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
#: A small workload in the Standard Workload Format, written for the tests
#: (the test suite reads nothing outside the repository).
SAMPLE_TRACE = REPO / "tests" / "data" / "sample.swf"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``timing`` asserts wall-clock seconds (``--time-limit T``
    returns within T + 2 s, a passed deadline answers at once), which hold
    only with the machine to itself: under pytest-xdist (``-n``) another
    worker's solves share its cores. Such a test fails there, saying so,
    instead of passing or failing with the load; the README's test command
    runs them alone after the others."""
    if item.get_closest_marker("timing") and hasattr(item.config, "workerinput"):
        pytest.fail("a timing test asserts wall-clock seconds and cannot share the machine with pytest -n "
                    "workers: run it alone (python -m pytest -m timing)", pytrace=False)


@pytest.fixture(params=model_backends())
def solver(request):
    """Every exact test runs on each backend every family takes, from the
    registry (PyJobShop's solver fixture)."""
    return request.param


#: Commands that start worker processes run as a user runs them, in a
#: subprocess: the kill tests need one, and its workers import everything afresh.
POOLED = ("run", "worst")


def _pooled(args: list[str]) -> bool:
    return bool(args) and (args[0] in POOLED or "--workers" in args or "--cluster" in args)


def run_cli(*args, stdin=None) -> subprocess.CompletedProcess:
    """The command line as a user runs it, through its entry point ``main``:
    in this process (a second faster than a new interpreter importing
    OR-Tools), or in a subprocess for commands that start workers."""
    args = [str(a) for a in args]
    if _pooled(args):
        return run_process(*args, stdin=stdin)
    from click.testing import CliRunner

    from schedbench.cli import main

    argv, code = sys.argv, 0
    with CliRunner().isolation(input=stdin) as (out, err, _):
        sys.argv = ["schedbench", *args]
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except Exception:  # what a subprocess would die of: a traceback and exit 1
            traceback.print_exc()
            code = 1
        finally:
            sys.argv = argv
            sys.stdout.flush()  # print() and tracebacks sit in the text wrappers until flushed
            sys.stderr.flush()
        return subprocess.CompletedProcess(args, code, out.getvalue().decode(), err.getvalue().decode())


def run_process(*args, stdin=None) -> subprocess.CompletedProcess:
    """The installed command line in a subprocess: for what only a process
    shows (wall time from start to exit, worker processes)."""
    return subprocess.run([sys.executable, "-c", "from schedbench.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, input=stdin)


def write_json(tmp_path, name, obj):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return path


def assert_rejected(document: dict, change, field: str) -> None:
    """``change`` applied to a copy of a valid instance document must be
    rejected with an error naming ``field`` first."""
    import re

    import pytest

    from schedbench.errors import InstanceError
    from schedbench.model import parse_instance

    bad = json.loads(json.dumps(document))
    change(bad)
    with pytest.raises(InstanceError, match="^" + re.escape(field) + ":"):
        parse_instance(bad)


def package_tree(target: Path) -> Path:
    """The package laid out as installed (``schedbench/solvers/`` ... from
    pyproject's package-dir), copied under ``target``: what import-linter
    and a toy family's doors see, where the editable install only maps the
    folders."""
    from bench.package_tree import package_tree as laid_out

    return laid_out(REPO, target, copy=True)
