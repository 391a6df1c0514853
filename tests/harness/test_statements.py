"""A paper's statements about a figure, checked on the numbers it draws."""

from fractions import Fraction as F

import pytest

from schedbench.harness import plots
from schedbench.harness.statements import HOLDS, NO_DATA, VIOLATED, check_statements, verdicts
from schedbench.errors import UserInputError

# Two curves over x = 1..5: "dip" has a local minimum at 3, "flat" rises.
CURVES = {"dip": [5, 4, 2, 3, 1], "flat": [1, 2, 3, 4, 6]}


def shown(curves=CURVES) -> list[dict]:
    return [{"series": name, "x": str(x), "at": x, "n": 3, "exact": F(y)}
            for name, ys in curves.items() for x, y in enumerate(ys, 1)]


def paired(p: float, difference: float, x: str = "1") -> dict:
    return {"x": x, "a": "dip", "b": "flat", "pairs": 3, "mean_difference": difference, "t": 0.0, "p": p}


def verdict(statement: dict, figure: dict | None = None, tests=()) -> str:
    spec = {"name": "f", "kind": "line", "x": "seed", "y": "value", "series": "algorithm", **(figure or {}),
            "statements": [{"claim": "c", "text": "t", **statement}]}
    check_statements(spec, "figure[0]")
    return verdicts(spec, shown(), list(tests))[0]["verdict"]


def test_local_minima_are_found_where_they_are_and_nowhere_else():
    assert verdict({"test": "local-minimum", "series": ["dip"], "at": ["2", "3"]}) == HOLDS
    assert verdict({"test": "local-minimum", "series": ["dip"], "at": ["4"]}) == VIOLATED
    assert verdict({"test": "local-minimum", "at": ["3"]}) == VIOLATED    # every series: "flat" has none
    assert verdict({"test": "no-local-minimum", "series": ["flat"]}) == HOLDS
    assert verdict({"test": "no-local-minimum"}) == VIOLATED


def test_orderings_read_every_named_x():
    assert verdict({"test": "below", "series": ["flat"], "than": ["dip"], "at": ["1", "2"]}) == HOLDS
    assert verdict({"test": "below", "series": ["flat"], "than": "others"}) == VIOLATED   # not at 5 (6 > 1)
    assert verdict({"test": "above", "series": ["dip"], "than": ["flat"], "at": ["1", "2"]}) == HOLDS


def test_significance_reads_the_paired_tests_and_their_direction():
    figure = {"compare": ["dip", "flat"]}
    assert verdict({"test": "not-significant"}, figure, [paired(0.3, 1.0)]) == HOLDS
    assert verdict({"test": "not-significant"}, figure, [paired(0.01, 1.0)]) == VIOLATED
    assert verdict({"test": "significant", "direction": "above"}, figure, [paired(0.01, 1.0)]) == HOLDS
    assert verdict({"test": "significant", "direction": "below"}, figure, [paired(0.01, 1.0)]) == VIOLATED


def test_a_statement_on_missing_data_says_so():
    assert verdict({"test": "local-minimum", "series": ["gone"]}) == NO_DATA
    assert verdict({"test": "local-minimum", "series": ["dip"], "at": ["9"]}) == NO_DATA
    assert verdict({"test": "not-significant"}, {"compare": ["dip", "flat"]}) == NO_DATA


@pytest.mark.parametrize("statement, field", [
    ({"test": "minimum"}, r"statements\[0\]\.test: must be one of"),
    ({"test": "below", "series": ["a"]}, r"statements\[0\]\.than: a below statement needs"),
    ({"test": "significant"}, r"statements\[0\]\.test: significant reads the figure's paired test"),
    ({"test": "local-minimum", "at": [3]}, r"statements\[0\]\.at: must be a list of labels"),
    ({"test": "local-minimum", "colour": 1}, r"statements\[0\]\.colour: unknown key"),
])
def test_malformed_statements_name_their_field(statement, field):
    spec = {"name": "f", "kind": "line", "x": "seed", "y": "value", "series": "algorithm",
            "statements": [{"claim": "c", "text": "t", **statement}]}
    with pytest.raises(UserInputError, match=r"^figure\[0\]\." + field):
        plots.check_figure(spec, "figure[0]")


def test_drawn_figures_carry_their_verdicts_in_the_csv(tmp_path):
    rows = [{"kind": "heuristic", "algorithm": name, "seed": x, "value": str(y), "status": "feasible",
             "params": "{}", "instance_hash": f"{name}{x}"}
            for name, ys in CURVES.items() for x, y in enumerate(ys, 1)]
    spec = {"name": "f", "kind": "line", "x": "seed", "y": "value", "series": "algorithm",
            "statements": [{"claim": "paper.dip", "text": "dips at 3", "test": "local-minimum", "series": ["dip"],
                            "at": ["3"]}]}
    plots.check_figure(spec, "figure[0]")
    drawn = plots.draw(spec, rows, tmp_path)
    assert [(s["claim"], s["verdict"]) for s in drawn.statements] == [("paper.dip", HOLDS)]
    assert "paper.dip,local-minimum,holds" in drawn.csv.read_text()
