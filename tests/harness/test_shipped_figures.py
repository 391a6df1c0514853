"""Every figure of every shipped experiment, drawn from a store of its own cells.

Running the experiments takes minutes, so each experiment's quick
expansion is stored with results borrowed: of each kind of cell (family,
generator, heuristic or solver, objective, metrics asked) one runs for
real, on the first instance that asks for it, and every other cell of
that kind gets a copy of its row under its own cell id, algorithm,
options, size and seed. Every value then has its
real type and shape (a number, a list, a table), and what is tested is
the path from the store to the figure: each figure selects cells, draws
a value for every series it shows, writes its CSV and reads its
statements.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from schedbench.harness import plots
from schedbench.harness.cells import run_task
from schedbench.harness.experiment import load
from schedbench.harness.store import canonical

EXPERIMENTS = sorted((Path(__file__).resolve().parents[2] / "bench" / "experiments").glob("*.toml"))


def stand_in_rows(experiment) -> list[dict]:
    ran: dict[tuple, dict] = {}
    rows = []
    for task in experiment.tasks:
        if task.instance.generator == "claims":
            continue
        for cell in task.cells:
            spec = cell.instance
            kind = (spec.family, spec.generator, cell.kind, cell.objective, cell.metrics)
            if kind not in ran:
                [ran[kind]] = run_task(replace(task, cells=(cell,)))
            rows.append({**ran[kind], "cell_id": cell.cell_id, "algorithm": cell.algorithm,
                         "options": canonical(cell.options), "params": canonical(spec.params),
                         "size": canonical(spec.size), "seed": spec.seed,
                         "instance_hash": f"{spec.generator}/{canonical(spec.params)}/{spec.seed}"})
    return rows


@pytest.mark.parametrize("path", [p for p in EXPERIMENTS if "[[figure]]" in p.read_text()], ids=lambda p: p.stem)
def test_every_shipped_figure_draws_from_a_store(path, tmp_path):
    experiment = load(path, quick=True)
    rows = plots.figure_rows(stand_in_rows(experiment))
    figures = [spec for _, spec in plots.figure_specs([{"experiment": experiment.name,
                                                        "experiment_text": experiment.text}])]
    assert figures
    for spec in figures:
        drawn = plots.draw(spec, rows, tmp_path)
        drawn_rows = [r for r in drawn.shown if r["n"]]
        assert drawn_rows, f"{path.stem}: figure {spec['name']} selects no cell with a value"
        assert drawn.png.stat().st_size > 5000 and drawn.csv.read_text().startswith("series,")
        assert len(drawn.statements) == len(spec.get("statements", []))
