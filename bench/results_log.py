"""Resumable benchmark runs: one JSON line per finished task, appended as it
finishes, so an interrupted run resumes with the tasks not yet done."""

import json
from collections.abc import Callable, Hashable
from operator import itemgetter
from pathlib import Path


def resume(path: Path | None, wanted: set, key: Callable[[dict], Hashable] = itemgetter("name")) -> list[dict]:
    """The rows of an earlier run whose ``key`` is in ``wanted`` (the last one
    per key), and the file rewritten with just them: a line cut short by an
    interrupt is dropped, so it cannot glue onto the next line appended."""
    if path is None:
        return []
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
                name = key(row)
            except (json.JSONDecodeError, KeyError):
                continue
            if name in wanted:
                rows[name] = row
    path.write_text("".join(json.dumps(row) + "\n" for row in rows.values()))
    return list(rows.values())


def append_row(path: Path | None, row: dict) -> None:
    """Record one finished task (nothing without a results file)."""
    if path is not None:
        with path.open("a") as out:
            out.write(json.dumps(row) + "\n")
