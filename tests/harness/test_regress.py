"""``schedbench regress``, the regression test CI runs: every heuristic on
every certified optimum of the corpus, against the stored ratios."""

import json
import re
import shutil
from fractions import Fraction

import pytest
from click.testing import CliRunner

from schedbench.harness.corpus import default_table, load, opt_entries, read_table
from schedbench.harness.regress import default_baseline, read_baseline, write_baseline
from schedbench.cli import cli
from schedbench.schedule import Schedule
from conftest import run_cli


def regress(*args):
    return CliRunner().invoke(cli, ["regress", *args])


def test_the_landed_heuristics_keep_every_ratio_and_every_schedule_valid():
    outcome = regress()
    assert outcome.exit_code == 0, outcome.output
    assert "REGRESSION" not in outcome.output and "new:" not in outcome.output
    baseline = read_baseline(default_baseline(default_table()))
    counted = re.search(r"(\d+) ratios \((\d+) relaxed schedules without one\): 0 regressions, 0 better, 0 new, "
                        r"0 stale", outcome.output)
    assert counted and int(counted.group(1)) == len(baseline) and int(counted.group(2)) > 0, outcome.output
    covered = {instance.split("/")[0] for instance, _, _ in baseline}
    assert covered == {"pcmax", "campaign", "mosp", "dssp", "knapsack", "workflow"}  # three_partition has none


def _sequential(instance) -> Schedule:
    """Every job on machine 0, one after the other: valid, and worse than LPT whenever m > 1."""
    starts = [sum(instance.jobs[:j]) for j in range(len(instance.jobs))]
    return Schedule.of([0] * len(starts), starts)


def test_a_worsened_pcmax_heuristic_fails(monkeypatch):
    from schedbench.heuristics import pcmax

    monkeypatch.setitem(pcmax.HEURISTICS, "lpt", _sequential)
    outcome = regress("--family", "pcmax")
    assert outcome.exit_code == 1
    regressions = [line for line in outcome.output.splitlines() if line.startswith("REGRESSION")]
    assert len(regressions) == len(opt_entries(read_table(default_table()), "pcmax"))  # every instance has m > 1
    assert all(" makespan lpt: " in line for line in regressions)
    first = opt_entries(read_table(default_table()), "pcmax")[0]
    ratio = sum(load(default_table(), first).jobs) / first.value
    assert f"REGRESSION: {first.instance} makespan lpt: {ratio} ({float(ratio):.4f}), baseline " in outcome.output


def test_a_campaign_heuristic_delayed_by_one_fails(monkeypatch):
    from schedbench.heuristics import campaign

    original = campaign.HEURISTICS["faircamp"]

    def late(instance, **options):
        schedule = original(instance, **options)
        return Schedule(schedule.machine, tuple(s + 1 for s in schedule.start))

    monkeypatch.setitem(campaign.HEURISTICS, "faircamp", late)
    outcome = regress("--family", "campaign")
    assert outcome.exit_code == 1
    regressions = [line for line in outcome.output.splitlines() if line.startswith("REGRESSION")]
    assert regressions and all(" faircamp: " in line for line in regressions)
    # the flows grow by one per user: sum-user-flow gets worse on every entry
    certified = [e for e in opt_entries(read_table(default_table()), "campaign") if e.objective == "sum-user-flow"]
    assert len([line for line in regressions if "sum-user-flow" in line]) == len(certified)


def test_an_invalid_schedule_is_a_regression(monkeypatch):
    from schedbench.heuristics import pcmax

    monkeypatch.setitem(pcmax.HEURISTICS, "spt", lambda instance: Schedule.of([0] * len(instance.jobs),
                                                                               [0] * len(instance.jobs)))
    outcome = regress("--family", "pcmax")
    assert outcome.exit_code == 1
    assert "REGRESSION: pcmax/uniform-n8-m2-s0.json makespan spt: invalid: overlap" in outcome.output


def test_update_records_new_and_better_ratios_but_not_worse(tmp_path, monkeypatch):
    table = tmp_path / "known_values.csv"
    shutil.copy(default_table(), table)
    shutil.copytree(default_table().parent / "pcmax", tmp_path / "pcmax")
    shipped = read_baseline(default_baseline(default_table()))
    mine = dict(shipped)
    dropped = ("pcmax/uniform-n8-m2-s0.json", "makespan", "multifit")
    loosened = ("pcmax/uniform-n10-m3-s1.json", "makespan", "list")
    del mine[dropped]
    mine[loosened] += 1
    write_baseline(tmp_path / "heuristic_ratios.csv", mine)
    from schedbench.heuristics import pcmax

    monkeypatch.setitem(pcmax.HEURISTICS, "lpt", _sequential)

    outcome = regress("--family", "pcmax", "--table", str(table), "--update")
    assert outcome.exit_code == 1  # lpt is still worse
    assert f"new: {' '.join(dropped)}: {shipped[dropped]}" in outcome.output
    assert f"better: {' '.join(loosened)}: {shipped[loosened]}" in outcome.output
    updated = read_baseline(tmp_path / "heuristic_ratios.csv")
    assert updated[dropped] == shipped[dropped] and updated[loosened] == shipped[loosened]
    lpt = [k for k in updated if k[2] == "lpt"]
    assert lpt and all(updated[k] == shipped[k] for k in lpt)  # the ratchet kept the good ratios
    assert {k: v for k, v in updated.items() if not k[0].startswith("pcmax/")} == \
           {k: v for k, v in shipped.items() if not k[0].startswith("pcmax/")}  # other families untouched


def test_a_heuristic_beating_a_certified_optimum_fails(tmp_path):
    """A wrong opt entry (or a validator that stopped catching a bad schedule)
    shows as a value better than the optimum: never an improvement."""
    table = tmp_path / "known_values.csv"
    shutil.copytree(default_table().parent / "pcmax", tmp_path / "pcmax")
    text = default_table().read_text()
    wrong = next(e for e in opt_entries(read_table(default_table()), "pcmax"))
    row = f"{wrong.instance},pcmax,makespan,opt,{wrong.value},{wrong.value},"
    assert row in text
    table.write_text(text.replace(row, f"{wrong.instance},pcmax,makespan,opt,{wrong.value + 50},{wrong.value + 50},"))
    shutil.copy(default_baseline(default_table()), tmp_path / "heuristic_ratios.csv")
    outcome = regress("--family", "pcmax", "--table", str(table))
    assert outcome.exit_code == 1
    assert f"REGRESSION: {wrong.instance} makespan lpt: value" in outcome.output
    assert f"beats the certified optimum {wrong.value + 50}" in outcome.output and "better:" not in outcome.output


def test_a_relaxed_mosp_schedule_has_no_ratio_to_spec_optimum():
    """less-helped-first keeps the local constraints of its own local schedule,
    which are looser than SPEC's: 8 here, while SPEC's optimum is 9."""
    from schedbench.harness import regress as reg
    from schedbench.harness.corpus import Entry
    from schedbench.heuristics.mosp import HEURISTICS
    from schedbench.model import parse_instance

    instance = parse_instance({"family": "mosp", "format_version": 1, "local_objective": "cmax",
                               "organizations": [{"machines": 1, "jobs": [8, 4]}, {"machines": 2, "jobs": [1, 4, 6]}]})
    entry = Entry("x.json", "mosp", "makespan", "opt", Fraction(9), Fraction(9), "cpsat+milp", 10.0)
    [outcome] = reg.evaluate(HEURISTICS["less-helped-first"], "less-helped-first", instance, [entry],
                             checked_as="less-helped-first")
    assert (outcome.value, outcome.ratio, outcome.problem) == (8, None, "")
    [checked] = reg.evaluate(HEURISTICS["less-helped-first"], "mine", instance, [entry], checked_as=None)
    assert checked.problem.startswith("invalid: ")   # a user's function is held to SPEC's rules


USER_HEURISTIC = '''
from schedbench.schedule import Schedule


def sequential(instance):
    starts = [sum(instance.jobs[:j]) for j in range(len(instance.jobs))]
    return Schedule.of([0] * len(starts), starts)


def overlapping(instance):
    return Schedule.of([0] * len(instance.jobs), [0] * len(instance.jobs))
'''


def test_a_user_heuristic_gets_its_ratio_table(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(USER_HEURISTIC)
    outcome = regress("--heuristic", f"{path}:sequential", "--family", "pcmax")
    assert outcome.exit_code == 0, outcome.output
    entries = opt_entries(read_table(default_table()), "pcmax")
    ratios = []
    for entry in entries:
        total = Fraction(sum(load(default_table(), entry).jobs))
        ratios.append(total / entry.value)
        assert f"{entry.instance} makespan: value {total}, optimum {entry.value}, " \
               f"ratio {float(total / entry.value):.4f}\n" in outcome.output
    mean = sum(ratios) / len(ratios)
    assert f"makespan: mean ratio {float(mean):.4f}, worst {float(max(ratios)):.4f} over" in outcome.output
    exact = json.loads(regress("--heuristic", f"{path}:sequential", "--family", "pcmax", "--json").output)
    assert Fraction(*exact["summary"][0]["mean"]) == mean and Fraction(*exact["summary"][0]["worst"]) == max(ratios)


def test_an_invalid_user_schedule_is_listed_and_fails(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(USER_HEURISTIC)
    outcome = regress("--heuristic", f"{path}:overlapping", "--family", "pcmax")
    assert outcome.exit_code == 1
    assert "pcmax/uniform-n8-m2-s0.json makespan: invalid: overlap" in outcome.output


@pytest.mark.parametrize("args, message", [
    (["--heuristic", "no_colon", "--family", "pcmax"], "expected MODULE:FUNCTION"),
    (["--heuristic", "schedbench.nothing_here:f", "--family", "pcmax"], "cannot load schedbench.nothing_here"),
    (["--heuristic", "schedbench.heuristics.pcmax:nothing", "--family", "pcmax"], "has no function 'nothing'"),
    (["--heuristic", "missing.py:f", "--family", "pcmax"], "no file missing.py"),
    (["--heuristic", "schedbench.heuristics.pcmax:lpt"], "--family: --heuristic needs the family"),
    (["--family", "nope"], "unknown family 'nope'"),
    (["--table", "nope.csv"], "--table: no file nope.csv"),
    (["--family", "pcmax", "--baseline", "nope.csv"], "--baseline: no file nope.csv"),  # was a pass checking nothing
])
def test_a_bad_heuristic_spec_is_one_line_and_exit_2(args, message):
    result = run_cli("regress", *args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


SHIPPED_ROW = next(line + "\n" for line in default_table().read_text().splitlines()
                   if line.startswith("pcmax/uniform-n8-m2-s0.json,pcmax,makespan,opt,"))
HEADERS = {"table": default_table().read_text().splitlines()[0] + "\n",
           "baseline": "instance,objective,heuristic,ratio\n"}
GOOD = {"table": SHIPPED_ROW, "baseline": "pcmax/uniform-n8-m2-s0.json,makespan,lpt,1\n"}


def shipped_with(column: str, text: str) -> str:
    """The shipped row with one column's text replaced."""
    fields = SHIPPED_ROW.rstrip("\n").split(",")
    fields[HEADERS["table"].rstrip("\n").split(",").index(column)] = text
    return ",".join(fields) + "\n"


@pytest.mark.parametrize("bad_file, row, message", [
    ("table", shipped_with("value", "abc"), "Invalid literal for Fraction: 'abc'"),
    ("table", shipped_with("status", "optimal"), "status must be one of opt, best, bestdual, infeasible, got 'optimal'"),
    ("table", shipped_with("instance_hash", ""), "instance_hash must be a sha256 (64 hex digits), got ''"),
    ("baseline", "pcmax/uniform-n8-m2-s0.json,makespan,lpt,x\n", "Invalid literal for Fraction: 'x'"),
    # rows that cannot be certificates, refused rather than read (a table edited by hand)
    ("table", shipped_with("family", "zzz"), "family must be one of"),
    ("table", shipped_with("objective", "flowtime"), "objective 'flowtime' is not one of pcmax: makespan"),
    ("table", shipped_with("time_limit", "-1"), "time_limit must be a finite number of seconds > 0, got '-1'"),
    ("table", shipped_with("bound", "30"), "an opt entry's value and bound are the optimum"),
    ("baseline", "pcmax/uniform-n8-m2-s0.json,makespan,lpt,-1\n", "ratio must be >= 0"),
    ("baseline", "pcmax/uniform-n8-m2-s0.json,makespan\n", "the row has no ratio column"),
])
def test_a_malformed_table_or_baseline_is_one_line_naming_the_line(tmp_path, bad_file, row, message):
    paths = {name: tmp_path / f"{name}.csv" for name in HEADERS}
    for name, path in paths.items():
        path.write_text(HEADERS[name] + (row if name == bad_file else GOOD[name]))
    shutil.copytree(default_table().parent / "pcmax", tmp_path / "pcmax")
    result = run_cli("regress", "--family", "pcmax", "--table", paths["table"], "--baseline", paths["baseline"])
    assert result.returncode == 2, result.stderr
    assert f"{paths[bad_file]} line 2: {message}" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_row_given_twice_is_refused_not_overwritten(tmp_path):
    paths = {name: tmp_path / f"{name}.csv" for name in HEADERS}
    for name, path in paths.items():
        path.write_text(HEADERS[name] + GOOD[name] * 2)
    shutil.copytree(default_table().parent / "pcmax", tmp_path / "pcmax")
    result = run_cli("regress", "--family", "pcmax", "--table", paths["table"])
    assert result.returncode == 2 and f"{paths['table']} line 3: " in result.stderr and "certified twice" in result.stderr
    paths["table"].write_text(HEADERS["table"] + GOOD["table"])
    result = run_cli("regress", "--family", "pcmax", "--table", paths["table"], "--baseline", paths["baseline"])
    assert result.returncode == 2 and f"{paths['baseline']} line 3: " in result.stderr and "given twice" in result.stderr


def test_an_instance_file_edited_since_certification_is_refused(tmp_path):
    """The table certifies an instance, not a path: an edited file's optimum is not its optimum."""
    table = tmp_path / "known_values.csv"
    shutil.copy(default_table(), table)
    shutil.copytree(default_table().parent / "pcmax", tmp_path / "pcmax")
    edited = tmp_path / "pcmax" / "uniform-n8-m2-s0.json"
    edited.write_text(edited.read_text().replace('"machines": 2', '"machines": 3'))
    result = run_cli("regress", "--family", "pcmax", "--table", table)
    assert result.returncode == 2, result.stderr
    assert "pcmax/uniform-n8-m2-s0.json is not the instance its makespan entry certifies" in result.stderr


def test_a_certified_optimum_off_the_files_published_optimum_is_a_problem():
    from schedbench.harness.corpus import Entry
    from schedbench.harness.regress import evaluate
    from schedbench.heuristics.knapsack import HEURISTICS
    from schedbench.model.knapsack import Item, KnapsackInstance

    instance = KnapsackInstance(5, (Item(3, 4), Item(2, 3), Item(4, 5)), "published", {"published_optimum": {"profit": 7}})
    entries = [Entry("knapsack/published.json", "knapsack", "profit", "opt", Fraction(v), Fraction(v), "cpsat+milp", 10)
               for v in (7, 8)]
    name, heuristic = next(iter(HEURISTICS.items()))
    right, edited = evaluate(heuristic, name, instance, entries, checked_as=name)
    assert right.problem == "" and right.ratio is not None
    assert edited.problem == "the certified optimum 8 is not the file's published optimum 7"
