import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(params=["cpsat", "milp"])
def solver(request):
    """Every exact test runs on both backends (PyJobShop's solver fixture)."""
    return request.param


def run_cli(*args, stdin=None):
    """Run the installed command line in a subprocess, as a user would."""
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
