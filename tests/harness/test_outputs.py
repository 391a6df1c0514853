"""Tables, figures, the HTML report and its screenshot check, on a store filled
by hand with values whose ratios, means, percentiles and intervals are
computed here by hand."""

import base64
import csv
import io
import json
import re
from fractions import Fraction as F

import pytest

from conftest import run_cli, write_json
from bench import screenshot
from schedbench.harness import analysis, html_report, plots, tables
from schedbench.harness.store import NAMES, Store, canonical
from schedbench.errors import UserInputError

T_975_1 = 12.706204736174707   # Student t quantile 0.975, 1 degree of freedom
T_975_2 = 4.302652729749464    # 2 degrees of freedom

EXPERIMENT_TEXT = """
name = "exp1"
[[grid]]
family = "pcmax"
generator = "pcmax-uniform"
[[figure]]
name = "line"
title = "ratio to bound <by size>"
kind = "line"
where = { kind = "heuristic", family = "pcmax" }
x = "size.jobs"
y = "ratio_to_bound"
series = "algorithm"
[[figure]]
name = "hist"
kind = "hist"
where = { family = "pcmax" }
y = "ratio_to_optimum"
series = "algorithm"
bins = 5
[[figure]]
name = "bar"
kind = "bar"
where = { family = ["pcmax", "knapsack"] }
y = "ratio_to_optimum"
series = "algorithm"
[[figure]]
name = "box"
kind = "box"
where = { family = "pcmax" }
x = "size.jobs"
y = "ratio_to_bound"
series = "algorithm"
"""

COUNTEREXAMPLE = {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3, 3, 2, 2, 2]}
CLAIMS = [
    [{"key": "mosp.ilba-ratio", "statement": "ILBA <= 3/2 & LPT-LPT < 2", "tried": 10, "skipped": 1,
      "violations": 0, "ratios": ["5/4", "4/3"], "counterexamples": []},
     {"key": "mosp.lpt-lpt", "statement": "LPT-LPT is optimal", "tried": 5, "skipped": 0, "violations": 1,
      "ratios": ["2"], "counterexamples": [{"name": "lpt-lpt-cx", "instance": COUNTEREXAMPLE}]}],
    [{"key": "mosp.ilba-ratio", "statement": "ILBA <= 3/2 & LPT-LPT < 2", "tried": 7, "skipped": 2,
      "violations": 0, "ratios": ["3/2"], "counterexamples": []}],
]

EMPTY = dict.fromkeys(NAMES)


def row(kind, algorithm, instance, value, bound=None, status=None, **extra):
    """One stored cell; ``instance`` is a short name standing for its hash."""
    family = extra.pop("family", "pcmax")
    size = extra.setdefault("size", canonical({"jobs": 4}))
    out = {**EMPTY, "cell_id": f"{kind}-{algorithm}-{instance}-{extra.get('objective', '')}-{size}",
           "experiment": "exp1",
           "family": family, "generator": "pcmax-uniform" if family == "pcmax" else "knapsack-random",
           "params": "{}", "seed": 0, "instance_hash": instance,
           "instance_name": instance, "objective": "makespan", "sense": "min", "kind": kind,
           "algorithm": algorithm, "options": "{}", "status": status or ("feasible" if kind == "heuristic" else
                                                                        "optimal"),
           "value": None if value is None else str(F(value)), "bound": None if bound is None else str(F(bound)),
           "wall_time": 0.5, "machine": "test", "run_id": 1}
    out.update(extra)
    return out


def knapsack(kind, algorithm, instance, value, bound=None, status=None):
    return row(kind, algorithm, instance, value, bound, status, family="knapsack", objective="profit",
               sense="max", size=canonical({"items": 5}))


ROWS = [
    # pcmax, jobs = 4: optima 4 and 8 proven, C only bounded (10 <= OPT <= 12)
    row("solver", "cpsat", "A", 4, 4), row("solver", "milp", "A", 4, 4), row("solver", "cpsat", "B", 8, 8),
    row("solver", "cpsat", "C", 12, 10, status="feasible"),
    row("heuristic", "lpt", "A", 4, 3), row("heuristic", "lpt", "B", 10, 7), row("heuristic", "lpt", "C", 15, 9),
    row("heuristic", "list", "A", 5, 3), row("heuristic", "list", "B", 12, 7), row("heuristic", "list", "C", 12, 9),
    row("heuristic", "list", None, None, status="error", error="ValueError: generator <refused>", seed=7),
    # pcmax, jobs = 6: one instance
    row("solver", "cpsat", "D", 6, 6, size=canonical({"jobs": 6})),
    row("heuristic", "lpt", "D", 6, 5, size=canonical({"jobs": 6})),
    # knapsack profit (maximized): K3 only bounded (18 <= OPT <= 30)
    knapsack("solver", "cpsat", "K1", 10, 10), knapsack("solver", "cpsat", "K2", 20, 20),
    knapsack("solver", "cpsat", "K3", 18, 30, status="feasible"),
    knapsack("heuristic", "greedy_ratio", "K1", 8, 12), knapsack("heuristic", "greedy_ratio", "K2", 20, 25),
    knapsack("heuristic", "greedy_ratio", "K3", 15, 32),
    # two runs of one family's claims ledger: a full one and a quick one (the same constructions, fewer)
    *({**EMPTY, "cell_id": f"claims-{i}", "experiment": "exp1", "family": "mosp", "generator": "claims",
       "params": canonical({"instances": instances, "seed": 0, "solver": "cpsat"}), "kind": "claims",
       "algorithm": "mosp", "status": "done", "metrics": canonical({"claims": claims}), "wall_time": 2.0,
       "run_id": 1} for i, (claims, instances) in enumerate(zip(CLAIMS, (1000, 10)))),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    with Store(path) as db:
        db.add_run({"experiment": "exp1", "experiment_text": EXPERIMENT_TEXT, "quick": 0,
                    "command": "schedbench run exp1.toml", "started_at": "2025-01-01T00:00:00+00:00",
                    "machine": "test box", "versions": json.dumps({"python": "3.11", "schedbench": "0.1.0"})})
        db.add(ROWS)
        db.add_members("exp1", False, [r["cell_id"] for r in ROWS])
    return path


@pytest.fixture(scope="module")
def report(store, tmp_path_factory):
    return html_report.write_report(store, tmp_path_factory.mktemp("report"))


def by_key(ratios):
    return {(r["algorithm"], r["instance_hash"]): r for r in ratios}


def test_ratio_rows_join_heuristics_to_optima_and_tightest_bounds():
    ratios = by_key(analysis.ratio_rows(ROWS))
    expected = {("lpt", "A"): (1, 1), ("lpt", "B"): (F(5, 4), F(5, 4)), ("lpt", "C"): (None, F(3, 2)),
                ("list", "A"): (F(5, 4), F(5, 4)), ("list", "B"): (F(3, 2), F(3, 2)), ("list", "C"): (None, F(6, 5)),
                ("list", None): (None, None), ("lpt", "D"): (1, F(1)),
                ("greedy_ratio", "K1"): (F(4, 5), F(4, 5)), ("greedy_ratio", "K2"): (1, 1),
                ("greedy_ratio", "K3"): (None, F(1, 2))}
    assert {k: (r["ratio_to_optimum"], r["ratio_to_bound"]) for k, r in ratios.items()} == expected
    assert ratios[("lpt", "C")]["best_bound"] == 10   # the solver's 10 beats the cheap bound 9
    assert ratios[("greedy_ratio", "K3")]["best_bound"] == 30   # upper bounds: the smaller one
    assert all(isinstance(r["ratio_to_bound"], F) for r in ratios.values() if r["ratio_to_bound"] is not None)


def test_summaries_are_exact_with_student_t_intervals():
    ratios = analysis.ratio_rows(ROWS)
    lpt4 = [r for r in ratios if r["algorithm"] == "lpt" and r["size"] == canonical({"jobs": 4})]
    to_optimum = analysis.summarize(r["ratio_to_optimum"] for r in lpt4)
    assert (to_optimum.n, to_optimum.mean, to_optimum.worst, to_optimum.percentile, to_optimum.level) == \
        (2, F(9, 8), F(5, 4), F(99, 80), 95)
    assert to_optimum.half_width == pytest.approx(T_975_1 * F(1, 8), rel=1e-9)   # s = 1/(4 sqrt 2), s/sqrt 2 = 1/8
    to_bound = analysis.summarize(r["ratio_to_bound"] for r in lpt4)
    assert (to_bound.n, to_bound.mean, to_bound.worst, to_bound.percentile) == (3, F(5, 4), F(3, 2), F(59, 40))
    assert to_bound.half_width == pytest.approx(T_975_2 * (1 / 48) ** 0.5, rel=1e-9)   # s^2 = 1/16
    single = analysis.summarize([F(7, 6)])
    assert (single.mean, single.worst, single.percentile, single.half_width) == (F(7, 6), F(7, 6), F(7, 6), None)
    assert analysis.summarize([None]) is None


@pytest.mark.timing
def test_a_mean_of_many_distinct_large_denominators_is_exact_and_fast():
    """6,000 values with distinct ~107-bit denominators (like a MOSP Fig. 9
    point's Jain indices): the mean is the exact one, the figure's mpq mean
    equals it, the float half-width agrees with the exact variance's, within
    seconds (the exact variance of 6,400 took 8.7 s, growing faster than n)."""
    import random
    import time

    draw = random.Random(9)
    values = [F(draw.getrandbits(100), draw.getrandbits(107) | 1) for _ in range(6_000)]
    began = time.monotonic()
    mean, exact_mean = analysis.mean(values), analysis.rational_mean(values)
    width = analysis.half_width(values)
    assert time.monotonic() - began < 5
    head = values[:300]
    assert analysis.mean(head) == sum(head, F(0)) / 300 and exact_mean == mean
    assert F(int(exact_mean.numerator), int(exact_mean.denominator)) == mean and isinstance(mean.numerator, int)
    head_mean = analysis.mean(head)
    variance = sum((v - head_mean) ** 2 for v in head) / 299   # the exact formula on a part
    assert analysis.half_width(head) == pytest.approx(_t975(299) * (float(variance) / 300) ** 0.5, rel=1e-9)
    assert 0 < width < analysis.half_width(head)


def _t975(degrees: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, degrees))


def test_maximized_objective_worst_is_the_minimum_and_the_tail_the_5th_percentile():
    greedy = [r for r in analysis.ratio_rows(ROWS) if r["algorithm"] == "greedy_ratio"]
    to_optimum = analysis.summarize((r["ratio_to_optimum"] for r in greedy), maximized=True)
    assert (to_optimum.mean, to_optimum.worst, to_optimum.percentile, to_optimum.level) == \
        (F(9, 10), F(4, 5), F(81, 100), 5)
    to_bound = analysis.summarize((r["ratio_to_bound"] for r in greedy), maximized=True)
    assert (to_bound.mean, to_bound.worst, to_bound.percentile) == (F(23, 30), F(1, 2), F(53, 100))


def test_contradictions_in_the_store_raise():
    with pytest.raises(analysis.ConflictingResults, match="proven optima differ, 4 .* and 5"):
        analysis.ratio_rows(ROWS + [row("solver", "milp", "A", 5, 5, cell_id="other")])
    with pytest.raises(analysis.ConflictingResults, match="a feasible value 7 beats the proven optimum 8"):
        analysis.ratio_rows(ROWS + [row("heuristic", "spt", "B", 7, 7)])
    with pytest.raises(analysis.ConflictingResults, match="a bound 9 lies beyond the proven optimum 8"):
        analysis.ratio_rows(ROWS + [row("solver", "milp", "B", 10, 9, status="feasible")])
    with pytest.raises(analysis.ConflictingResults, match="a bound 9 lies beyond the proven optimum 10"):
        analysis.ratio_rows(ROWS + [knapsack("heuristic", "greedy", "K1", 10, 9)])


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_ratio_table_in_three_formats():
    ratios = analysis.ratio_rows(ROWS)
    made = tables.ratio_tables(ratios)
    assert [t.title.split(":")[0] for t in made] == ["Minimized objectives", "Maximized objectives"]
    records = {(r["algorithm"], r["size"]): r for r in csv_rows(tables.render(made, "csv"))}
    lpt = records[("lpt", "jobs=4")]
    assert (lpt["n"], lpt["optimum_n"], lpt["bound_n"]) == ("3", "2", "3")
    assert (lpt["optimum_mean_exact"], lpt["optimum_worst_exact"], lpt["optimum_p95_exact"]) == ("9/8", "5/4", "99/80")
    assert float(lpt["optimum_mean"]) == 1.125 and float(lpt["optimum_p95"]) == 99 / 80
    assert float(lpt["optimum_mean_ci95"]) == pytest.approx(T_975_1 / 8, rel=1e-9)
    assert (lpt["bound_mean_exact"], lpt["bound_worst_exact"], lpt["bound_p95_exact"]) == ("5/4", "3/2", "59/40")
    assert records[("list", "jobs=4")]["n"] == "3"   # the cell in error is not counted
    one = records[("lpt", "jobs=6")]
    assert (one["optimum_mean_exact"], one["optimum_mean_ci95"]) == ("1", "")
    greedy = records[("greedy_ratio", "items=5")]
    assert (greedy["sense"], greedy["optimum_worst_exact"],
            greedy["optimum_p5_exact"], greedy["optimum_p95_exact"]) == ("max", "4/5", "81/100", "")
    assert (greedy["bound_mean_exact"], greedy["bound_p5_exact"]) == ("23/30", "53/100")

    markdown = tables.render(made, "markdown")
    assert "| pcmax | pcmax-uniform | jobs=4 | makespan | min | lpt | 3 | 2 | 1.125 ± 1.588 | 1.250 |" in markdown
    assert "H/OPT worst (min) | H/OPT p5 |" in markdown and "H/OPT worst (max) | H/OPT p95 |" in markdown
    latex = tables.render(made, "latex")
    assert latex.count(r"\toprule") == 2 and latex.count(r"\bottomrule") == 2
    assert r"\begin{tabular}{llllllrrrrrrrrr}" in latex
    assert r"1.125 $\pm$ 1.588" in latex and r"greedy\_ratio" in latex


def test_bound_table():
    (table,) = tables.store_tables(ROWS, "bounds")
    records = {(r["family"], r["size"]): r for r in csv_rows(tables.render([table], "csv"))}
    pcmax = records[("pcmax", "jobs=4")]
    assert (pcmax["instances"], pcmax["optima"], pcmax["gap_mean_exact"], pcmax["gap_max_exact"],
            pcmax["cheap_mean_exact"]) == ("3", "2", "16/15", "6/5", "13/16")
    profit = records[("knapsack", "items=5")]
    assert (profit["instances"], profit["optima"], profit["gap_mean_exact"], profit["gap_max_exact"],
            profit["cheap_mean_exact"]) == ("3", "2", "11/9", "5/3", "49/40")
    assert records[("pcmax", "jobs=6")]["cheap_mean_exact"] == "5/6"


def test_claims_ledger_takes_the_largest_run_of_each_ledger():
    """The quick run tries the same constructions again: adding it would count them twice."""
    ledger = {c["key"]: c for c in analysis.claims_ledger(ROWS)}
    ilba, lpt = ledger["mosp.ilba-ratio"], ledger["mosp.lpt-lpt"]
    assert (ilba["tried"], ilba["skipped"], ilba["violations"], ilba["worst"], ilba["counterexamples"]) == \
        (10, 1, 0, F(4, 3), {})
    assert (lpt["tried"], lpt["violations"], lpt["worst"], lpt["counterexamples"]) == \
        (5, 1, 2, {"lpt-lpt-cx": COUNTEREXAMPLE})


def assert_picture(path, suffix):
    data = path.read_bytes()
    assert data.startswith({"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}[suffix]) and len(data) > 5000, path


def test_plot_command_draws_every_figure(store, tmp_path):
    out = tmp_path / "figures"
    done = run_cli("plot", store, "--out", out)   # "plot STORE" is "plot figures STORE"
    assert done.returncode == 0, done.stderr
    for name in ("line", "hist", "bar", "box"):
        for suffix in ("png", "pdf"):
            assert_picture(out / f"{name}.{suffix}", suffix)
        assert screenshot.emptiness(out / f"{name}.png") is None


def test_plot_refuses_a_statements_file_in_no_directory_before_drawing(store, tmp_path):
    out = tmp_path / "figures"
    done = run_cli("plot", store, "--out", out, "--statements", tmp_path / "none" / "s.md")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "--statements: cannot write" in done.stderr and not out.exists()


def test_median_interval_from_order_statistics():
    # n = 100: the 40th and 61st order statistics (coverage 0.9648); n = 10: 2nd and 9th
    low, high, coverage = analysis.median_interval([F(i) for i in range(1, 101)])
    assert (low, high) == (40, 61) and float(coverage) == pytest.approx(0.9648, abs=1e-4)
    assert analysis.median_interval([F(i) for i in range(10, 0, -1)])[:2] == (2, 9)
    # too few values for 95%: the whole range, with its true coverage 1 - 2^(1-n)
    assert analysis.median_interval([F(3), F(1), F(2)]) == (1, 3, F(3, 4))


def test_median_figure_draws_the_median_and_its_interval(tmp_path):
    rows = [{**row("heuristic", "lpt", f"I{i}", value), "kind": "heuristic"} for i, value in enumerate([1, 2, 100])]
    spec = {"name": "med", "kind": "line", "x": "size.jobs", "y": "value", "series": "algorithm", "stat": "median",
            "yscale": "log"}
    plots.check_figure(spec, "figure[0]")
    assert plots._centre([F(v) for v in (1, 2, 100)], "median") == (2.0, 1.0, 98.0)
    assert plots._centre([F(v) for v in (1, 2, 3)], "mean")[0] == 2.0
    drawn = plots.draw(spec, rows, tmp_path)
    assert_picture(drawn.png, "png")
    assert_picture(drawn.png.with_suffix(".pdf"), "pdf")
    assert [(r["n"], r["centre"], r["low"], r["high"]) for r in drawn.shown] == [(3, 2.0, 1.0, 100.0)]
    assert drawn.csv.read_text().splitlines()[1].startswith("lpt,")


def test_figure_specs_are_checked():
    with pytest.raises(UserInputError, match=r"^figure\[0\]\.kind: must be one of"):
        plots.check_figure({"name": "f", "kind": "pie", "y": "value"}, "figure[0]")
    with pytest.raises(UserInputError, match=r"^figure\[0\]\.where\.colour: unknown field"):
        plots.check_figure({"name": "f", "kind": "hist", "y": "value", "where": {"colour": 1}}, "figure[0]")
    with pytest.raises(UserInputError, match=r"^figure\[0\]\.stat: must be one of mean, median"):
        plots.check_figure({"name": "f", "kind": "line", "x": "seed", "y": "value", "stat": "mode"}, "figure[0]")
    with pytest.raises(UserInputError, match=r"^figure\[0\]\.yscale: must be one of linear, log"):
        plots.check_figure({"name": "f", "kind": "line", "x": "seed", "y": "value", "yscale": "sqrt"}, "figure[0]")


def test_report_is_self_contained(report):
    text = report.read_text()
    assert "<caption>Minimized objectives" in text and "<caption>Bounds" in text
    assert "<td class=\"num\">1.125 ± 1.588</td>" in text
    assert len(re.findall(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]{1000,}"', text)) == 4 + 4  # figures, profiles
    assert (report.parent / "box.pdf").is_file()
    assert "ILBA &lt;= 3/2 &amp; LPT-LPT &lt; 2" in text and '<td class="num">10</td><td class="num">1</td>' in text
    link = re.search(r'<a download="lpt-lpt-cx.json" href="data:application/json;base64,([^"]+)">', text)
    assert json.loads(base64.b64decode(link.group(1))) == COUNTEREXAMPLE
    assert "ValueError: generator &lt;refused&gt;" in text   # the failed cell, escaped
    assert "schedbench run exp1.toml" in text and "test box" in text
    assert not re.search(r'(src|href)="(https?:)?//', text)   # nothing fetched from elsewhere


def test_report_leads_with_the_answer(report):
    """Summary first (claim verdicts, headline ratios, size and cost), then the
    ledger, the families, provenance; long tables folded."""
    text = report.read_text()
    order = [text.index(f'id="{name}"') for name in ("summary", "claims", "provenance")]
    assert order == sorted(order)
    summary = text[order[0]:order[1]]
    assert "claims violated" in summary and "violated (1)" in summary and "<code>mosp.ilba-ratio</code>" in summary
    assert "Heuristic / optimum, per family" in summary
    assert '<details><summary>ratio and bound tables' in text


def test_a_claim_naming_a_heuristic_shows_its_counterexample_as_a_gantt_chart(tmp_path):
    from schedbench.harness.html_report import _smallest, illustrating_heuristic

    assert illustrating_heuristic("mosp.graham.lpt-lpt", "mosp") == "lpt-lpt"
    assert illustrating_heuristic("faircamp.thm1.ext", "campaign") == "faircamp"
    assert illustrating_heuristic("mosp.selfish", "mosp") is None
    found = _smallest({"key": "pcmax.lpt.bound", "family": "pcmax"}, "cx", COUNTEREXAMPLE, tmp_path)
    assert found["heuristic"] == "lpt" and len(base64.b64decode(found["gantt"])) > 1000


def test_a_large_counterexample_is_linked_beside_the_page(store, tmp_path, monkeypatch):
    monkeypatch.setattr(html_report, "INLINE_MAX", 10)   # every counterexample is now "large"
    text = html_report.write_report(store, tmp_path).read_text()
    assert '<a href="counterexamples/lpt-lpt-cx.json">lpt-lpt-cx</a>' in text and "data:application/json" not in text
    assert json.loads((tmp_path / "counterexamples" / "lpt-lpt-cx.json").read_text()) == COUNTEREXAMPLE


def test_report_of_an_empty_store(tmp_path):
    Store(tmp_path / "empty.sqlite").close()
    text = html_report.write_report(tmp_path / "empty.sqlite", tmp_path / "out").read_text()
    assert "This store holds no cells" in text


needs_chromium = pytest.mark.skipif(screenshot.chromium() is None, reason="no chromium binary")


@needs_chromium
def test_screenshot_of_a_report_shows_it(report, tmp_path):
    assert screenshot.main([str(report), str(tmp_path / "shot.png")]) == 0


@needs_chromium
def test_the_report_passes_the_layout_probe_and_a_bad_page_does_not(report, tmp_path):
    assert screenshot.layout_problems(report) == []
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><p style='width: 80px; white-space: nowrap'>"
                   + "a-very-long-unbreakable-word-" * 4 + "</p><img alt='empty' src='data:image/png;base64,'></body></html>")
    problems = screenshot.layout_problems(bad)
    assert "no #summary on the page" in problems
    assert any(p.startswith("text overflows its p") for p in problems)
    assert "figure without a size: empty" in problems


@needs_chromium
def test_screenshot_of_a_blank_page_fails(tmp_path, capsys):
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    assert screenshot.main([str(blank), str(tmp_path / "blank.png")]) == 1
    assert "looks empty" in capsys.readouterr().err


def test_gantt_of_a_hand_made_pcmax_schedule(tmp_path):
    from schedbench.families import gantt_bars
    from schedbench.model import load_instance, load_schedule

    instance = write_json(tmp_path, "i.json", {"family": "pcmax", "format_version": 1, "machines": 2,
                                               "jobs": [3, 2, 2]})
    schedule = write_json(tmp_path, "s.json", {"jobs": [{"machine": 0, "start": 0}, {"machine": 1, "start": 0},
                                                        {"machine": 1, "start": 2}]})
    parsed = load_instance(instance)
    bars = gantt_bars(parsed, load_schedule(parsed, schedule))
    assert sorted((b.start, b.length) for b in bars) == [(0, 2), (0, 3), (2, 2)]   # one bar per job
    done = run_cli("plot", "gantt", instance, schedule, "--out", tmp_path / "g.png")
    assert done.returncode == 0, done.stderr
    assert_picture(tmp_path / "g.png", "png")
    assert screenshot.emptiness(tmp_path / "g.png") is None


def test_an_invalid_schedule_is_drawn_under_its_violation_and_said_on_stderr(tmp_path, monkeypatch):
    """Drawn (that is how one debugs it), never shown as a valid schedule."""
    from schedbench.harness import plots

    instance = write_json(tmp_path, "i.json", {"family": "pcmax", "format_version": 1, "machines": 2,
                                               "jobs": [3, 2, 2]})
    overlap = write_json(tmp_path, "s.json", {"jobs": [{"machine": 0, "start": 0}, {"machine": 0, "start": 1},
                                                       {"machine": 1, "start": 0}]})
    done = run_cli("plot", "gantt", instance, overlap, "--out", tmp_path / "g.png")
    assert done.returncode == 0 and done.stderr.startswith("schedbench: warning: the schedule is invalid"), done.stderr
    assert "overlap" in done.stderr
    assert_picture(tmp_path / "g.png", "png")
    titles = []
    monkeypatch.setattr(plots, "gantt", lambda bars, out, title="": titles.append(title))
    from schedbench.model import load_instance, load_schedule
    parsed = load_instance(instance)
    plots.gantt_of(parsed, load_schedule(parsed, overlap), tmp_path / "h.png", "", "INVALID: overlap")
    assert titles == ["INVALID: overlap\npcmax"]


def test_a_stored_cell_is_checked_as_its_run_checked_it(tmp_path):
    """An optimum of MOSP's unconstrained makespan and a relaxed MOSP
    heuristic's schedule (valid against its own references) were drawn as
    INVALID: checked against SPEC's local constraints, not the cell's rules."""
    import sqlite3

    experiment = tmp_path / "e.toml"
    experiment.write_text('name = "e"\n[[grid]]\nfamily = "mosp"\ngenerator = "mosp-figure1"\n'
                          'objectives = ["unconstrained-makespan"]\nsolvers = [{ name = "cpsat", time_limit = 10 }]\n'
                          '[[grid]]\nfamily = "mosp"\ngenerator = "mosp-small"\nseeds = 6\nheuristics = ["spt-lpt"]\n')
    store = tmp_path / "s.sqlite"
    assert run_cli("run", experiment, "--store", store, "--workers", "1", "--no-progress").returncode == 0
    with sqlite3.connect(store) as db:
        cells = dict(db.execute("SELECT cell_id, status FROM cells"))
    assert {"optimal", "relaxed"} <= set(cells.values())
    for cell, status in cells.items():
        done = run_cli("plot", "gantt", store, "--cell", cell, "--out", tmp_path / f"{cell}.png")
        assert done.returncode == 0 and done.stderr == "", (status, done.stderr)


def test_a_chart_in_no_folder_is_refused_before_any_work(tmp_path):
    """plot gantt --out created a missing folder where table --out refuses (certify --table
    still does: it starts a corpus, whose family folders it makes too)."""
    instance = write_json(tmp_path, "i.json", {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3]})
    schedule = write_json(tmp_path, "s.json", {"jobs": [{"machine": 0, "start": 0}]})
    for args in (("plot", "gantt", instance, schedule, "--out", tmp_path / "none" / "g.png"),
                 ("generate", "pcmax-uniform", "--out", tmp_path / "none" / "i.json")):  # was a traceback
        done = run_cli(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "--out: cannot write" in done.stderr and not (tmp_path / "none").exists(), done.stderr


def test_gantt_of_a_stored_cell(tmp_path):
    from schedbench.harness.cells import instance_hash
    from schedbench.families import generators
    from schedbench.model import schedule_to_json
    from schedbench.schedule import Schedule, back_to_back

    instance = generators()["pcmax-uniform"](jobs=4, machines=2, seed=3)
    machines = [0, 1, 0, 1]
    schedule = Schedule.of(machines, back_to_back(machines, instance.jobs))
    stored = row("heuristic", "lpt", instance_hash(instance), 1, params=canonical({"jobs": 4, "machines": 2}),
                 seed=3, schedule=canonical(schedule_to_json(instance, schedule)), cell_id="abc123")
    with Store(tmp_path / "s.sqlite") as db:
        db.add([stored])
    done = run_cli("plot", "gantt", tmp_path / "s.sqlite", "--cell", "abc1", "--out", tmp_path / "cell.pdf")
    assert done.returncode == 0, done.stderr
    assert_picture(tmp_path / "cell.pdf", "pdf")


def test_bad_input_is_one_line_and_exit_2(store, tmp_path):
    for args, field in ((("table", tmp_path / "missing.sqlite"), "STORE"),
                        (("table", store, "--experiment", "nope"), "--experiment"),
                        (("table", store, "--format", "docx"), "--format"),
                        (("plot", "gantt", store, "--cell", "zz", "--out", tmp_path / "x.png"), "--cell")):
        done = run_cli(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and field in done.stderr, (args, done.stderr)
    conflicting = tmp_path / "conflict.sqlite"
    with Store(conflicting) as db:
        db.add(ROWS + [row("solver", "milp", "A", 5, 5, cell_id="other")])
    done = run_cli("table", conflicting, "--format", "csv")
    assert done.returncode == 2 and "proven optima differ" in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize("column, text", [("value", "abc"), ("bound", "1/0"), ("value", "0.5"), ("status", "optimum"),
                                           ("kind", "oracle"), ("family", "jobshop"), ("wall_time", "abc"),
                                           ("size", "not json"), ("metrics", "[1, 2]"), ("params", "null")])
def test_a_cell_edited_by_hand_is_one_line_naming_it_in_every_reader(store, tmp_path, column, text):
    """A value no run writes made table, plot and report end in a traceback
    (a Fraction of 'abc', a division by zero, a JSON error) or, for merge,
    half through OUT."""
    import shutil
    import sqlite3

    edited = tmp_path / "edited.sqlite"
    shutil.copy(store, edited)
    with sqlite3.connect(edited) as db:
        db.execute(f"UPDATE cells SET {column} = ? WHERE cell_id = ?", (text, ROWS[4]["cell_id"]))
    for args in (("table", edited, "--format", "csv"), ("plot", edited, "--out", tmp_path / "figures"),
                 ("report", edited, "--out", tmp_path / "report"), ("export", edited, "--out", tmp_path / "x.csv"),
                 ("merge", tmp_path / "merged.sqlite", edited)):
        done = run_cli(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (args, done.stderr)
        assert f"cell {ROWS[4]['cell_id'][:12]}: {column} {text!r}" in done.stderr, (args, done.stderr)
    assert not (tmp_path / "merged.sqlite").exists() and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("column, text, problem", [("versions", "notjson", "versions 'notjson' is not a JSON object"),
                                                    ("experiment_text", "[grid", "its experiment_text is not a TOML")])
def test_a_run_edited_by_hand_is_one_line_naming_it(store, tmp_path, column, text, problem):
    import shutil
    import sqlite3

    edited = tmp_path / "edited.sqlite"
    shutil.copy(store, edited)
    with sqlite3.connect(edited) as db:
        db.execute(f"UPDATE runs SET {column} = ?", (text,))
    good = tmp_path / "good.sqlite"
    shutil.copy(store, good)
    for args in (("report", edited, "--out", tmp_path / "report"), ("plot", edited, "--out", tmp_path / "figures"),
                 ("merge", tmp_path / "merged.sqlite", good, edited)):
        done = run_cli(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (args, done.stderr)
        assert f"run 1: {problem}" in done.stderr, (args, done.stderr)
    assert not (tmp_path / "merged.sqlite").exists()


def test_a_stored_schedule_edited_by_hand_is_one_line(tmp_path):
    with Store(tmp_path / "s.sqlite") as db:
        db.add([row("heuristic", "lpt", None, 4, schedule="{not json", cell_id="abc123",
                    params=canonical({"jobs": 4, "machines": 2}))])
    done = run_cli("plot", "gantt", tmp_path / "s.sqlite", "--cell", "abc1", "--out", tmp_path / "cell.pdf")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--cell: cell abc123's stored schedule is not JSON" in done.stderr, done.stderr


def test_an_invalid_or_failed_row_establishes_no_bound():
    """A model whose schedule failed validation proves nothing: its bound must
    neither tighten the ratios nor make the store look contradictory."""
    rows = [row("solver", "cpsat", "A", 4, 4), row("heuristic", "lpt", "A", 5, 3),
            row("solver", "milp", "A", 3, 7, status="invalid"), row("solver", "milp", "A", None, 9, status="error")]
    [lpt] = analysis.ratio_rows(rows)
    assert (lpt["optimum"], lpt["best_bound"], lpt["ratio_to_bound"]) == (4, 4, F(5, 4))


def test_a_list_valued_size_is_an_x_and_a_series(tmp_path):
    """workflow-small varies jobs = [2, 3]: plot and report ended in "unhashable type: 'list'"."""
    rows = [{**row("heuristic", "lpt", f"I{jobs}", jobs, size=canonical({"jobs": [jobs, jobs + 1]})), "seed": 0}
            for jobs in (2, 3)]
    for spec in ({"name": "x", "kind": "line", "x": "size.jobs", "y": "value"},
                 {"name": "s", "kind": "bar", "x": "algorithm", "y": "value", "series": "size.jobs"}):
        plots.check_figure(spec, "figure[0]")
        shown = plots.draw(spec, rows, tmp_path).shown
        labels = [r["x"] for r in shown] if spec["name"] == "x" else [r["series"] for r in shown]
        assert labels == ["[2, 3]", "[3, 4]"] and [r["centre"] for r in shown] == [2.0, 3.0]
    chosen = {"name": "w", "kind": "line", "x": "size.jobs", "y": "value", "where": {"size.jobs": [2, 3]}}
    assert [r["x"] for r in plots.draw(chosen, rows, tmp_path).shown] == ["[2, 3]"]  # a list value, not "2 or 3"
    tables = [{**r, "metrics": canonical({"by_decade": {"0": 1}})} for r in rows]
    with pytest.raises(UserInputError, match=r"^figure t\.x: metrics\.by_decade is a table: draw it as y"):
        plots.draw({"name": "t", "kind": "line", "x": "metrics.by_decade", "y": "value"}, tables, tmp_path)


def test_figures_draw_distributions_tables_and_paired_tests(tmp_path):
    """A list metric is a distribution (each element a sample), a table metric
    is drawn against its keys, and ``compare`` pairs two series instance by
    instance: scipy's paired t on the differences (2, 3, 4) gives t = 5.196."""
    rows = []
    for i, (a, b) in enumerate([(3, 1), (5, 2), (8, 4)]):
        for name, value in (("lpt", a), ("spt", b)):
            rows.append({**row("heuristic", name, f"I{i}", value), "kind": "heuristic", "seed": i,
                         "metrics": canonical({"stretches": [value, value + 1], "by_decade": {"0": value, "1": 2}})})
    rows.append({**row("heuristic", "lpt", "I9", None), "kind": "heuristic", "seed": 9, "status": "unknown"})
    spread = {"name": "spread", "kind": "box", "x": "size.jobs", "y": "metrics.stretches", "series": "algorithm"}
    plots.check_figure(spread, "figure[0]")
    shown = plots.draw(spread, rows, tmp_path).shown
    assert [(r["series"], r["n"], r["missing"], r["min"], r["max"]) for r in shown] == [
        ("lpt", 6, 1, 3.0, 9.0), ("spt", 6, 0, 1.0, 5.0)]   # the unproven cell is counted, not drawn
    decades = {"name": "decades", "kind": "line", "x": "key", "y": "metrics.by_decade", "series": "algorithm"}
    plots.check_figure(decades, "figure[0]")
    assert [(r["series"], r["x"], r["centre"]) for r in plots.draw(decades, rows, tmp_path).shown] == [
        ("lpt", "0", 16 / 3), ("lpt", "1", 2.0), ("lpt", "", None), ("spt", "0", 7 / 3), ("spt", "1", 2.0)]
    paired = {"name": "paired", "kind": "line", "x": "size.jobs", "y": "value", "series": "algorithm",
              "compare": ["lpt", "spt"]}
    plots.check_figure(paired, "figure[0]")
    drawn = plots.draw(paired, rows, tmp_path)
    (test,) = drawn.tests
    assert test["pairs"] == 3 and test["mean_difference"] == 3.0
    assert test["t"] == pytest.approx(5.196, abs=1e-3) and 0.03 < test["p"] < 0.04
    assert "mean_difference" in drawn.csv.read_text()
    with pytest.raises(UserInputError, match=r"^figure\[0\]\.compare: must be two series names"):
        plots.check_figure({**paired, "compare": ["lpt"]}, "figure[0]")
    with pytest.raises(UserInputError, match=r"is a table: draw it with x = \"key\""):
        plots.draw({**decades, "x": "size.jobs"}, rows, tmp_path)


def test_profiles_are_the_hand_computed_distributions():
    """pcmax, proven optima A = 4, B = 8, D = 6: lpt's ratios 1, 5/4, 1; list's 5/4, 3/2 (list never ran
    on D). Dolan-Moré, on A and B, which both ran on: lpt is best on both (list 5/4, then 12/10 = 6/5)."""
    from schedbench.harness import profiles

    panels = profiles.ratio_panels(profiles.store_points(ROWS))
    ratio, profile = panels["pcmax", "makespan"]
    assert ratio.curves == {"list": [(F(5, 4), F(1, 2)), (F(3, 2), 1)], "lpt": [(1, F(2, 3)), (F(5, 4), 1)]}
    assert profile.curves == {"list": [(F(6, 5), F(1, 2)), (F(5, 4), 1)], "lpt": [(1, 1)]}
    assert profile.title == "Dolan-Moré profile (2 run by all)"
    knapsack_ratio, _ = panels["knapsack", "profit"]   # maximized: OPT / H, 10/8 on K1 and 1 on K2; K3 unproven
    twice = profiles.store_points(ROWS + [{**r, "cell_id": r["cell_id"] + "again"} for r in ROWS
                                          if r["kind"] == "heuristic" and r["family"] == "pcmax"])
    assert profiles.ratio_panels(twice)["pcmax", "makespan"][0].curves == ratio.curves   # a cell run twice counts once
    assert knapsack_ratio.curves == {"greedy_ratio": [(1, F(1, 2)), (F(5, 4), 1)]}
    proofs = profiles.proof_panels(profiles.store_solves(ROWS))
    assert proofs["pcmax"][0].curves == {"cpsat": [(F(1, 2), F(3, 4))], "milp": [(F(1, 2), 1)]}
    assert proofs["knapsack"][0].curves == {"cpsat": [(F(1, 2), F(2, 3))]}


def test_plot_profile_writes_every_familys_figures_with_their_steps(store, tmp_path):
    done = run_cli("plot", "profile", store, "--out", tmp_path, "--style", "paper")
    assert done.returncode == 0, done.stderr
    for stem in ("profile-pcmax-makespan", "profile-knapsack-profit", "proof-time-pcmax", "proof-time-knapsack"):
        for suffix in ("pdf", "svg", "png"):
            assert_picture(tmp_path / f"{stem}.{suffix}", suffix)
    steps = csv_rows((tmp_path / "profile-pcmax-makespan.csv").read_text())
    assert {(r["series"], r["x_exact"], r["fraction_exact"]) for r in steps if "Dolan" in r["panel"]} == \
        {("list", "6/5", "1/2"), ("list", "5/4", "1"), ("lpt", "1", "1")}
    nothing = run_cli("plot", "profile", "--out", tmp_path)
    assert nothing.returncode == 2 and "STORE" in nothing.stderr


def test_every_family_figure_gives_its_series_distinct_colour_and_marker():
    from schedbench import families
    from schedbench.harness.style import OKABE_ITO, SeriesStyle, family_series, series_style

    for family in families.names():
        styles = [series_style(name) for name in family_series(family)]
        assert len({(s.colour, s.marker) for s in styles}) == len(styles), family
        assert {s.colour for s in styles} <= set(OKABE_ITO)
        if len(styles) <= len(OKABE_ITO):
            assert len({s.colour for s in styles}) == len(styles), family
    assert series_style("cpsat") == SeriesStyle("#E69F00", "o", "-", "")   # the first slot of every family
    assert series_style("srtf").hatch == "//"   # the workflow family's ninth name: a hatch beside its colour


def test_latex_and_text_tables_hold_the_same_rows_at_the_precision_asked():
    made = tables.ratio_tables(analysis.ratio_rows(ROWS))
    text = tables.render(made, "text", precision=2)
    latex = tables.render(made, "latex", precision=2)
    for table, block in zip(made, latex.split(r"\end{tabular}")):
        assert block.count(r"\toprule") == 1 and block.count(r"\midrule") == 1
        body = block.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
        assert len(body) == len(table.rows)
        assert all(line.count(" & ") == len(table.columns) - 1 and line.endswith(r"\\") for line in body)
    assert "greedy\\_ratio" in latex and "greedy_ratio" in text
    lpt = next(line for line in text.splitlines() if " lpt " in line and "jobs=4" in line)
    assert re.search(r" 1\.12 ± 1\.59 +1\.25 +1\.24 ", lpt), lpt   # mean ± CI, worst, p95 at two decimals
    exact = tables.render(made, "markdown", fractions=True)
    assert "| 9/8 ± 1.588 | 5/4 | 99/80 |" in exact
    done = run_cli("table", "--format", "bogus", "x.sqlite")
    assert done.returncode == 2


def test_the_report_opens_on_the_profiles(report):
    text = report.read_text()
    summary = text[text.index('id="summary"'):text.index('id="claims"')]
    assert summary.count('<figure><img src="data:image/png;base64,') >= 4   # two families' profiles, two proof times
    assert summary.index("Heuristics against the optimum") < summary.index("Heuristic / optimum, per family")
    assert (report.parent / "profiles" / "profile-pcmax-makespan.csv").is_file()


def test_time_to_proof_from_a_frontier_and_a_stress_log(tmp_path):
    """A frontier row per backend (a refused model has no time and proves nothing), a stress row per instance."""
    from schedbench.harness import profiles

    frontier = tmp_path / "frontier.jsonl"
    frontier.write_text("\n".join(json.dumps(r) for r in (
        {"line": "mosp cmax", "backend": "cpsat", "status": "optimal", "seconds": 0.5},
        {"line": "mosp cmax", "backend": "cpsat", "status": "feasible", "seconds": 10.0},
        {"line": "mosp cmax", "backend": "milp", "status": "refused"},
        {"line": "mosp cmax", "backend": "milp", "status": "infeasible", "seconds": 2.0})) + "\n")
    stress = tmp_path / "stress.jsonl"
    stress.write_text(json.dumps({"family": "pcmax", "cpsat": {"status": "optimal", "seconds": 0.25},
                                  "milp": {"status": "unknown", "seconds": 10.0}}) + "\n")
    solves = profiles.logged_solves(frontier) + profiles.logged_solves(stress)
    panels = profiles.proof_panels(solves)
    assert panels["mosp cmax"][0].curves == {"cpsat": [(F(1, 2), F(1, 2))], "milp": [(2, F(1, 2))]}
    assert panels["pcmax"][0].curves == {"cpsat": [(F(1, 4), 1)], "milp": []}
    done = run_cli("plot", "profile", "--results", frontier, "--out", tmp_path / "out")
    assert done.returncode == 0 and (tmp_path / "out" / "results-frontier-mosp-cmax.csv").is_file(), done.stderr
    stress.write_text('{"line": "x", "backend": "cpsat", "status": "optimal"}\n')
    bad = run_cli("plot", "profile", "--results", stress, "--out", tmp_path / "out")
    assert bad.returncode == 2 and "stress.jsonl line 1" in bad.stderr and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("row,why", [
    ({"line": "x", "backend": "cpsat", "status": "optimal", "seconds": float("nan")}, "seconds"),
    ({"line": "x", "backend": "cpsat", "status": "optimal", "seconds": -5}, "seconds"),
    ({"line": "x", "backend": "cpsat", "status": "optimal", "seconds": True}, "seconds"),
    ({"line": 7, "backend": "cpsat", "status": "optimal", "seconds": 1}, "texts"),
    ({"line": "x", "backend": ["cpsat"], "status": "optimal", "seconds": 1}, "texts"),
])
def test_a_bad_log_row_is_one_line(tmp_path, row, why):
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(row) + "\n")
    done = run_cli("plot", "profile", "--results", log, "--out", tmp_path / "out")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and why in done.stderr, done.stderr


def test_profile_outputs_never_overwrite_each_other(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps({"line": line, "backend": "cpsat", "status": "optimal", "seconds": 1})
                             for line in ("mosp cmax", "mosp-cmax")) + "\n")
    done = run_cli("plot", "profile", "--results", log, "--out", tmp_path / "out")
    assert done.returncode == 2 and "would write the same figure" in done.stderr
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "log.jsonl").write_text(log.read_text())
    twice = run_cli("plot", "profile", "--results", log, "--results", tmp_path / "a" / "log.jsonl", "--out", tmp_path)
    assert twice.returncode == 2 and "same name" in twice.stderr
    missing = run_cli("plot", "profile", "--corpus", tmp_path / "nope.csv", "--out", tmp_path / "out")
    assert missing.returncode == 2 and "no corpus table" in missing.stderr
