"""The Python API tutorial runs as written: its code blocks, in order, in one
namespace, in an empty directory."""

import re

from conftest import REPO

TUTORIAL = REPO / "docs" / "tutorials" / "python-api.md"


def test_the_python_api_tutorial_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", TUTORIAL.read_text(), re.S)
    assert len(blocks) >= 5
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(TUTORIAL), "exec"), namespace)
    assert (tmp_path / "lpt.pdf").stat().st_size > 1000
