"""P||Cmax: the one entry point every family uses for a P||Cmax optimum.

Bounds first, models last:
1. lower bound: L0, the L1 family, Martello-Toth L2 inside a search on C;
2. upper bound: the best of LPT and MULTIFIT, improved by local search;
   equal bounds close the instance ("bounds");
3. backend ``milp``: the arc-flow LP bound, found by bisection on C, raises
   the lower bound ("arcflow-lp"); then C = lower, lower + 1, ... is decided
   by LP diving, which only ever finds packings ("arcflow-dive"), and by the
   arc-flow MILP, which also refutes ("arcflow-milp");
   backend ``cpsat``: the CP-SAT bin-packing model minimises the makespan
   between the bounds ("cpsat"), which also moves fast over wide gaps
   (long jobs), where deciding one C at a time cannot;
   ``portfolio``: the LP bound, then the dive and the MILP for 3/4 of the
   time, then CP-SAT for the rest (all of it when the arc-flow graph is
   too large).
Deciding C in increasing order means the first feasible C is optimal: every
smaller one was refuted. On the time limit the best schedule found and the
last proven lower bound are returned.
"""

import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from schedbench.errors import UserInputError
from schedbench.heuristics.pcmax import improve, lpt, multifit
from schedbench.result import FEASIBLE, OPTIMAL, Result
from schedbench.schedule import Schedule, back_to_back
from schedbench.solvers import settings
from schedbench.solvers.pcmax_bounds import lower_bound

BACKENDS = ("cpsat", "milp", "portfolio")


@dataclass(frozen=True)
class PcmaxSolution:
    status: str              # optimal | feasible
    makespan: int
    bound: int
    machine: tuple[int, ...]
    start: tuple[int, ...]
    method: str              # what closed it: bounds, arcflow-lp, cpsat, arcflow-milp (or the heuristic)

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL


def _makespan(machine_of, lengths) -> int:
    loads: dict[int, int] = {}
    for q, p in zip(machine_of, lengths):
        loads[q] = loads.get(q, 0) + p
    return max(loads.values())


def upper_bound(lengths: tuple[int, ...], machines: int) -> tuple[list[int], str]:
    """Best of LPT and MULTIFIT after local search: (machine of each job, name)."""
    candidates = []
    for name, rule in (("lpt", lpt), ("multifit", multifit)):
        machine_of = rule(lengths, [0] * machines)[0]
        candidates.append((_makespan(machine_of, lengths), name, machine_of))
    value, name, machine_of = min(candidates, key=lambda c: c[0])
    better = improve(lengths, machine_of, machines)
    if _makespan(better, lengths) < value:
        return better, name + "+search"
    return machine_of, name


@lru_cache(maxsize=200_000)
def pcmax_optimum(lengths: tuple[int, ...], machines: int, solver: str = "cpsat",
                  time_limit: float = settings.DEFAULT_TIME_LIMIT) -> PcmaxSolution:
    """Optimal (or best found, with its proven bound) P||Cmax schedule of ``lengths``."""
    if solver not in BACKENDS:
        raise UserInputError("--solver", f"unknown P||Cmax solver {solver!r} (known: {', '.join(BACKENDS)})")
    deadline = time.monotonic() + time_limit
    best, heuristic = upper_bound(lengths, machines)
    upper = _makespan(best, lengths)
    lower, _ = lower_bound(lengths, machines, upper)

    def answer(status: str, method: str) -> PcmaxSolution:
        return PcmaxSolution(status, upper, upper if status == OPTIMAL else lower, tuple(best),
                             tuple(back_to_back(best, lengths)), method)

    if lower >= upper:
        return answer(OPTIMAL, "bounds")
    if solver == "milp" or solver == "portfolio" and _arcflow_fits(lengths, lower, deadline):
        lower = _arcflow_lower_bound(lengths, machines, lower, upper, deadline)
        if lower >= upper:
            return answer(OPTIMAL, "arcflow-lp")
        # the portfolio gives the arc-flow decisions 3/4 of the time, CP-SAT the rest
        stop = deadline if solver == "milp" else time.monotonic() + 0.75 * (deadline - time.monotonic())
        while lower < upper and time.monotonic() < stop:
            status, machine_of, method = _arcflow_decide(lengths, machines, lower, stop)
            if status == "feasible":
                best, upper = machine_of, _makespan(machine_of, lengths)
                return answer(OPTIMAL, method)
            if status != "infeasible":
                break
            lower += 1
        if lower >= upper:
            return answer(OPTIMAL, "arcflow-milp")
        if solver == "milp":
            return answer(FEASIBLE, heuristic)
    from schedbench.solvers.cpsat.pcmax import minimize

    status, machine_of, bound = minimize(lengths, machines, lower, upper - 1, deadline - time.monotonic(), best)
    if machine_of is not None:
        best, upper, heuristic = machine_of, _makespan(machine_of, lengths), "cpsat"
    if status in ("optimal", "infeasible"):  # infeasible: nothing below the incumbent
        return answer(OPTIMAL, "cpsat")
    lower = max(lower, bound or lower)
    return answer(OPTIMAL if lower >= upper else FEASIBLE, heuristic)


def _arcflow_fits(lengths, capacity, deadline) -> bool:
    """Whether the arc-flow graph at the lower bound stays under its size cap:
    long jobs and a large C make it too large, and then the portfolio leaves
    all its time to CP-SAT instead of building graphs it cannot use."""
    from schedbench.solvers.arcflow import build
    from schedbench.solvers.milp.pcmax import MAX_GRAPH

    return build(lengths, capacity, MAX_GRAPH, deadline) is not None


def _arcflow_decide(lengths, machines, capacity, stop) -> tuple[str, list[int] | None, str]:
    """C decided by LP diving (half the time left), then the arc-flow MILP."""
    from schedbench.solvers.milp.pcmax import decide, dive

    status, machine_of = dive(lengths, machines, capacity, (stop - time.monotonic()) / 2)
    if status == "feasible":
        return status, machine_of, "arcflow-dive"
    status, machine_of = decide(lengths, machines, capacity, max(stop - time.monotonic(), 0.01))
    return status, machine_of, "arcflow-milp"


def _arcflow_lower_bound(lengths, machines, lower, upper, deadline) -> int:
    """Smallest C in [lower, upper] the arc-flow LP does not refute, by bisection.

    The LP's machine count never grows with C, so a refuted C refutes every
    smaller one; a C left untested (graph too large, time up) only stops the
    search, it never counts as refuted."""
    from schedbench.solvers.milp.pcmax import lp_bins

    while lower < upper and time.monotonic() < deadline:
        middle = (lower + upper) // 2
        needed = lp_bins(lengths, middle, deadline - time.monotonic())
        if needed is not None and needed > machines:
            lower = middle + 1
        else:
            upper = middle
    return lower


def solve(instance, objective: str, solver: str, time_limit: float) -> Result:
    began = time.perf_counter()
    found = pcmax_optimum(instance.jobs, instance.machines, solver, time_limit)
    return Result(found.status, Fraction(found.makespan), Fraction(found.bound),
                  Schedule(found.machine, found.start), solver, found.method, time.perf_counter() - began)
