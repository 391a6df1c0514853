"""The benchmarks' own safety nets: an interrupted run resumes without losing
or duplicating rows, and a disagreement between the exact backends aborts."""

import json

import pytest

from schedbench.bench.mosp_solvers import check_agreement
from schedbench.bench.results_log import append_row, resume


def test_resume_drops_a_cut_line_and_foreign_rows(tmp_path):
    path = tmp_path / "run.jsonl"
    for name in ("a", "b", "a"):
        append_row(path, {"name": name, "value": len(name)})
    path.write_text(path.read_text() + '{"name": "c", "val')  # interrupted mid-line
    rows = resume(path, {"a", "c"})
    assert rows == [{"name": "a", "value": 1}]
    append_row(path, {"name": "c", "value": 1})
    assert [json.loads(line)["name"] for line in path.read_text().splitlines()] == ["a", "c"]


def _row(solver, status, objective, bound):
    return {"instance": "x", "solver": solver, "status": status, "objective": objective, "bound": bound}


def test_backends_must_agree():
    assert check_agreement([_row("cpsat", "optimal", "7", "7"), _row("milp", "optimal", "7", "7")]) == 1
    assert check_agreement([_row("cpsat", "optimal", "7", "7"), _row("milp", "feasible", "8", "6")]) == 0
    for milp in (_row("milp", "optimal", "6", "6"), _row("milp", "feasible", "8", "8"),
                 _row("milp", "feasible", "6", "5")):
        with pytest.raises(SystemExit, match="disagree"):
            check_agreement([_row("cpsat", "optimal", "7", "7"), milp])

