"""The worst-case search (schedbench.search, schedbench worst) and user
claim files (schedbench claims check): calibrated on bounds known to be
tight, deterministic, never scoring an unproven instance."""

import json
import random
from fractions import Fraction

import pytest

from schedbench.claim_files import Case, load
from schedbench.instances.pcmax import search_start
from schedbench.model import instance_to_json, parse_instance
from schedbench.model.pcmax import size
from schedbench.search import Limits, Scored, luby, mutate, search, smaller
from schedbench.worst import draw_start, json_start, ratio_score, worst

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
    unshrunk = worst_score(found.unshrunk)
    assert found.scored.ratio >= unshrunk and len(found.data["jobs"]) <= len(found.unshrunk["jobs"])
    assert found.evaluated >= 400


def worst_score(data: dict) -> Fraction:
    from schedbench.worst import ratio_score

    return ratio_score("pcmax", "lpt", "makespan", 5.0)(parse_instance(data)).ratio


def test_random_sampling_only_draws_fresh_starts():
    """The baseline: no move, no restart near the best; every instance is a start."""
    drawn = []

    def start(rng, limits):
        drawn.append({"family": "pcmax", "format_version": 1, "machines": 2,
                      "jobs": [rng.randint(1, limits.max_value) for _ in range(3)]})
        return drawn[-1]

    found = search(start, lambda inst: Scored(Fraction(max(inst.jobs), sum(inst.jobs))), size, Limits((2, 2), 6, 9),
                   strategy="random", evaluations=50, shrink_result=False)
    assert found.data in drawn and found.evaluated <= len(drawn)


def test_the_search_stops_at_a_known_tight_bound():
    """Asked for 10^5 evaluations, it stops at 2 - 1/2, reached within the first 1,500 (above)."""
    stopped = search(json_start("pcmax"), ratio_score("pcmax", "list", "makespan", 5.0), size, Limits((2, 2), 6, 6),
                     evaluations=10**5, stop_at=Fraction(3, 2), shrink_result=False)
    assert stopped.scored.ratio == Fraction(3, 2) and stopped.evaluated < 5000


def test_restarts_follow_the_luby_sequence():
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_where_moves_never_find_a_better_instance_the_search_samples():
    """A ratio with no locality: fresh starts draw it at random, every moved
    instance scores lower than any start. The search learns that moves do
    not pay and spends most of its evaluations on fresh starts (random
    sampling spends all); where moves pay (LPT, above), it moves."""
    starts: set[str] = set()

    def start(rng, limits):
        data = {"family": "pcmax", "format_version": 1, "machines": 2,
                "jobs": [rng.randint(1, limits.max_value) for _ in range(4)]}
        starts.add(json.dumps(data["jobs"]))
        return data

    def score(instance):
        drawn = json.dumps(list(instance.jobs)) in starts
        return Scored(Fraction(random.Random(str(instance.jobs)).randint(2, 10**6) if drawn else 1, 10**6))

    for seed in range(3):
        starts.clear()
        found = search(start, score, size, Limits((2, 2), 6, 9), seed=seed, evaluations=3000, shrink_result=False)
        assert len(starts) >= 0.6 * found.evaluated, (seed, len(starts), found.evaluated)  # 1% with moves paid as much


@pytest.mark.timing
def test_under_a_time_budget_moves_to_slow_instances_lose_their_share():
    """Moved instances as good per evaluation as fresh starts but 200 times
    slower to score: under a time budget the search charges each source its
    seconds and spends most of them on fresh starts (a chain on slow
    instances gives up after a few evaluations' worth of time; one move a
    chain is the floor); counted in evaluations, moves keep a large share."""
    import time

    def start(rng, limits):
        return {"family": "pcmax", "format_version": 1, "machines": 2, "name": "fresh",
                "jobs": [rng.randint(1, limits.max_value) for _ in range(4)]}

    slow: list[float] = []

    def score(instance):
        if instance.name != "fresh":  # a moved instance keeps no name
            began = time.monotonic()
            time.sleep(0.01)
            slow.append(time.monotonic() - began)
        return Scored(Fraction(random.Random(str(instance.jobs)).randint(2, 10**6), 10**6))

    found = search(start, score, size, Limits((2, 2), 6, 30), seed=1, budget=2.0, shrink_result=False)
    assert sum(slow) < 0.5 * 2.0 and len(slow) < 0.02 * found.evaluated, (sum(slow), len(slow), found.evaluated)
    slow.clear()
    found = search(start, score, size, Limits((2, 2), 6, 30), seed=1, evaluations=200, shrink_result=False)
    assert len(slow) > 0.25 * found.evaluated, (len(slow), found.evaluated)


def test_a_claim_beyond_the_starts_setting_is_searched_from_a_walk_and_a_constructions_is_not():
    """MOSP's start gives each organization one machine; the claim on several
    machines each is searched from starts that moves reach. A claim about one
    of the papers' constructions covers nothing a move reaches."""
    from schedbench import families
    from schedbench.claim_files import claim_start

    claims = {c.key: c for c in families.ledger("mosp").CLAIMS}
    limits = Limits(None, 10, 9)
    assert not claims["mosp.graham.ext"].applies(draw_start("mosp", random.Random(4), limits))
    start = claim_start("mosp", claims["mosp.graham.ext"], limits)
    rng = random.Random(4)
    for _ in range(10):
        instance = parse_instance(start(rng, limits))
        assert claims["mosp.graham.ext"].applies(instance) and families.size(instance).jobs <= 10
    assert claim_start("mosp", claims["mosp.prop1"], limits) is None


def test_an_instance_moved_by_the_search_is_still_covered_by_the_workflow_optimum_claims():
    """A move drops the generator's name; the claims against the optimum judge
    the instance itself (the bug was: moves never scored, the search fell behind random)."""
    from schedbench import families

    claims = {c.key: c for c in families.ledger("workflow").CLAIMS}
    moved = mutate(instance_to_json(draw_start("workflow", random.Random(2), Limits(None, 9, 9))), random.Random(2),
                   Limits(None, 9, 9))
    instance = parse_instance(moved)
    assert not instance.meta and claims["workflow.opt.pslr"].applies(instance)
    assert not claims["workflow.class.pslr"].applies(instance)


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
    from schedbench.worst import draw_start

    for family in ("pcmax", "campaign", "mosp", "dssp", "workflow", "knapsack"):
        limits = Limits(None if family == "knapsack" else (2, 3), 9, 7)   # a knapsack has no machines to bound
        rng = random.Random(0)
        for _ in range(20):
            jobs, machines = families.size(draw_start(family, rng, limits))
            assert jobs <= 9 and (family == "knapsack" or 2 <= machines <= 3), family
    assert size(search_start(random.Random(0), Limits((4, 4), 9, 7))).machines == 4


def test_moves_keep_values_above_the_cap_and_scales_stay_below_it():
    from schedbench.search import _ladder

    rng = random.Random(3)
    data = {"family": "knapsack", "format_version": 1, "capacity": 120, "items": [{"weight": 5, "profit": 4}]}
    capacities = {mutate(data, rng, Limits(None, 5, 20))["capacity"] for _ in range(300)}
    assert {118, 119} <= capacities <= set(range(121))  # a nudge moves it down, never clamps it to --max-value
    assert all(c >= 118 or c <= 20 for c in capacities)  # a redraw or a copy draws within --max-value
    assert _ladder(1) == [1] and _ladder(20) == [20, 10, 5]


def test_worst_command_prints_the_ratio_and_saves_the_instance(tmp_path):
    out = run_cli("worst", "lpt", "--family", "pcmax", "--machines", "2", "--evaluations", "3000",
                  "--out", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["ratio"] == [7, 6] and result["evaluated"] >= 3000
    instance = parse_instance(result["instance"])
    assert (result["heuristic_value"], result["optimum"]) == (7 * Fraction(result["optimum"], 6), result["optimum"])
    saved = json.loads(next(tmp_path.glob("worst-pcmax-lpt-makespan-s0.json")).read_text())
    assert saved["jobs"] == list(instance.jobs)
    assert json.loads((tmp_path / "worst-pcmax-lpt-makespan-s0.search.json").read_text())["trajectory"]


def test_worst_refuses_bad_options_naming_them():
    for args, field in ((["--family", "nosuch"], "--family"), (["--family", "pcmax", "--machines", "0"], "--machines"),
                        (["--family", "pcmax", "--machines", "5-2"], "--machines"),
                        (["--family", "pcmax", "--machines", "2-"], "--machines"),
                        (["--family", "pcmax", "--machines", "x"], "--machines"),
                        (["--family", "pcmax", "--objective", "flow"], "--objective"),
                        (["--family", "three_partition"], "--family")):
        out = run_cli("worst", "lpt", *args, "--evaluations", "5")
        assert out.returncode == 2 and out.stderr.startswith(f"schedbench: {field}:") and "Traceback" not in out.stderr, args
    out = run_cli("worst", "nosuch", "--family", "pcmax", "--evaluations", "5")
    assert out.returncode == 2 and "HEURISTIC" in out.stderr


@pytest.mark.parametrize("body, message", [
    ("def schedule(instance):\n    raise RuntimeError('boom')\n", "failed on a pcmax instance: RuntimeError: boom"),
    ("def schedule(instance):\n    return 42\n", "failed on a pcmax instance: "),
    ("import sys\n\n\ndef schedule(instance):\n    sys.exit(3)\n", "failed on a pcmax instance: SystemExit: 3"),
    ("from schedbench.schedule import Schedule\n\n\ndef schedule(instance):\n"
     "    return Schedule((0,) * len(instance.jobs), (0,) * len(instance.jobs))\n", "returned an invalid schedule: overlap"),
])
def test_a_users_function_that_fails_or_schedules_wrongly_ends_worst_in_one_line(tmp_path, body, message):
    """What the search found in the user's code is the answer, not a traceback
    nor a silent skip (an invalid schedule was counted as "not proven")."""
    (tmp_path / "mine.py").write_text(body)
    out = run_cli("worst", f"{tmp_path / 'mine.py'}:schedule", "--family", "pcmax", "--machines", "2",
                  "--evaluations", "3", "--time-limit", "1")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("schedbench: HEURISTIC: ") and message in out.stderr, out.stderr


def test_worst_takes_a_users_function_and_an_unbounded_ratio_ends_the_search(tmp_path):
    """A DSSP schedule that runs nothing earns 0 where the optimum is positive: OPT / 0 is unbounded."""
    (tmp_path / "idle.py").write_text("from schedbench.schedule import Schedule\n\n\n"
                                      "def nothing(instance):\n"
                                      "    return Schedule((None,) * len(instance.lengths), (None,) * len(instance.lengths))\n")
    out = run_cli("worst", f"{tmp_path / 'idle.py'}:nothing", "--family", "dssp", "--evaluations", "50", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["unbounded"] and result["ratio"] is None and result["heuristic_value"] == 0
    assert result["optimum"] > 0 and result["evaluated"] == 1


def test_the_tutorial_claim_file_holds_one_claim_and_breaks_the_other(tmp_path):
    out = run_cli("claims", "check", str(TUTORIAL), "--instances", "30", "--search", "6", "--machines", "3",
                  "--max-jobs", "8", "--out", str(tmp_path))
    assert out.returncode == 1, out.stderr  # a claim is violated: exit 1
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


def test_a_claim_no_move_reaches_is_reported_not_searched(tmp_path):
    (tmp_path / "construction.py").write_text(
        "from schedbench.claims import PROJECT, Check, Claim\nFAMILY = 'pcmax'\n"
        "CLAIMS = [Claim('only.x', 's', lambda i: i.meta.get('construction') == 'x', lambda c: Check(True, None), PROJECT),\n"
        "          Claim('any', 's', lambda i: True, lambda c: Check(True, None), PROJECT)]\n")
    out = run_cli("claims", "check", str(tmp_path / "construction.py"), "--instances", "3", "--search", "1",
                  "--machines", "2", "--max-jobs", "5", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "only.x: not searched" in out.stdout and "any: search saw" in out.stdout


def test_a_bad_claim_file_is_one_line_naming_it(tmp_path):
    header = ("from fractions import Fraction\nfrom schedbench.claims import PROJECT, Check, Claim\n"
              "FAMILY = 'pcmax'\n")
    bodies = {
        "empty": ("FAMILY = 'pcmax'\n", "CLAIMS"),
        "broken": ("FAMILY = 'pcmax'\nraise RuntimeError('broken')\n", "broken"),
        "divides": (header + "CLAIMS = [Claim('k.div', 's', lambda i: True, lambda c: 1 / 0, PROJECT)]\n",
                    "k.div: raised ZeroDivisionError"),
        "returns": (header + "CLAIMS = [Claim('k.bool', 's', lambda i: True, lambda c: True, PROJECT)]\n",
                    "k.bool: the check must return a Check, got bool"),
        "unknown": (header + "CLAIMS = [Claim('k.h', 's', lambda i: True, lambda c: c.value('nosuch'), PROJECT)]\n",
                    "unknown.py: k.h: heuristic: pcmax has no heuristic 'nosuch'"),
        "objective": (header + "CLAIMS = [Claim('k.o', 's', lambda i: True, lambda c: c.optimum('flowtime'), PROJECT)]\n",
                      "objective.py: k.o: objective: pcmax has no objective 'flowtime' (known: makespan)"),
        "value_objective": (header + "CLAIMS = [Claim('k.v', 's', lambda i: True, lambda c: c.value('lpt', 'x'), PROJECT)]\n",
                            "value_objective.py: k.v: objective: pcmax has no objective 'x' (known: makespan)"),
        "plain_error": (header + "from schedbench.errors import UserInputError\n"
                        "CLAIMS = [Claim('k.e', 's', lambda i: True, lambda c: (_ for _ in ()).throw(UserInputError('', 'bad')), PROJECT)]\n",
                        "plain_error.py: k.e: bad"),
        "text_ratio": (header + "CLAIMS = [Claim('k.t', 's', lambda i: True, lambda c: Check(True, 'big'), PROJECT)]\n",
                       "k.t: the Check's ratio must be None, an int or a Fraction (exact), got 'big'"),
        "float_ratio": (header + "CLAIMS = [Claim('k.f', 's', lambda i: True, lambda c: Check(True, 1.5), PROJECT)]\n",
                        "got 1.5"),
        "exits": (header + "import sys\nCLAIMS = [Claim('k.x', 's', lambda i: True, lambda c: sys.exit(5), PROJECT)]\n",
                  "k.x: raised SystemExit: 5"),
        "exits_at_import": ("import sys\nsys.exit(4)\n", "cannot load"),
        "same_key": (header + "CLAIMS = [Claim('k.s', 's', lambda i: True, lambda c: Check(True, None), PROJECT)] * 2\n",
                     "CLAIMS: two claims have the key 'k.s'"),
        "instances": (header + "def instances(count, seed):\n    return 5\n"
                      "CLAIMS = [Claim('k.i', 's', lambda i: True, lambda c: Check(True, None), PROJECT)]\n",
                      "instances: must return a list of instances or their JSON, got int"),
    }
    for name, (body, message) in bodies.items():
        path = tmp_path / f"{name}.py"
        path.write_text(body)
        out = run_cli("claims", "check", str(path), "--instances", "3", "--out", str(tmp_path / "cx"))
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, (name, out.stderr)
    out = run_cli("claims", "check", str(tmp_path / "missing.py"))
    assert out.returncode == 2 and "no file" in out.stderr


def test_a_claim_file_may_use_dataclasses_and_give_its_instances_as_json(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("from __future__ import annotations\nfrom dataclasses import dataclass\n"
                    "from schedbench.claims import PROJECT, Check, Claim\nFAMILY = 'pcmax'\n\n\n"
                    "@dataclass\nclass Bound:\n    factor: int\n\n\n"
                    "def instances(count, seed):\n"
                    "    return [{'family': 'pcmax', 'format_version': 1, 'machines': 2, 'jobs': [3, 3, 2, 2, 2]}]\n\n\n"
                    "def lpt(case) -> Check:\n"
                    "    ratio = case.value('lpt') / case.optimum()\n"
                    "    return Check(ratio <= Bound(1).factor, ratio, {})\n\n\n"
                    "CLAIMS = [Claim('lpt.one', 'LPT is optimal (false)', lambda i: True, lpt, PROJECT)]\n")
    out = run_cli("claims", "check", str(path), "--out", str(tmp_path / "cx"))
    assert out.returncode == 1, out.stderr  # a claim is violated: exit 1
    assert "| lpt.one | LPT is optimal (false) | 1 | 0 | 1 | 1.1667 |" in out.stdout


def test_the_ledger_form_keeps_working_with_options_first(tmp_path):
    out = run_cli("claims", "--instances", "0", "dssp", "--out", str(tmp_path))
    assert out.returncode == 0 and "dssp.bound" in out.stdout, out.stderr


def test_chains_on_a_process_pool_keep_the_best_of_their_seeds():
    limits = Limits((3, 3), 8, 12)
    alone = [worst("lpt", "pcmax", limits=limits, evaluations=150, budget=None, seed=2 * 1009 + i) for i in range(2)]
    pooled = worst("lpt", "pcmax", limits=limits, evaluations=150, budget=None, seed=2, chains=2, workers=2)
    assert pooled.scored.ratio == max(f.scored.ratio for f in alone)
    assert pooled.evaluated == sum(f.evaluated for f in alone)


def test_a_tie_break_leads_the_search_across_a_plateau():
    """A score at 1 everywhere but on eight jobs of length 20 (ratio 2): the
    search finds them when the tie-break rewards total length, and not
    without it (same seed, same evaluations)."""
    def score(tiebreak: bool):
        def scored(instance):
            full = len(instance.jobs) == 8 and min(instance.jobs) == 20
            return Scored(Fraction(2 if full else 1), {}, Fraction(sum(instance.jobs), 160) if tiebreak else Fraction(0))
        return scored

    def start(rng, scale):
        return {"family": "pcmax", "format_version": 1, "machines": 2, "jobs": [1, 1]}

    def run(tiebreak: bool) -> Fraction:
        return search(start, score(tiebreak), size, Limits((2, 2), 8, 20), seed=0, evaluations=1500,
                      shrink_result=False).scored.ratio

    assert (run(True), run(False)) == (2, 1)
