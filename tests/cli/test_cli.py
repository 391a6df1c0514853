"""The command contract of docs/reference/formats.md, run as a user runs it."""

import json

import pytest

from conftest import run_cli, write_json
from schedbench.families import model_backends

PCMAX = {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [3, 3, 2, 2, 2]}
CAMPAIGN = {"family": "campaign", "format_version": 1, "machines": 1,
            "users": [{"campaigns": [{"jobs": [3]}]}, {"campaigns": [{"jobs": [2]}, {"jobs": [3]}]}]}


@pytest.mark.parametrize("solver", model_backends())
def test_solve_pcmax_json(tmp_path, solver):
    out = run_cli("solve", write_json(tmp_path, "p.json", PCMAX), "--solver", solver, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert {"status", "objective", "bound", "solver", "wall_time", "schedule"} <= set(result)
    assert result["status"] == "optimal" and result["objective"] == 6 and result["bound"] == 6
    assert result["solver"] == solver and len(result["schedule"]["jobs"]) == 5


def test_solve_ratio_objective_gives_fraction(tmp_path):
    path = write_json(tmp_path, "c.json", CAMPAIGN)
    out = run_cli("solve", path, "--objective", "max-user-stretch", "--json")
    result = json.loads(out.stdout)
    assert result["status"] == "optimal"
    assert result["objective_fraction"] == [8, 5] and result["objective"] == 1.6
    schedule = write_json(tmp_path, "s.json", result)
    assert run_cli("validate", path, schedule).returncode == 0


def test_heuristic_json_and_validate_round_trip(tmp_path):
    path = write_json(tmp_path, "c.json", CAMPAIGN)
    out = run_cli("heuristic", "faircamp", path, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["metrics"]["objectives"]["max-user-stretch"]["fraction"] == [5, 3]
    good = write_json(tmp_path, "good.json", result["schedule"])
    assert run_cli("validate", path, good).stdout.strip() == "valid"
    broken = result["schedule"]
    broken["users"][1]["campaigns"][1]["jobs"][0]["start"] = 0
    checked = run_cli("validate", path, write_json(tmp_path, "bad.json", broken), "--json")
    assert checked.returncode == 1
    assert not json.loads(checked.stdout)["valid"]


def test_the_schedule_can_go_to_a_file_or_be_left_out(tmp_path):
    path = write_json(tmp_path, "c.json", CAMPAIGN)
    target = tmp_path / "schedule.json"
    written = json.loads(run_cli("heuristic", "faircamp", path, "--json", "--schedule-out", target).stdout)
    assert written["schedule"] == str(target) and run_cli("validate", path, target).stdout.strip() == "valid"
    left_out = json.loads(run_cli("heuristic", "faircamp", path, "--json", "--no-schedule").stdout)
    assert left_out["schedule"] is None and left_out["metrics"] == written["metrics"]
    solved = json.loads(run_cli("solve", path, "--objective", "max-user-stretch", "--json", "--no-schedule",
                                "--time-limit", "5").stdout)
    assert solved["status"] == "optimal" and solved["schedule"] is None


@pytest.mark.parametrize("args,needle", [
    (["solve", "{path}", "--objective", "nope"], "--objective"),
    (["solve", "{path}", "--solver", "gurobi"], "--solver"),
    (["solve", "{path}", "--time-limit", "-1"], "--time-limit"),
    (["solve", "{path}", "--time-limit", "abc"], "--time-limit"),
    (["solve", "{path}", "-o", "formulation=xyz", "--solver", "milp"], "options.formulation"),
    (["solve", "{path}", "-o", "formulation"], "--option"),
    (["solve", "{path}", "-o", "depth=3"], "options.depth"),
    (["solve", "{missing}"], "cannot read"),
    (["heuristic", "nope", "{path}"], "NAME"),
    (["heuristic", "ostrich", "{path}", "-o", "inner=mlpt"], "inner"),
    (["heuristic", "fcfs", "{path}", "-o", "seed=3"], "options.seed"),
    (["generate", "nope"], "GENERATOR"),
    (["generate", "faircamp", "--users", "0"], "--users"),
    (["generate", "faircamp", "--colour", "red"], "--colour"),
    (["solve", "{bad}"], "users[0].campaigns[0].jobs[0]"),
    (["solve", "{notjson}"], "not valid JSON"),
    (["validate", "{path}", "{notjson}"], "not valid JSON"),
    (["generate", "swf"], "--trace"),
    (["heuristic", "fcfs", "{path}", "--no-schedule", "--schedule-out", "s.json"], "--no-schedule"),
    (["bogus"], "No such command"),
])
def test_bad_input_gives_one_line_and_exit_2(tmp_path, args, needle):
    paths = {
        "path": write_json(tmp_path, "c.json", CAMPAIGN),
        "missing": tmp_path / "missing.json",
        "bad": write_json(tmp_path, "bad.json", dict(CAMPAIGN, users=[{"campaigns": [{"jobs": [0]}]}])),
        "notjson": tmp_path / "x.json",
    }
    paths["notjson"].write_text("{not json")
    out = run_cli(*[a.format(**paths) for a in args])
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], out.stderr
    assert "Traceback" not in out.stderr


def test_generate_is_byte_for_byte_reproducible(tmp_path):
    a = run_cli("generate", "faircamp", "--users", "5", "--seed", "7", "--jobs", "500")
    b = run_cli("generate", "faircamp", "--users", "5", "--seed", "7", "--jobs", "500")
    c = run_cli("generate", "faircamp", "--users", "5", "--seed", "8", "--jobs", "500")
    assert a.returncode == 0 and a.stdout == b.stdout != c.stdout
    inst = json.loads(a.stdout)
    assert sum(len(c["jobs"]) for u in inst["users"] for c in u["campaigns"]) == 500


def test_help_explains_each_command():
    for command in ("solve", "heuristic", "validate", "generate", "claims", "bounds", "run", "table", "report"):
        out = run_cli(command, "--help")
        assert out.returncode == 0 and "Usage" in out.stdout


def test_version_and_each_command_once_in_help():
    assert run_cli("--version").stdout.startswith("schedbench, version ")
    listed = [line.split()[0] for line in run_cli("--help").stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert len(listed) == len(set(listed)) and "claims" in listed and "bounds" not in listed
    assert run_cli("bounds", "--help").returncode == 0  # the alias still runs


FALSE_CLAIM = '''from schedbench.claims import Check, Claim

FAMILY = "pcmax"


def lpt_is_optimal(case):
    value, optimum = case.value("lpt"), case.optimum()
    return Check(value <= optimum, value / optimum)


CLAIMS = [Claim("lpt.optimal", "LPT is always optimal (false)", lambda instance: True, lpt_is_optimal, "project")]
'''


def test_claims_check_exits_1_on_a_violated_claim_and_prints_json(tmp_path):
    path = tmp_path / "false.py"
    path.write_text(FALSE_CLAIM)
    out = run_cli("claims", "check", path, "--instances", "20", "--out", tmp_path / "cex", "--json")
    assert out.returncode == 1, out.stderr
    ledger = json.loads(out.stdout)["claims"][0]
    assert ledger["key"] == "lpt.optimal" and ledger["violations"] > 0
    numerator, denominator = ledger["worst"]
    assert numerator > denominator  # observed / bound above 1: the violation
    true = path.with_name("true.py")
    true.write_text(FALSE_CLAIM.replace("value <= optimum", "value >= optimum"))
    assert run_cli("claims", "check", true, "--instances", "5", "--out", tmp_path / "cex").returncode == 0


def test_regress_prints_decimals_on_screen_and_fractions_in_json(tmp_path):
    shown = run_cli("regress", "--family", "pcmax")
    assert shown.returncode == 0 and "0 regressions" in shown.stdout
    assert max(len(token) for token in shown.stdout.split()) < 40  # no fraction of a hundred digits
    summary = json.loads(run_cli("regress", "--family", "pcmax", "--json").stdout)["summary"]
    assert all(len(row["mean"]) == 2 and row["mean"][0] >= row["mean"][1] for row in summary)


def test_worst_json_gives_every_ratio_as_num_den():
    out = json.loads(run_cli("worst", "lpt", "--family", "pcmax", "--machines", "2", "--evaluations", "20",
                             "--json").stdout)
    assert isinstance(out["ratio"], list) and all(isinstance(step["ratio"], list) for step in out["trajectory"])
