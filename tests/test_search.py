"""The worst-case search (schedbench.search, schedbench worst) and user
claim files (schedbench claims check): calibrated on bounds known to be
tight, deterministic, never scoring an unproven instance."""

import json
import random
from fractions import Fraction

from schedbench.claims.user import Case, load
from schedbench.instances.pcmax import search_start
from schedbench.model import parse_instance
from schedbench.model.pcmax import size
from schedbench.search import Limits, Scored, mutate, search, smaller
from schedbench.worst import worst

from conftest import REPO, run_cli

TUTORIAL = REPO / "docs" / "examples" / "claims_pcmax.py"


def test_lpt_reaches_grahams_tight_bound_on_two_and_three_machines():
    """4/3 - 1/(3m) is reached, and never passed, by LPT's worst instances
    (2m + 1 jobs: two of each length 2m - 1 down to m + 1, three of m)."""
    for m, evaluations in ((2, 1500), (3, 6000)):
        found = worst("lpt", "pcmax", limits=Limits((m, m), 2 * m + 3, 3 * m), evaluations=evaluations, budget=None)
        assert found.scored.ratio == Fraction(4, 3) - Fraction(1, 3 * m), m


def test_list_scheduling_reaches_two_minus_one_over_m():
    found = worst("list", "pcmax", limits=Limits((2, 2), 6, 6), evaluations=1500, budget=None)
    assert found.scored.ratio == Fraction(3, 2)


def test_the_search_is_deterministic_for_a_seed_and_its_result_is_shrunk():
    runs = [worst("lpt", "pcmax", limits=Limits((3, 3), 8, 12), evaluations=400, budget=None, seed=5)
            for _ in range(2)]
    assert runs[0].data == runs[1].data and runs[0].scored == runs[1].scored
    found = runs[0]
    assert found.scored.ratio >= worst("lpt", "pcmax", limits=Limits((3, 3), 8, 12), evaluations=400, budget=None,
                                       seed=5).scored.ratio
    assert sum(found.data["jobs"]) <= sum(found.unshrunk["jobs"])
    assert found.evaluated >= 400


def test_an_unproven_instance_is_skipped_never_scored():
    """A score that cannot prove (None) on odd totals: no odd total is ever the answer."""
    def score(instance):
        total = sum(instance.jobs)
        return None if total % 2 else Scored(Fraction(total, 100))

    found = search(lambda rng, scale: {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [2, 2]}, score, size,
                   Limits((2, 2), 6, 9), evaluations=300)
    assert found.skipped > 0 and found.evaluated >= 300
    assert sum(found.data["jobs"]) % 2 == 0 and found.scored.ratio >= Fraction(40, 100)


def test_moves_keep_the_document_and_the_limits():
    rng = random.Random(1)
    limits = Limits((3, 3), 7, 9)
    data = {"family": "pcmax", "format_version": 1, "name": "x", "meta": {"generator": "uniform"},
            "machines": 3, "jobs": [4, 5, 6]}
    for _ in range(300):
        out = mutate(data, rng, limits)
        assert out["family"] == "pcmax" and out["format_version"] == 1 and "meta" not in out
        assert all(0 <= v <= limits.max_value for v in out["jobs"])
    assert data["jobs"] == [4, 5, 6]  # moves work on a copy
    assert {"family": "pcmax", "format_version": 1, "machines": 3, "jobs": [2, 2, 3]} in list(smaller(data))


def test_every_family_start_respects_the_limits():
    from schedbench import families
    from schedbench.worst import start_of

    limits = Limits((2, 3), 9, 7)
    for family in ("pcmax", "campaign", "mosp", "dssp", "workflow"):
        rng = random.Random(0)
        for _ in range(5):
            instance = start_of(family)(rng, limits)
            jobs, machines = families.size(instance)
            assert 2 <= machines <= 3, family
    assert size(search_start(random.Random(0), Limits((4, 4), 9, 7))).machines == 4


def test_worst_command_prints_the_ratio_and_saves_the_instance(tmp_path):
    out = run_cli("worst", "lpt", "--family", "pcmax", "--machines", "2", "--evaluations", "1500",
                  "--out", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["ratio"] == [7, 6] and result["evaluated"] >= 1500
    instance = parse_instance(result["instance"])
    assert (result["heuristic_value"], result["optimum"]) == (7 * Fraction(result["optimum"], 6), result["optimum"])
    saved = json.loads(next(tmp_path.glob("worst-pcmax-lpt-makespan-s0.json")).read_text())
    assert saved["jobs"] == list(instance.jobs)
    assert json.loads((tmp_path / "worst-pcmax-lpt-makespan-s0.search.json").read_text())["trajectory"]


def test_worst_refuses_bad_options_naming_them():
    for args, field in ((["--family", "nosuch"], "family"), (["--family", "pcmax", "--machines", "0"], "--machines"),
                        (["--family", "pcmax", "--objective", "flow"], "--objective")):
        out = run_cli("worst", "lpt", *args, "--evaluations", "5")
        assert out.returncode == 2 and field in out.stderr and "Traceback" not in out.stderr, args
    out = run_cli("worst", "nosuch", "--family", "pcmax", "--evaluations", "5")
    assert out.returncode == 2 and "HEURISTIC" in out.stderr


def test_the_tutorial_claim_file_holds_one_claim_and_breaks_the_other(tmp_path):
    out = run_cli("claims", "check", str(TUTORIAL), "--instances", "30", "--search", "6", "--machines", "3",
                  "--max-jobs", "8", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    rows = {line.split("|")[1].strip(): line for line in out.stdout.splitlines() if line.startswith("| l")}
    assert rows["lpt.graham"].split("|")[5].strip() == "0"
    assert int(rows["list.three-halves"].split("|")[5]) >= 1
    saved = list(tmp_path.glob("list.three-halves-*.json"))
    assert saved
    case = Case(parse_instance(json.loads(saved[0].read_text())))
    assert case.value("list") > Fraction(3, 2) * case.optimum()  # the shrunk file reproduces the violation
    claims = load(TUTORIAL).claims
    assert all(c.check(Case(parse_instance({"family": "pcmax", "format_version": 1, "machines": 2,
                                            "jobs": [3, 3, 2, 2, 2]}))).holds for c in claims)


def test_a_claim_file_without_claims_is_refused(tmp_path):
    path = tmp_path / "empty.py"
    path.write_text('FAMILY = "pcmax"\n')
    out = run_cli("claims", "check", str(path))
    assert out.returncode == 2 and "CLAIMS" in out.stderr and "Traceback" not in out.stderr
    path.write_text('FAMILY = "pcmax"\nraise RuntimeError("broken")\n')
    out = run_cli("claims", "check", str(path))
    assert out.returncode == 2 and "broken" in out.stderr


def test_chains_on_a_process_pool_keep_the_best_of_their_seeds():
    limits = Limits((3, 3), 8, 12)
    alone = [worst("lpt", "pcmax", limits=limits, evaluations=150, budget=None, seed=2 * 1009 + i) for i in range(2)]
    pooled = worst("lpt", "pcmax", limits=limits, evaluations=150, budget=None, seed=2, chains=2, workers=2)
    assert pooled.scored.ratio == max(f.scored.ratio for f in alone)
    assert pooled.evaluated == sum(f.evaluated for f in alone)
