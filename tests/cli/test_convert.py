"""The community's data in: each format converted from a sample written in
tests/data, solved, and checked against a known answer; bad files of every
format refused with exit 2 and one line."""

import json
from fractions import Fraction

import pytest

import schedbench as sb
from conftest import REPO, run_cli

DATA = REPO / "tests" / "data"


def _convert(tmp_path, *args) -> dict:
    out = tmp_path / "converted.json"
    done = run_cli("convert", *args, "-o", out)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def _solved(tmp_path, *args) -> dict:
    done = run_cli("solve", tmp_path / "converted.json", "--time-limit", "20", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_pcmax_text_file_in_both_layouts_is_solved(tmp_path):
    for layout, name in (("pcmax", "pcmax_header.txt"), ("pcmax-mn", "pcmax_mn.txt")):
        document = _convert(tmp_path, "--from", layout, DATA / name)
        assert (document["machines"], document["jobs"]) == (2, [3, 3, 2, 2, 2])
        assert document["meta"] == {"source_format": f"pcmax-{'header' if layout == 'pcmax' else 'mn'}",
                                    "file": name, "dropped_zero_lengths": 0}
        assert (_solved(tmp_path)["status"], _solved(tmp_path)["objective"]) == ("optimal", 6)


def test_zero_lengths_are_refused_or_dropped_on_request(tmp_path):
    refused = run_cli("convert", "--from", "pcmax", DATA / "pcmax_zero.txt")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--drop-zero" in refused.stderr
    document = _convert(tmp_path, "--from", "pcmax", DATA / "pcmax_zero.txt", "--drop-zero")
    assert document["jobs"] == [3, 3, 2] and document["meta"]["dropped_zero_lengths"] == 1


@pytest.mark.parametrize("block,optimum", [("1", 17), ("2", 9)])
def test_a_pisinger_block_solves_to_its_published_optimum(tmp_path, block, optimum):
    document = _convert(tmp_path, "--from", "pisinger", DATA / "pisinger_small.csv", "--block", block)
    assert document["meta"]["published_optimum"] == optimum
    solved = _solved(tmp_path)
    assert solved["status"] == "optimal" and solved["objective"] == optimum
    named = _convert(tmp_path, "--from", "pisinger", DATA / "pisinger_small.csv", "--name", f"knapPI_test_{block}")
    assert named == document


@pytest.mark.parametrize("cores,slr", [(2, Fraction(7, 7)), (1, Fraction(10, 7))])
def test_a_task_graph_gives_max_slr_equal_to_opt_over_cp(tmp_path, cores, slr):
    """The graph's optimal makespan is 7 on two processors and 10 on one; its critical path is 7."""
    document = _convert(tmp_path, "--from", "stg", DATA / "stg_small.stg", "--cores", str(cores))
    assert len(document["jobs"]) == 1 and len(document["jobs"][0]["tasks"]) == 4  # the dummies dropped
    solved = _solved(tmp_path, "--objective", "max-slr")
    assert solved["status"] == "optimal" and Fraction(*solved["objective_fraction"]) == slr


def test_the_python_front_door_reads_the_same_formats():
    instance = sb.load(DATA / "stg_small.stg", format="stg", cores=2)
    assert instance.family == "workflow" and len(instance.tasks) == 4
    assert sb.load(DATA / "pcmax_mn.txt", format="pcmax-mn").jobs == (3, 3, 2, 2, 2)


BAD_STG = {
    "cycle": "2\n0 0 0\n1 1 2 0 2\n2 1 1 1\n3 0 1 2\n",
    "dangling": "2\n0 0 0\n1 1 1 7\n2 1 1 1\n3 0 1 2\n",
    "missing": "2\n0 0 0\n2 1 1 0\n3 0 1 2\n",
    "not numbers": "2\n0 0 0\n1 x 1 0\n2 1 1 1\n3 0 1 2\n",
}


@pytest.mark.parametrize("name", sorted(BAD_STG))
def test_bad_files_of_every_format_are_one_line(tmp_path, name):
    stg = tmp_path / "bad.stg"
    stg.write_text(BAD_STG[name])
    cases = [("stg", stg, ["--cores", "2"])]
    for fmt, text in (("pcmax", "p p_cmax 3 2\n1 2\n"), ("pcmax-mn", "2\n"), ("pisinger", "name\nn 2\nc x\n")):
        path = tmp_path / f"bad-{fmt}.txt"
        path.write_text(text)
        cases.append((fmt, path, []))
    for fmt, path, options in cases:
        done = run_cli("convert", "--from", fmt, path, *options)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (fmt, done.stderr)
        assert "Traceback" not in done.stderr and str(path.name) in done.stderr, done.stderr


def test_a_schedule_goes_out_as_csv_and_as_a_gantt_chart(tmp_path):
    _convert(tmp_path, "--from", "stg", DATA / "stg_small.stg", "--cores", "1")
    csv, chart = tmp_path / "schedule.csv", tmp_path / "gantt.svg"
    assert run_cli("solve", tmp_path / "converted.json", "--objective", "max-slr", "--schedule-csv", csv,
                   "--gantt", chart).returncode == 0
    rows = [line.split(",") for line in csv.read_text().splitlines()]
    assert rows[0] == ["job", "machine", "start", "end"] and len(rows) == 5
    assert max(int(row[3]) for row in rows[1:]) == 10  # one processor: the optimal makespan
    assert chart.read_text().startswith("<?xml")
    heuristic = run_cli("heuristic", "pslr", tmp_path / "converted.json", "--gantt", tmp_path / "h.png")
    assert heuristic.returncode == 0 and (tmp_path / "h.png").stat().st_size > 1000
    for refused in (["--gantt", tmp_path / "g.gif"], ["--schedule-csv", tmp_path / "no" / "s.csv"]):
        done = run_cli("solve", tmp_path / "converted.json", *refused)
        assert done.returncode == 2 and done.stderr.count("\n") == 1
