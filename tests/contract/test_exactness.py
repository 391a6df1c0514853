"""Exact end to end (issue 16): no heuristic or metric computes with a
float. Every heuristic (with its options) and every metric and summary runs
under a tracer that records each finite float held in a local variable or
returned by a function of ``schedbench.heuristics`` or ``schedbench.metrics``;
only display numbers (``metrics.number``) and time limits in seconds may be
floats."""

import math
import sys

import pytest
from gmpy2 import mpfr

from schedbench import families
from schedbench.errors import UserInputError
from schedbench.instances.campaign import random_small as campaign_small
from schedbench.instances.dssp import small_workload as dssp_small
from schedbench.instances.knapsack import random_knapsack
from schedbench.instances.mosp import random_small as mosp_small
from schedbench.instances.pcmax import uniform
from schedbench.instances.workflow import small_workload as workflow_small

ALLOWED = {
    ("schedbench.metrics", "number", "<return>"),  # the JSON display value of an exact number
    # Eq. 1 of the P-SLR paper: a normal draw, real-valued by definition and rounded up at once
    ("schedbench.heuristics.workflow_estimates", "normal_error", "percent"),
    ("schedbench.heuristics.workflow_estimates", "draw", "percent"),
    ("schedbench.heuristics.workflow_estimates", "draw", "value"),
    # a clock reading (time.monotonic()) the L2 search stops at, never a value
    ("schedbench.metrics.pcmax.bounds", "lower_bound", "deadline"),
    ("schedbench.metrics.pcmax.bounds", "bin_packing_bound", "deadline"),
}

CASES = {
    "campaign": [campaign_small(s, users=(2, 3), release=(0, 3), think=(0, 2)) for s in range(4)],
    "mosp": [mosp_small(s) for s in range(4)],
    "dssp": [dssp_small(s) for s in range(4)],
    "workflow": [workflow_small(s) for s in range(4)],
    "pcmax": [uniform(s, 9, 3) for s in range(4)],
    "knapsack": [random_knapsack(s) for s in range(4)],
}
OPTIONS = {
    "campaign": [{"inner": inner} for inner in ("list", "lpt", "spt", "mlpt")],
    "dssp": [{"r": "43/50", "seed": 3}],
    "workflow": [{"estimate": "normal:20", "ccr": "1/5", "seed": 3}, {"estimate": "log:10"}],
}


#: Python's floats and gmpy2's (an mpq that meets a float becomes an mpfr).
FLOATS = (float, type(mpfr(0)))


def _finite_float(value) -> bool:
    return type(value) in FLOATS and math.isfinite(value)


def floats_in(run) -> set[tuple[str, str, str]]:
    """(module, function, variable) of every finite float seen while ``run()`` runs."""
    found = set()

    def local(frame, event, arg):
        if event in ("line", "return"):
            where = (frame.f_globals.get("__name__", ""), frame.f_code.co_name)
            found.update((*where, name) for name, value in frame.f_locals.items()
                         if _finite_float(value) and name != "time_limit")
            if event == "return" and _finite_float(arg):
                found.add((*where, "<return>"))
        return local

    def tracer(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        return local if module.startswith(("schedbench.heuristics", "schedbench.metrics")) else None

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return found


def _everything(family, instance):
    metrics = families.metrics(family)
    for raw in [{}] + OPTIONS.get(family, []):
        for name, heuristic in families.heuristics(family).items():
            try:  # camp(A) is for one user, OStrich refuses mlpt, priority takes no r
                schedule = heuristic(instance, **families.heuristic_arguments(family, name, instance, raw))
            except UserInputError:
                continue
            families.summary(instance, schedule, name, 5.0)
            for measure in metrics.values():
                measure(instance, schedule)


@pytest.mark.parametrize("family", sorted(CASES))
def test_heuristics_and_metrics_hold_no_float(family):
    found = set()
    for instance in CASES[family]:
        found |= floats_in(lambda: _everything(family, instance))
    assert found <= ALLOWED, sorted(found - ALLOWED)


def test_a_float_clock_is_caught(monkeypatch):
    """OStrich's virtual clock once advanced by int / int: the tracer sees
    the float, an mpfr once it meets the clock's mpq."""
    from schedbench.heuristics import ostrich

    def settle(self, t):
        if self.active:
            self.clock += (t - int(self.time)) / len(self.active)
        self.time = t

    monkeypatch.setattr(ostrich.VirtualFairShare, "_settle", settle)
    found = floats_in(lambda: ostrich.ostrich(CASES["campaign"][1]))
    assert any(module == "schedbench.heuristics.ostrich" for module, _, _ in found)  # the clock feeds its locals
