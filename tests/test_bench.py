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


def test_workflow_figure_cells_are_pure_and_tabulate_after_a_json_round_trip():
    from schedbench.bench.workflow_figures import CCR, NORMAL, figure_table, shape_table, trial

    normal = trial("normal", 0, 40)
    assert normal == trial("normal", 0, 40)  # a pure function of its inputs: resumable, cacheable
    # estimate-blind policies run once (level 0); the three that read estimates at every level
    assert len(normal["cells"]) == 7 + 3 * (len(NORMAL) - 1)
    ccr = trial("ccr", 1, 40)
    assert len(ccr["cells"]) == 7 * len(CCR) and all(c["max_slr"] >= 1 for c in ccr["cells"].values())
    rows = [json.loads(json.dumps(normal))]
    assert figure_table("normal", rows, "gini").count("\n") == len(NORMAL) + 1
    assert "| pslr |" in shape_table(rows)
