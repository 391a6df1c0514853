"""The benchmarks' own safety nets: an interrupted run resumes without losing
or duplicating rows, and a disagreement between the exact backends aborts."""

import json
import sys
from pathlib import Path

import pytest

from bench.mosp_solvers import check_agreement
from bench.results_log import append_row, rerun_command, resume


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


@pytest.mark.parametrize("argv, command", [
    (["--results", "/tmp/x/run.jsonl", "--out", "t.md"], "python -m m --results FILE --out t.md"),
    (["--results=/tmp/run.jsonl", "--instances", "3"], "python -m m --results=FILE --instances 3"),
    (["--instances", "3"], "python -m m --instances 3"),
    (["--resu", "/tmp/a.jsonl", "--res=/tmp/b"], "python -m m --resu FILE --res=FILE")])
def test_a_generated_tables_command_hides_this_machines_results_file(argv, command, monkeypatch):
    monkeypatch.setattr("sys.argv", ["prog", *argv])
    assert rerun_command("m") == command


def test_backends_must_agree():
    assert check_agreement([_row("cpsat", "optimal", "7", "7"), _row("milp", "optimal", "7", "7")]) == 1
    assert check_agreement([_row("cpsat", "optimal", "7", "7"), _row("milp", "feasible", "8", "6")]) == 0
    for milp in (_row("milp", "optimal", "6", "6"), _row("milp", "feasible", "8", "8"),
                 _row("milp", "feasible", "6", "5")):
        with pytest.raises(SystemExit, match="disagree"):
            check_agreement([_row("cpsat", "optimal", "7", "7"), milp])



def test_trace_benchmark_traces_are_seeded_and_its_exponent_is_a_slope(tmp_path):
    """The synthetic trace converts to exactly its jobs, the same bytes for a
    seed; the growth exponent of time = c n^1.5 is 1.5."""
    import argparse

    from bench.trace_scale import _jobs_on_machines, _wide_label, exponent, synthetic_trace
    from schedbench.instances.swf import campaigns_from_swf

    first, again = tmp_path / "a.swf", tmp_path / "b.swf"
    synthetic_trace(first, 500)
    synthetic_trace(again, 500)
    assert first.read_bytes() == again.read_bytes()
    instance = campaigns_from_swf(first)
    assert len(instance.lengths) == 500 and instance.machines == 10
    rows = [{"input": "synthetic", "family": "campaign", "heuristic": "fcfs", "jobs": n, "seconds": 3 * n ** 1.5}
            for n in (10, 100, 1000)]
    assert exponent(rows, "campaign", "fcfs") == pytest.approx(1.5)
    assert exponent(rows[:1], "campaign", "fcfs") is None
    started = [{**rows[0], "seconds": 1e3}, *rows[1:]]  # a start-up cost: the fit flattens, the largest sizes not
    assert exponent(started, "campaign", "fcfs") < 1.0
    assert exponent(started, "campaign", "fcfs", largest=True) == pytest.approx(1.5)
    # a wide trace (another machine count) is measured, but not fitted
    synthetic_trace(first, 500, machines=25)
    assert campaigns_from_swf(first).machines == 25
    wide = {**rows[0], "input": _wide_label(500, 25), "jobs": 500, "seconds": 1e6}
    assert exponent([*rows, wide], "campaign", "fcfs") == pytest.approx(1.5)
    assert _jobs_on_machines("200000:25000") == (200_000, 25_000)
    for bad in ("200000", "200000:0", "-5:10"):
        with pytest.raises(argparse.ArgumentTypeError, match="JOBS:MACHINES"):
            _jobs_on_machines(bad)


def test_worst_case_table_compares_medians_over_seeds():
    """One lucky random run does not decide: the medians do (exact, the lower
    middle), and the seeds on which the search was ahead are counted."""
    from bench.worst_cases import table

    def row(strategy, seed, worst):
        return {"kind": "ledger", "family": "dssp", "claim": "c", "source": "paper", "strategy": strategy,
                "seed": seed, "budget": 20.0, "worst": worst, "evaluated": 10, "skipped": 0}

    rows = [row("anneal", 0, "3/4"), row("anneal", 1, "2/3"), row("anneal", 2, "1/2"),
            row("random", 0, "1/2"), row("random", 1, "1/2"), row("random", 2, "9/10")]
    line = next(x for x in table(rows).splitlines() if x.startswith("| dssp | c |"))
    assert "| 0.6667 | 0.5000 | yes | 2 of 3 | 0.7500 |" in line
    rows[1]["worst"] = "1/4"
    line = next(x for x in table(rows).splitlines() if x.startswith("| dssp | c |"))
    assert "| 0.5000 | 0.5000 | yes |" in line
    rows[0]["worst"] = "1/4"
    line = next(x for x in table(rows).splitlines() if x.startswith("| dssp | c |"))
    assert "| 0.2500 | 0.5000 | **no** | 0 of 3 | 0.5000 |" in line
    construction = [{**row(x, seed, None), "claim": "k", "reached": False} for x in ("anneal", "random") for seed in range(3)]
    line = next(x for x in table(rows + construction).splitlines() if x.startswith("| dssp | k |"))
    assert "| not searched | not searched |" in line
    calibration = [{"kind": "calibration", "heuristic": "lpt", "machines": 2, "strategy": strategy, "target": "7/6",
                    "ratio": ratio, "reached_after_s": after, "evaluated": 50} for strategy, ratio, after in
                   (("anneal", "7/6", 0.25), ("random", "9/8", None))]
    line = next(x for x in table(calibration).splitlines() if x.startswith("| lpt | 2 |"))
    assert line == "| lpt | 2 | 7/6 | 0.2 s (50) | no (9/8, 50) |"


def test_frontier_grows_until_half_fail_and_resumes(tmp_path, monkeypatch):
    """A line stops growing for a backend once fewer than half its instances
    are proven; a rerun reuses every finished solve; the frontier is the
    largest step with >= 90% proven; a contradiction between backends is caught."""
    from bench import frontier

    line = {"name": "tiny pcmax", "generator": "pcmax-uniform", "params": {"machines": 2, "high": 9},
            "objective": "makespan", "grow": "jobs", "steps": [4, 6, 8, 10]}
    calls = []

    def fake(task):  # the MILP proves nothing from step 1 on: it must stop there
        line_, step, seed, backend, limit, cpsat_workers = task
        calls.append((step, seed, backend))
        proven = backend == "cpsat" or step == 0
        return {"line": line_["name"], "step": step, "seed": seed, "backend": backend, "time_limit": limit,
                "cpsat_workers": cpsat_workers, "family": "pcmax",
                "jobs": line_["steps"][step], "machines": 2, "status": "optimal" if proven else "feasible",
                "value": "7", "bound": "7" if proven else "5", "proof": [], "seconds": 0.1}

    class InProcess:  # the pool's imap in this process, so the fake is used
        def __init__(self, workers):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def imap_unordered(self, function, tasks):
            return map(fake, tasks)

    monkeypatch.setattr(frontier, "Pool", InProcess)
    results = tmp_path / "run.jsonl"
    rows = frontier.run([line], 3, 1.0, 1, results)
    assert sorted({(s, b) for s, _, b in calls}) == [(0, "cpsat"), (0, "milp"), (1, "cpsat"), (1, "milp"),
                                                     (2, "cpsat"), (3, "cpsat")]
    text = frontier.table([line], rows, 3)
    assert "| tiny pcmax | cpsat | >= 10.0 | 10.0, 3/3 |" in text and "| tiny pcmax | milp | 4.0 | 6.0, 0/3 |" in text
    calls.clear()
    assert len(frontier.run([line], 3, 1.0, 1, results)) == len(rows) and calls == []
    other = dict(line, name="another line")  # a run of another line keeps this one's rows
    frontier.run([other], 3, 1.0, 1, results, kept=[line, other])
    calls.clear()
    assert len(frontier.run([line], 3, 1.0, 1, results)) == len(rows) and calls == []
    training = frontier.run([line], 3, 1.0, 1, results, first_seed=10)  # training seeds: solved, apart
    assert {seed for _, seed, _ in calls} == {10, 11, 12} and {r["seed"] for r in training} == {10, 11, 12}
    calls.clear()
    assert len(frontier.run([line], 3, 1.0, 1, results)) == len(rows) and calls == []  # the table's rows kept
    frontier.run([line], 3, 2.0, 1, results)  # another time limit: solved again
    assert len(calls) == len(rows)
    calls.clear()
    frontier.run([line], 3, 2.0, 1, results, cpsat_workers=2)  # other CP-SAT threads: solved again
    assert len(calls) == len(rows)
    calls.clear()
    frontier.run([line], 3, 2.0, 2, results, cpsat_workers=2)  # other solves at a time: solved again
    assert len(calls) == len(rows)
    raced = dict(line, backends=["cpsat+milp"])  # a run of another backend keeps these rows
    frontier.run([raced], 3, 2.0, 2, results, cpsat_workers=2)
    calls.clear()
    again = frontier.run([line], 3, 2.0, 2, results, cpsat_workers=2)
    assert calls == [] and {r["backend"] for r in again} == {"cpsat", "milp", "cpsat+milp"}
    assert frontier.disagreements(rows) == []
    wrong = [dict(r, value="8", bound="8") if r["backend"] == "milp" and r["step"] == 0 and r["seed"] == 1 else r
             for r in rows]
    assert frontier.disagreements(wrong) == ["tiny pcmax step 0 seed 1: two optima ['7', '8']"]


def test_every_frontier_line_builds_its_first_and_last_step():
    from bench import frontier

    for line in frontier.lines():
        for step in (0, len(line["steps"]) - 1):
            assert frontier.instance(line, step, 0).family


def test_experiment_timing_estimates_the_full_run_from_its_batches():
    from pathlib import Path

    from bench.experiment_timing import table

    batches = [{"batch": "1/50", "cells": 400, "seconds": 30.0, "statuses": {"feasible": 400}, "no_value": 0},
               {"batch": "17/50", "cells": 400, "seconds": 18.0, "statuses": {"feasible": 399, "error": 1}, "no_value": 2}]
    text = table(Path("bench/experiments/x.toml"), 50, 2, batches)
    assert "| 17/50 | 400 | 18.0 | 22.2 | 1 error, 399 feasible | 2 |" in text
    assert "50 x the mean batch (24.0 s): **20.0 minutes**" in text


def test_experiment_timing_times_a_whole_run_and_keeps_its_store(tmp_path, monkeypatch, capsys):
    """``--full --store``: the store holds every cell, a Stretch left
    undecided counts as a cell without a value, the table says the real time."""
    from bench import experiment_timing
    from schedbench.harness.store import Store

    experiment = tmp_path / "e.toml"
    experiment.write_text('name = "e"\n[[grid]]\nfamily = "mosp"\ngenerator = "mosp-paper"\n'
                          'params = { organizations = 3, jobs = 12 }\nseeds = 2\nheuristics = ["ilba"]\n'
                          'metrics = ["stretch"]\n')
    store = tmp_path / "kept.sqlite"
    monkeypatch.setattr("sys.argv", ["t", str(experiment), "--full", "--store", str(store), "--workers", "1"])
    experiment_timing.main()
    assert "| full | 2 | " in capsys.readouterr().out
    with Store(store, create=False) as db:
        assert len(list(db.rows())) == 2
    assert experiment_timing._no_metric({"metrics": '{"stretch":null}'})
    assert not experiment_timing._no_metric({"metrics": '{"stretch":"3/2"}'}) and not experiment_timing._no_metric({})


def test_experiment_timing_merges_the_batches_it_times_into_the_store(tmp_path, monkeypatch, capsys):
    """``--of 2 --batches 1 2 --store``: each batch timed in a store of its own,
    then both merged into the one kept, which holds every cell once."""
    from bench import experiment_timing
    from schedbench.harness.store import Store

    experiment = tmp_path / "e.toml"
    experiment.write_text('name = "e"\n[[grid]]\nfamily = "mosp"\ngenerator = "mosp-paper"\n'
                          'params = { organizations = 3, jobs = 12 }\nseeds = 4\nheuristics = ["ilba", "lpt-lpt"]\n')
    store = tmp_path / "kept.sqlite"
    monkeypatch.setattr("sys.argv", ["t", str(experiment), "--of", "2", "--batches", "1", "2", "--store", str(store),
                                     "--workers", "1"])
    experiment_timing.main()
    out = capsys.readouterr().out
    assert "| 1/2 | 4 | " in out and "| 2/2 | 4 | " in out
    with Store(store, create=False) as db:
        rows = list(db.rows())
    assert len(rows) == 8 and sorted({row["seed"] for row in rows}) == [0, 1, 2, 3]


@pytest.mark.parametrize("argv", [[], ["--full", "--of", "2", "--batches", "1"], ["--of", "4"]])
def test_experiment_timing_refuses_a_run_it_cannot_time(argv, monkeypatch):
    from bench import experiment_timing

    monkeypatch.setattr("sys.argv", ["t", "e.toml", *argv])
    with pytest.raises(SystemExit) as stopped:
        experiment_timing.main()
    assert stopped.value.code == 2


@pytest.mark.parametrize("argv, field", [(["--first-seed", "-1"], "--first-seed"), (["--line", "nosuch"], "--line")])
def test_frontier_rejects_bad_options_by_name(argv, field, monkeypatch, capsys):
    from bench import frontier

    monkeypatch.setattr("sys.argv", ["frontier", *argv])
    with pytest.raises(SystemExit) as stopped:
        frontier.main()
    assert stopped.value.code == 2 and field in capsys.readouterr().err


def _frontier_table(path, rows):
    """A table as ``bench.frontier --out`` writes it: the summary, then the steps."""
    body = "\n".join(f"| {line} | {backend} | {frontier} | {last} |" for line, backend, frontier, last in rows)
    path.write_text("<!-- generated by: x -->\n\nrun\n\n| line | backend | largest mean jobs with >= 90% proven "
                    "(>=: the line's last step) | last step measured (mean jobs, proven) |\n|---|---|---:|---|\n"
                    f"{body}\n\nEvery step measured:\n\n| line | backend | step |\n")
    return path


def test_frontier_compare_puts_the_last_reported_beside_the_new(tmp_path):
    """Several before tables: the last reporting an entry wins; --changed
    keeps moved entries only (not unchanged ones, not new lines)."""
    from bench.frontier_compare import compare

    first = _frontier_table(tmp_path / "a.md", [("l", "cpsat", "12.2", "19.9, 4/10"), ("l", "milp", "12.2", "19.9, 1/10"),
                                                ("m", "cpsat", "5.0", "9.0, 2/10")])
    second = _frontier_table(tmp_path / "b.md", [("l", "cpsat", "19.9", "28.4, 7/10")])
    after = _frontier_table(tmp_path / "c.md", [("l", "cpsat", ">= 40.0", "40.0, 10/10"),
                                                ("l", "milp", "12.2", "19.9, 3/10"), ("new", "cpsat", "3.0", "4.0, 1/10")])
    text = compare([first, second], [after])
    assert "| l | cpsat | 19.9 | >= 40.0 | 40.0, 10/10 |" in text and "| l | milp | 12.2 | 12.2 | 19.9, 3/10 |" in text
    assert "| new | cpsat | - | 3.0 | 4.0, 1/10 |" in text and "| m |" not in text
    changed = compare([first, second], [after], changed=True).splitlines()[2:]
    assert changed == ["| l | cpsat | 19.9 | >= 40.0 | 40.0, 10/10 |"]
    assert compare([first], [after], names=["new"]).splitlines()[2:] == ["| new | cpsat | - | 3.0 | 4.0, 1/10 |"]
    newest_first = compare([second, first], [first, after])  # the first measurement against the latest
    assert "| l | cpsat | 12.2 | >= 40.0 | 40.0, 10/10 |" in newest_first and "| m | cpsat | 5.0 | 5.0 | 9.0, 2/10 |" in newest_first
    (tmp_path / "d.md").write_text("not a frontier table")
    with pytest.raises(ValueError, match="no frontier summary"):
        compare([tmp_path / "d.md"], [after])


def test_every_before_and_after_table_in_the_docs_is_regenerated_by_its_command(monkeypatch, capsys):
    """Each docs/results/compare_*.md is what its header's command prints
    now, and the frontier page or the development notes show them by
    inclusion, no typed copy."""
    import shlex
    from pathlib import Path

    from bench import frontier_compare

    root = Path(__file__).resolve().parents[2]
    tables = sorted((root / "docs" / "results").glob("compare_*.md"))
    page = (root / "docs" / "frontier.md").read_text() + (root / "docs" / "development-notes.md").read_text()
    assert len(tables) >= 8
    monkeypatch.chdir(root)
    for path in tables:
        header, text = path.read_text().split(" -->\n\n", 1)
        words = shlex.split(header.removeprefix("<!-- generated by: "))
        assert words[:3] == ["python", "-m", "bench.frontier_compare"] and words[-2:] == ["--out", "FILE"]
        monkeypatch.setattr("sys.argv", ["frontier_compare", *words[3:-2]])
        frontier_compare.main()
        assert capsys.readouterr().out == text, path.name
        assert f'--8<-- "docs/results/{path.name}"' in page, path.name
    assert "| line | backend | before" not in page


def test_frontier_compare_rejects_a_table_it_cannot_read(tmp_path, monkeypatch, capsys):
    from bench import frontier_compare

    (tmp_path / "x.md").write_text("not a frontier table")
    for before in (tmp_path / "missing.md", tmp_path / "x.md"):
        monkeypatch.setattr("sys.argv", ["frontier_compare", "--before", str(before), "--after", str(tmp_path / "x.md")])
        with pytest.raises(SystemExit) as stopped:
            frontier_compare.main()
        assert stopped.value.code == 2 and str(before) in capsys.readouterr().err


@pytest.mark.timing
def test_workflow_rows_bench_measures_a_frontier_question():
    """The energy rows benchmark's first case (a 25-task frontier instance,
    the bisection's first question): rows exist, within the term cap."""
    from bench.workflow_rows import cases, measure
    from schedbench.solvers.workflow.structure import ROW_TERMS

    label, inst = cases()[0]
    rows, terms, seconds = measure(inst)
    assert label == "frontier step 4 seed 0" and len(inst.tasks) == 25
    assert rows == 21 and terms == 120 <= ROW_TERMS and seconds < 1


def test_every_frontier_line_builds_its_instances_at_the_sizes_it_claims():
    """Both lines' files (the tuned lines and the held-out shape families): every
    step builds, and each shape family grows through the size the frontier is judged at."""
    from pathlib import Path

    from bench import frontier
    from schedbench import families

    for path in (frontier.LINES, Path(frontier.__file__).with_name("frontier_shapes.toml")):
        for line in frontier.lines(path):
            sizes = [families.size(frontier.instance(line, step, 0)).jobs for step in range(len(line["steps"]))]
            assert min(sizes) >= 1, line["name"]
            if path.name == "frontier_shapes.toml":
                assert sizes == sorted(sizes), line["name"]
                target = 45 if line["generator"] == "small" else 40
                assert sizes[0] < target < sizes[-1] or target in sizes, (line["name"], sizes)


def test_confirmation_costs_asks_each_method_the_claims_question(tmp_path, monkeypatch):
    """A claim at the optimum is refuted by every method; a claim above it
    is not (a schedule better than it exists); only campaign CP-SAT solves
    left unconfirmed are measured."""
    import json
    from dataclasses import replace

    from bench import confirmation_costs
    from schedbench.solvers import campaign

    line = {"name": "tiny", "generator": "small", "grow": "jobs", "steps": [[2, 2]],
            "params": {"users": [2, 2], "campaigns": [2, 2], "length": [1, 9], "machines": [2, 2]}}
    optimum = campaign.solve(confirmation_costs.instance(line, 0, 0), "sum-user-flow", "cpsat", 20)
    assert optimum.status == "optimal"
    for claim, answer in ((optimum.objective, "refuted"), (optimum.objective + 1, "optimal")):
        claimed = replace(optimum, status="feasible", details={"unconfirmed": {"bound": str(claim)}})
        monkeypatch.setattr(campaign, "solve", lambda *args, claimed=claimed: claimed)
        cells = confirmation_costs.measure(line, {"line": "tiny", "step": 0, "seed": 0}, 20)
        assert cells[6] == str(claim) and all(cell.startswith(answer) for cell in cells[7:]), cells
    rows = [{"family": "campaign", "backend": "cpsat", "unconfirmed": True, "seed": 1},
            {"family": "campaign", "backend": "milp", "unconfirmed": True, "seed": 2},
            {"family": "mosp", "backend": "cpsat", "unconfirmed": True, "seed": 3},
            {"family": "campaign", "backend": "cpsat", "unconfirmed": False, "seed": 4}]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [r["seed"] for r in confirmation_costs.unconfirmed_solves(log)] == [1]


def test_a_frontier_run_refuses_an_unknown_backend_and_no_threads():
    import pathlib
    import subprocess
    import sys

    for args, name in ((["--backend", "cpsatt"], "--backend"), (["--cpsat-workers", "0"], "--cpsat-workers")):
        done = subprocess.run([sys.executable, "-m", "bench.frontier", *args], capture_output=True, text=True,
                              cwd=pathlib.Path(__file__).resolve().parents[2])
        assert done.returncode == 2 and name in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.timing
def test_the_fig8_references_benchmark_decides_a_small_workloads_stretches():
    from bench.mosp_fig8_references import workload_seconds

    seconds, undecided = workload_seconds(5, 100, 0, 10.0)
    assert undecided == 0 and 0 < seconds < 10


def test_the_fig8_references_benchmark_counts_each_problem_asked_by_jobs_a_machine_and_method(monkeypatch):
    from bench import mosp_fig8_references as bench
    from schedbench.solvers.mosp import stretch
    from schedbench.solvers.pcmax import clear_cache

    clock = iter(range(10**6))  # every reading of the CPU clock one second later: a call takes 1 s
    monkeypatch.setattr(stretch, "pcmax_optima", bench._recorded)
    monkeypatch.setattr(bench.time, "process_time", lambda: next(clock))
    monkeypatch.setattr(bench, "ASKED", {})
    clear_cache()
    bench.workload_seconds(5, 300, 0, 10.0)  # three organizations of 14, 37 and 27 jobs on 5 machines asked
    asked = {len(lengths): (density, seconds) for (workload, lengths, _), (density, _, seconds) in bench.ASKED.items()}
    # the 14 jobs are asked by two of the workload's schedules: one problem, both calls' time
    assert asked == {14: ("2 to 3", 2), 37: ("5 and more", 1), 27: ("5 and more", 1)}
    assert {workload for workload, *_ in bench.ASKED} == {(5, 300, 0)}
    closed_by = {method for _, method, _ in bench.ASKED.values()}
    assert closed_by <= {"bounds", "fill", "bin-completion", "arcflow-lp", "arcflow-dive", "partition-milp",
                         "arcflow-milp", "cpsat"}, closed_by  # all three proven within 10 s
    assert bench.asked_table()[-1].startswith("| all | | 3 |")
    assert [bench._density(jobs, 10) for jobs in (19, 20, 29, 30, 49, 50)] == [
        "below 2", "2 to 3", "2 to 3", "3 to 4", "4 to 5", "5 and more"]


def test_the_pattern_lp_benchmark_counts_each_lps_refutations():
    """28 jobs on 10 machines, asked L0 = 170, 171 and 172: the graph's LP
    refutes one of them, column generation two (no pattern repeats a length
    more often than it has jobs, as the compressed graph's paths may); with
    L0 = 26 on two machines (10 + 9 + 7 | 8 + 6 + 5 + 4 + 3) neither refutes."""
    from bench.pcmax_patterns import measure

    lengths = (100, 97, 95, 90, 85, 84, 83, 82, 82, 82, 81, 79, 74, 73, 72, 56, 55, 50, 45, 38, 37, 37, 35, 23, 22,
               19, 13, 8)
    measured = measure(lengths, 10)
    assert (measured["graph_refuted"], measured["columns_refuted"], measured["missed"]) == (1, 2, 0)
    packs = measure((10, 9, 8, 7, 6, 5, 4, 3), 2)
    assert (packs["graph_refuted"], packs["columns_refuted"], packs["missed"]) == (0, 0, 0)


def test_cluster_scaling_reports_each_runners_speed_up_per_worker_and_projects_the_full_run():
    from pathlib import Path

    from bench.cluster_scaling import table

    def run(seconds):
        return {"cells": 2400, "seconds": seconds, "statuses": {"feasible": 2400}, "no_value": 0}

    runs = {("local", 1): run(40.0), ("local", 2): run(25.0), ("dask", 1): run(50.0), ("dask", 2): run(27.8)}
    text = table(Path("bench/experiments/x.toml"), "1/1000", 1000, runs)
    assert "| local | 2 | 2,400 | 25.0 | 96.0 | 1.60 | 0.80 |" in text
    assert "| dask | 1 | 2,400 | 50.0 | 48.0 | 1.00 | 1.00 |" in text
    # 1000 batches of 50 s on one worker: 13.9 core-hours; two workers at 0.90 efficiency each
    assert "about 13.9 core-hours" in text and "(0.90)" in text and "8 workers 1.93 h" in text


def test_the_pcmax_benchmark_places_each_unsolved_instance_against_its_known_optimum():
    """Four unsolved instances, one of each standing (a known optimum of 100),
    and a proven one, which the table leaves out."""
    from bench.pcmax_engine import SHORT_OF_KNOWN, unsolved_table

    def row(label, bound, makespan, known, optimal=False):
        return {"label": label, "n": 30, "m": 12, "optimal": optimal, "bound": bound, "makespan": makespan,
                "known": known}

    rows = [row("class6", 100, 101, 100), row("class6", 99, 100, 100), row("class7", 98, 102, 100),
            row("class7", 99, 101, None), row("class7", 100, 100, 100, optimal=True)]
    lines = unsolved_table(rows).splitlines()
    assert lines[0] == "| class | n/m | unsolved | " + " | ".join(SHORT_OF_KNOWN) + " |"
    assert lines[2:] == ["| class6 | 2<n/m<=3 | 2 | 1 | 1 | 0 | 0 |", "| class7 | 2<n/m<=3 | 2 | 0 | 0 | 1 | 1 |",
                         "| all | all | 4 | 1 | 1 | 1 | 1 |"]


def test_the_ab_benchmark_asks_both_revisions_each_problem_and_compares_them(tmp_path):
    """The older side taken from a checkout (this one, named by a relative
    path: both sides the same code), each side a process of its own that
    imports its engine from its own tree, not from the editable install:
    both prove the same optima, and the table counts them."""
    import os
    from bench.package_tree import package_tree
    from bench.pcmax_ab import CHECKOUT, Side, compared, table
    from schedbench.model.pcmax import PcmaxInstance

    problems = [PcmaxInstance(2, (5, 4, 4, 3, 3, 3)), PcmaxInstance(3, (9, 7, 6, 5, 4, 2, 2)),
                PcmaxInstance(2, (8, 8, 8))]
    relative = Path(os.path.relpath(CHECKOUT, Path.cwd()))
    trees = {"old": package_tree(relative, tmp_path / "old"), "new": package_tree(CHECKOUT, tmp_path / "new")}
    with Side(trees["old"], 5.0) as old, Side(trees["new"], 5.0) as new:
        assert old.engine == tmp_path / "old" / "schedbench" / "solvers" / "pcmax" / "__init__.py"
        assert new.engine.is_relative_to(tmp_path / "new")
        answers = compared(problems, {"old": old, "new": new}, "portfolio")
    assert [(a["old"]["makespan"], a["new"]["makespan"]) for a in answers] == [(11, 11), (12, 12), (16, 16)]
    assert all(a[side]["optimal"] for a in answers for side in ("old", "new"))
    text = table(answers)
    assert "| old | 3 | 3 |" in text and "| new | 3 | 3 |" in text
    assert "Proven by one side only (problems by their place in the file): old 0; new 0. Proven by both" in text


def test_the_ab_benchmark_aborts_where_an_answer_is_not_what_it_claims_or_the_sides_disagree():
    from bench.pcmax_ab import compared
    from schedbench.model.pcmax import PcmaxInstance

    class Fixed:
        def __init__(self, machine, makespan, bound):
            self.answer = {"machine": machine, "start": [0, 3] if machine == [0, 0] else [0, 0],
                           "makespan": makespan, "bound": bound, "optimal": makespan == bound, "method": "x",
                           "cpu": 0.0}

        def ask(self, problem, solver):
            return self.answer

    problem = [PcmaxInstance(2, (3, 3))]
    right, wrong_bound = Fixed([0, 1], 3, 3), Fixed([0, 1], 3, 4)
    assert compared(problem, {"old": right, "new": right}, "portfolio")[0]["old"]["makespan"] == 3
    with pytest.raises(AssertionError, match="not what it claims"):  # a bound above its own schedule
        compared(problem, {"old": right, "new": wrong_bound}, "portfolio")
    with pytest.raises(AssertionError, match="not what it claims"):  # a makespan its schedule does not have
        compared(problem, {"old": Fixed([0, 0], 3, 3), "new": right}, "portfolio")
    with pytest.raises(AssertionError, match="passes the other side's schedule"):
        compared(problem, {"old": Fixed([0, 0], 6, 6), "new": right}, "portfolio")


@pytest.mark.parametrize("lines, message", [
    (None, "--problems: cannot read"),
    ([], "holds no instance"),
    (['{"family": "pcmax", "format_version": 1, "machines": 2, "jobz": [3, 4]}'], "line 1.*jobz"),
    (['{"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3], "jobs": [4]}'], "line 1.*twice"),
    (["{not json"], "line 1 is not valid JSON"),
    (['{"family": "three_partition", "format_version": 1, "bound": 12, "items": [4, 4, 4]}'], "not pcmax"),
])
def test_the_ab_benchmark_refuses_a_problem_file_by_its_line(tmp_path, lines, message):
    from schedbench.errors import UserInputError
    from bench.pcmax_ab import read_problems

    path = tmp_path / "problems.jsonl"
    if lines is not None:
        path.write_text("".join(line + "\n" for line in lines))
    with pytest.raises(UserInputError, match=message):
        read_problems(path)


@pytest.mark.parametrize("options, message", [
    (["--time-limit", "inf", "--against", "HEAD"], "--time-limit: must be a number of seconds"),
    (["--old-source", "/nonexistent"], "--old-source: /nonexistent is not a schedbench checkout"),
    (["--against=--format=zip"], "--against: '--format=zip' is no commit"),
])
def test_the_ab_benchmark_refuses_bad_options_by_name_before_any_side_runs(tmp_path, monkeypatch, capsys,
                                                                           options, message):
    from bench import pcmax_ab

    problems = tmp_path / "problems.jsonl"
    problems.write_text('{"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3, 4]}\n')
    monkeypatch.setattr(pcmax_ab, "Side", None)  # a side started would fail differently
    monkeypatch.setattr(sys, "argv", ["pcmax_ab", "--problems", str(problems), *options])
    with pytest.raises(SystemExit) as ended:
        pcmax_ab.main()
    assert ended.value.code == 2 and message in capsys.readouterr().err


def test_the_fig8_references_benchmark_records_its_problems_as_the_ab_benchmark_reads_them(tmp_path, monkeypatch):
    from bench import mosp_fig8_references as bench
    from bench.pcmax_ab import read_problems

    monkeypatch.setattr(bench, "ASKED", {((10, 100, 7), (5, 4, 3), 2): ["below 2", "bounds", 0.0],
                                         (None, (9, 9), 1): ["2 to 3", "open", 10.0]})
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(line + "\n" for line in bench.recorded_problems()))
    problems = read_problems(path)
    assert [(p.name, p.machines, p.jobs) for p in problems] == [("fig8-N10-n100-seed7", 2, (5, 4, 3)),
                                                                ("fig8", 1, (9, 9))]


def test_a_generated_tables_command_hides_the_files_a_benchmark_names_local(monkeypatch):
    from bench.results_log import rerun_command

    monkeypatch.setattr(sys, "argv", ["x", "--problems", "/tmp/p.jsonl", "--against", "HEAD~1", "--old=/tmp/o"])
    assert rerun_command("m", ("--problems", "--old-source")) == "python -m m --problems FILE --against HEAD~1 --old=FILE"
