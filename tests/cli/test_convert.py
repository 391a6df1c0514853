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
    assert document["meta"]["published_optimum"] == {"profit": optimum}
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
    workload = sb.load([DATA / "stg_small.stg"] * 2, format="stg", cores=2, arrivals=[0, 7])
    assert [job.arrival for job in workload.jobs] == [0, 7]
    diamond = sb.load(DATA / "wfformat_diamond.json", format="wfformat", cores=2, time_unit="0.5")
    assert [task.exec for task in diamond.tasks] == [3, 6, 5, 4]


BAD_STG = {
    "cycle": "2\n0 0 0\n1 1 2 0 2\n2 1 1 1\n3 0 1 2\n",
    "dangling": "2\n0 0 0\n1 1 1 7\n2 1 1 1\n3 0 1 2\n",
    "missing": "2\n0 0 0\n2 1 1 0\n3 0 1 2\n",
    "not numbers": "2\n0 0 0\n1 x 1 0\n2 1 1 1\n3 0 1 2\n",
    "the exit as a predecessor": "2\n0 0 0\n1 1 1 0\n2 1 2 1 3\n3 0 1 2\n",
    "truncated, as if the dummies were counted": "5\n0 0 0\n1 2 1 0\n2 3 1 1\n3 3 1 1\n4 0 1 2\n",
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


def test_several_task_graphs_arrive_as_a_workload(tmp_path):
    """Two copies of the graph on two processors: the second arriving when the
    first can be done (7) waits for nothing (max-SLR 1); arrival counts must match."""
    graph = DATA / "stg_small.stg"
    document = _convert(tmp_path, "--from", "stg", graph, graph, "--cores", "2", "--arrivals", "[0, 7]")
    assert [job["arrival"] for job in document["jobs"]] == [0, 7]
    assert document["meta"]["file"] == ["stg_small.stg", "stg_small.stg"]
    solved = _solved(tmp_path, "--objective", "max-slr")
    assert solved["status"] == "optimal" and Fraction(*solved["objective_fraction"]) == 1
    for bad in (["--arrivals", "[0]"], ["--arrivals", "[0, -1]"]):
        done = run_cli("convert", "--from", "stg", graph, graph, "--cores", "2", *bad)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--arrivals" in done.stderr, done.stderr
    done = run_cli("convert", "--from", "pcmax", DATA / "pcmax_mn.txt", DATA / "pcmax_mn.txt")
    assert done.returncode == 2 and "reads one file" in done.stderr


@pytest.mark.parametrize("name", ["wfformat_diamond.json", "wfformat_diamond_v14.json"])
@pytest.mark.parametrize("cores,slr", [(2, Fraction(1)), (1, Fraction(18, 13))])
def test_a_wfformat_workflow_in_both_layouts_gives_opt_over_cp(tmp_path, name, cores, slr):
    """Runtimes 1.5, 3, 2.2 and 2 s in units of 0.5 s are 3, 6, 5 and 4 (2.2 rounded up):
    critical path 3 + 6 + 4 = 13; makespan 13 on two cores, 18 on one."""
    document = _convert(tmp_path, "--from", "wfformat", DATA / name, "--cores", str(cores), "--time-unit", "0.5")
    assert [task["exec"] for task in document["jobs"][0]["tasks"]] == [3, 6, 5, 4]
    assert document["meta"]["time_unit"] == "1/2" and document["meta"]["schema_version"] in ("1.4", "1.5")
    solved = _solved(tmp_path, "--objective", "max-slr")
    assert solved["status"] == "optimal" and Fraction(*solved["objective_fraction"]) == slr


def _broken_wfformat(tmp_path, change) -> object:
    document = json.loads((DATA / "wfformat_diamond.json").read_text())
    change(document["workflow"])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document))
    return path


BAD_WFFORMAT = {
    "unknown parent": lambda w: w["specification"]["tasks"][1]["parents"].append("nobody"),
    "parent not named back": lambda w: w["specification"]["tasks"][0]["children"].pop(),
    "cycle": lambda w: (w["specification"]["tasks"][0]["parents"].append("merge_00000004"),
                        w["specification"]["tasks"][3]["children"].append("split_00000001")),
    "no runtime": lambda w: w["execution"]["tasks"].pop(),
    "negative runtime": lambda w: w["execution"]["tasks"][0].update(runtimeInSeconds=-1),
    "duplicate id": lambda w: w["specification"]["tasks"][2].update(id="align_00000002"),
    "too many cores": lambda w: w["execution"]["tasks"][0].update(coreCount=9),
    "a parent that is no id": lambda w: w["specification"]["tasks"][1]["parents"].append(["split_00000001"]),
    "an execution id twice": lambda w: w["execution"]["tasks"].append(dict(w["execution"]["tasks"][0])),
    "an execution of no task": lambda w: w["execution"]["tasks"].append({"id": "ghost", "runtimeInSeconds": 1}),
}


@pytest.mark.parametrize("name", sorted(BAD_WFFORMAT))
def test_a_broken_wfformat_file_is_one_line(tmp_path, name):
    path = _broken_wfformat(tmp_path, BAD_WFFORMAT[name])
    done = run_cli("convert", "--from", "wfformat", path, "--cores", "2")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "broken.json" in done.stderr


def test_a_wfcommons_recipe_is_seeded_and_byte_for_byte_reproducible(tmp_path):
    made = [run_cli("generate", "wfcommons-blast", "--tasks", "50", "--seed", str(seed), "--cores", "3")
            for seed in (7, 7, 8)]
    assert all(done.returncode == 0 for done in made), made[0].stderr
    assert made[0].stdout == made[1].stdout != made[2].stdout
    instance = sb.load(json.loads(made[0].stdout))
    assert instance.meta["generator"] == "wfcommons-blast" and 40 <= len(instance.tasks) <= 50
    schedule = sb.heuristic("pslr", instance)
    assert sb.validate(instance, schedule) == []
    for refused in (["--tasks", "5"], ["--tasks", "10001"], ["--tasks", "60", "--seed", str(2**32)]):
        done = run_cli("generate", "wfcommons-montage", *refused)
        assert done.returncode == 2 and done.stderr.startswith(f"schedbench: {refused[-2]}:"), done.stderr


def _trace_jobs(trace, *options) -> list[dict]:
    done = run_cli("generate", "workflow-swf", "--trace", trace, *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["jobs"]


def test_swf_status_and_partition_filters_keep_what_they_name(tmp_path):
    """The sample's jobs that ran are completed (status 1), its cancelled ones
    (status 5) never ran; here its first ten jobs are marked failed (status 0)."""
    lines = (DATA / "sample.swf").read_text().splitlines()
    data = [index for index, line in enumerate(lines) if not line.startswith(";")]
    for index in data[:10]:
        fields = lines[index].split()
        lines[index] = " ".join([*fields[:10], "0", *fields[11:]])
    trace = tmp_path / "failed.swf"
    trace.write_text("\n".join(lines) + "\n")
    every = _trace_jobs(trace)
    completed, failed = _trace_jobs(trace, "--status", "1"), _trace_jobs(trace, "--status", "[0]")
    assert len(completed) + len(failed) == len(every) and 1 <= len(failed) <= 10
    assert _trace_jobs(trace, "--status", "[0, 1]") == every == _trace_jobs(trace, "--partition", "-1")
    for nothing in (["--partition", "3"], ["--status", "5"]):
        done = run_cli("generate", "workflow-swf", "--trace", trace, *nothing)
        assert done.returncode == 2 and "no usable jobs" in done.stderr


def test_an_swf_line_without_the_formats_18_fields_is_refused(tmp_path):
    lines = (DATA / "sample.swf").read_text().splitlines()
    first = next(index for index, line in enumerate(lines) if not line.startswith(";"))
    lines[first] = " ".join(lines[first].split()[:17])
    trace = tmp_path / "short.swf"
    trace.write_text("\n".join(lines) + "\n")
    done = run_cli("generate", "swf", "--trace", trace)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"line {first + 1}: a job line has the format's 18 fields, found 17" in done.stderr


def test_a_first_line_that_counts_the_dummies_reads_the_same_graph(tmp_path):
    standard = _convert(tmp_path, "--from", "stg", DATA / "stg_small.stg", "--cores", "2")
    counted = _convert(tmp_path, "--from", "stg", DATA / "stg_dummies_counted.stg", "--cores", "2")
    assert counted["jobs"] == standard["jobs"]
    assert counted["meta"]["first_line_counts_the_dummies"] == ["stg_dummies_counted.stg"]
    assert "first_line_counts_the_dummies" not in standard["meta"]
