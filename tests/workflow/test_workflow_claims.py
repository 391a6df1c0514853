"""The P-SLR ledger: it passes on the landed code, and catches a planted
wrong optimum (shrunk and saved) and a P-SLR that starves."""

from dataclasses import replace
from fractions import Fraction

from schedbench.claims import run_ledger
from schedbench.claims import workflow as claims
from schedbench.claims.workflow import CLAIMS, WorkflowCase, smaller_instances
from schedbench.instances.workflow import small_workload, starvation_stream, synthetic_workload
from schedbench.model import instance_to_json, load_instance, parse_instance
from schedbench.model.workflow import to_json

from conftest import run_cli


class InflatedOptimum(WorkflowCase):
    """A solver bug made visible: an 'optimum' above what the policies reach."""

    @property
    def optimum(self) -> Fraction:
        return 2 * super().optimum


def tallies_by_key(tallies):
    return {t.claim.key: t for t in tallies}


def test_ledger_holds_on_the_landed_code():
    items = [starvation_stream(600, lone=lone) for lone in ("long", "short", "wide")]
    items += [small_workload(seed) for seed in range(20)] + [synthetic_workload(5, jobs=300)]
    tally = tallies_by_key(run_ledger(CLAIMS, items, WorkflowCase, smaller_instances, to_json))
    assert tally["workflow.pslr.starvation"].tried == 3 and tally["workflow.pslr.transient"].tried == 1
    for key in ("workflow.pslr.starvation", "workflow.srtf.starvation", "workflow.lrtf.starvation",
                *(f"workflow.opt.{p}" for p in ("random", "fifo-task", "srtf", "pslr"))):
        assert tally[key].tried and tally[key].violations == 0, key
    assert tally["workflow.opt.pslr"].tried == 20 and min(tally["workflow.opt.pslr"].ratios) >= 1


def test_a_wrong_optimum_is_caught_shrunk_and_saved(tmp_path):
    items = [small_workload(seed) for seed in range(6)]
    tally = tallies_by_key(run_ledger(CLAIMS, items, InflatedOptimum, smaller_instances, to_json, tmp_path))
    caught = tally["workflow.opt.fifo-task"]
    assert caught.violations == caught.tried == 6 and caught.counterexamples
    for path in caught.counterexamples:
        small = load_instance(path)
        assert sum(len(job.tasks) for job in small.jobs) < max(len(i.tasks) for i in items)
        assert not claims.against_optimum("fifo-task")(InflatedOptimum(small)).holds


def test_a_starving_pslr_is_caught(monkeypatch):
    monkeypatch.setitem(claims.HEURISTICS, "pslr", claims.HEURISTICS["srtf"])
    items = [starvation_stream(length, lone="long") for length in (600, 1200)]
    tally = tallies_by_key(run_ledger(CLAIMS, items, WorkflowCase, smaller_instances, to_json))
    assert tally["workflow.pslr.starvation"].violations == 2


def test_shrinking_steps_are_smaller_valid_instances():
    inst = small_workload(11, jobs=(3, 3), tasks=(3, 3))
    steps = list(smaller_instances(inst))
    assert steps and all(parse_instance(instance_to_json(s)) == s for s in steps)
    size = lambda i: (len(i.jobs), len(i.tasks), sum(t.exec for t in i.tasks), sum(len(t.succ) for t in i.tasks),
                      sum(j.arrival for j in i.jobs))
    assert all(size(s) != size(inst) and all(a <= b for a, b in zip(size(s), size(inst))) for s in steps)
    assert list(smaller_instances(starvation_stream(300))) == []  # constructions stay as they are
    assert list(smaller_instances(replace(inst, meta={"generator": "workflow-synthetic"}))) == []
    assert list(smaller_instances(replace(inst, meta={"generator": "workflow-swf"}))) == []
    assert list(smaller_instances(replace(inst, meta={})))  # moved by the search: no generator, still a random instance


def test_bounds_command_prints_the_ledger_and_the_ratio_table(tmp_path, monkeypatch):
    """The command in this process, its overload streams shortened (a user's
    ``schedbench bounds workflow`` runs the full ones)."""
    from schedbench.claims import workflow_run

    monkeypatch.setattr(workflow_run, "TRANSIENT_JOBS", 200)
    monkeypatch.setattr(workflow_run, "STREAM_LENGTHS", (300, 600))
    out = run_cli("bounds", "workflow", "--instances", "4", "--out", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "| workflow.pslr.starvation |" in out.stdout and "max-SLR / OPT" in out.stdout
    assert "| pslr | 4 |" in out.stdout
