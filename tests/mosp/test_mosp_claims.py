"""The MOSP claim checks: violations the ledger must catch, the paper's
statements it must confirm, and Theorem 2 end to end through the command."""

import json
from fractions import Fraction

from click.testing import CliRunner

from schedbench.claims.mosp import CLAIMS, MospCase, figure1c, graham, stretch_bound
from schedbench.claims.mosp_run import run, theorem2_instances
from schedbench.cli import cli
from schedbench.instances.mosp import figure1, organizations_from_swf, random_small
from schedbench.instances.swf import read_swf
from schedbench.model import load_instance
from schedbench.model.mosp import MospInstance, Organization
from schedbench.schedule import Schedule

from conftest import SAMPLE_TRACE, run_cli

BY_KEY = {claim.key: claim for claim in CLAIMS}

# Organization 0 has two machines and jobs [2, 2]; organization 1 one machine
# and three unit jobs. C^(1)alone = 1 (three machines), and ILBA leaves
# organization 1 alone on its machine: C^(1) = 3, Stretch 3 > N = 2.
STRETCH_EXT = MospInstance((Organization(2, (2, 2)), Organization(1, (1, 1, 1))), "cmax", "optimal", False,
                           "stretch-ext", {"generator": "mosp-small"})


def test_figure_1c_is_false_for_sum_of_completion_times():
    """§3.1 claims 3N/2 for both local objectives; with sum_ci and N = 3 the
    optimum is 4, not 5: units go first on the long jobs' machines."""
    for objective, expected in (("cmax", 5), ("sum_ci", 4)):
        check = figure1c(MospCase(figure1(3, objective)))
        assert check.numbers["OPT local only"] == f"{expected} (paper 5)"
        assert check.holds == (objective == "cmax")


def test_stretch_bound_needs_one_machine_per_organization():
    case = MospCase(STRETCH_EXT)
    check = stretch_bound(case)
    assert not check.holds and check.numbers["Stretch"] == 3 and check.ratio == Fraction(3, 2)
    assert BY_KEY["mosp.stretch.ext"].applies(STRETCH_EXT) and not BY_KEY["mosp.stretch"].applies(STRETCH_EXT)


def test_graham_check_catches_a_bad_schedule():
    """A schedule stacking every job on one machine breaks 2 - 1/N: the check must say so."""
    inst = random_small(5, organizations=(3, 3), machines=(1, 1), jobs=(2, 2))
    case = MospCase(inst)
    n = len(inst.lengths)
    starts = tuple(sum(inst.lengths[:j]) for j in range(n))
    case.heuristic_schedules["ilba"] = Schedule((0,) * n, starts)
    check = graham("ilba")(case)
    assert not check.holds and check.numbers["ilba"] == sum(inst.lengths)


def test_ledger_finds_the_false_claims_and_saves_them(tmp_path):
    """Paper claims hold on random instances; the two known failures are
    caught, saved, and the saved files reproduce them."""
    items = [figure1(3, "sum_ci"), figure1(4, "cmax"), STRETCH_EXT]
    items += [random_small(s, organizations=(2, 4), machines=(1, 1), jobs=(1, 5), length=(1, 9),
                           local_objective=("cmax", "sum_ci")[s % 2],
                           selfish=bool(s // 2 % 2)) for s in range(20)]
    tallies = {t.claim.key: t for t in run(items, out_dir=tmp_path)}
    failing = {key for key, t in tallies.items() if t.violations}
    assert failing == {"mosp.fig1c.sum_ci", "mosp.stretch.ext"}
    assert tallies["mosp.graham.lpt-lpt"].tried == len(items) - 1 and tallies["mosp.graham.ext"].tried == 1
    assert tallies["mosp.selfish"].tried == len(items) and tallies["mosp.selfish"].skipped == 0
    assert tallies["mosp.prop1"].tried == 2 and tallies["mosp.prop1"].violations == 0
    for key in failing:
        (path,) = tallies[key].counterexamples
        saved = load_instance(path)
        assert not BY_KEY[key].check(MospCase(saved)).holds
        assert json.loads(open(path).read())["meta"]["counterexample_of"] == key


def _solve(runner, path) -> dict:
    out = runner.invoke(cli, ["solve", str(path), "--json", "--time-limit", "30"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_theorem_2_end_to_end_through_the_command(tmp_path):
    """The first 3 yes- and 3 no-instances of each q = 2..4 (``schedbench
    bounds mosp`` takes all 21 of each): the 3-PARTITION answer from
    ``schedbench solve`` is yes iff ``schedbench solve`` on the generated
    reduction proves an optimum <= L (no: a proven bound above L)."""
    runner = CliRunner()
    answers = {"yes": 0, "no": 0}
    reductions = list(theorem2_instances(seeds=3))
    for index, reduction in enumerate(reductions):
        source = reduction.meta["three_partition"]
        three = tmp_path / f"three{index}.json"
        three.write_text(json.dumps({"family": "three_partition", "format_version": 1, **source}))
        decided = _solve(runner, three)
        assert decided["status"] in ("feasible", "infeasible")
        assert (decided["status"] == "feasible") == (reduction.meta["answer"] == "yes")
        mosp = tmp_path / f"mosp{index}.json"
        generated = runner.invoke(cli, ["generate", "mosp-two-jobs", "--from", str(three), "-o", str(mosp)])
        assert generated.exit_code == 0, generated.output
        assert load_instance(mosp).organizations == reduction.organizations
        threshold = reduction.meta["threshold"]
        optimum = _solve(runner, mosp)
        if decided["status"] == "feasible":
            assert optimum["objective"] <= threshold
        else:
            assert optimum["bound"] > threshold
        answers[reduction.meta["answer"]] += 1
    assert answers == {"yes": 9, "no": 9}
    assert {len(r.meta["three_partition"]["items"]) // 3 for r in reductions} == {2, 3, 4}


def test_multi_site_workload_from_a_real_trace(tmp_path):
    """Organizations are the trace's groups with the most work, in decreasing
    work; a q-processor job is q jobs; too few groups is a clear error."""
    trace = SAMPLE_TRACE
    inst = organizations_from_swf(str(trace), organizations=3, max_jobs=500)
    _, jobs = read_swf(trace, 500)
    groups = inst.meta["groups"]
    work = [sum(j.run * j.processors for j in jobs if j.group == g) for g in groups]
    assert work == sorted(work, reverse=True) and len(groups) == 3
    assert [sum(org.jobs) for org in inst.organizations] == work
    assert inst.meta["trace_jobs_left_out"] == sum(1 for j in jobs if j.group not in groups)
    out = run_cli("generate", "mosp-swf", "--trace", trace, "--organizations", "5")  # it has 4 groups
    assert out.returncode == 2 and "--organizations" in out.stderr and "Traceback" not in out.stderr
