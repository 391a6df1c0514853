"""P||Cmax: the one entry point every family uses for a P||Cmax optimum.

Order of work: the lower bound L0/L1 and the LPT schedule first (they close
most instances without a model), then the chosen backend with both as
bounds and LPT as the warm start.
"""

import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from schedbench.heuristics.pcmax import lpt
from schedbench.metrics.pcmax import lower_bound
from schedbench.result import FEASIBLE, OPTIMAL, Result
from schedbench.schedule import Schedule
from schedbench.solvers import settings
from schedbench.solvers.machines import sequence_on_machines


@dataclass(frozen=True)
class PcmaxSolution:
    status: str              # optimal | feasible
    makespan: int
    bound: int
    machine: tuple[int, ...]
    start: tuple[int, ...]
    method: str              # "bounds" or the backend that closed it

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL


def _backend(name: str):
    if name == "cpsat":
        from schedbench.solvers.cpsat import pcmax
    elif name == "milp":
        from schedbench.solvers.milp import pcmax
    else:
        from schedbench.errors import UserInputError
        raise UserInputError("--solver", f"unknown solver {name!r} (known: cpsat, milp)")
    return pcmax.solve


@lru_cache(maxsize=200_000)
def pcmax_optimum(lengths: tuple[int, ...], machines: int, solver: str = "cpsat",
                  time_limit: float = settings.DEFAULT_TIME_LIMIT) -> PcmaxSolution:
    """Optimal (or best found, with its proven bound) P||Cmax schedule of ``lengths``."""
    lower = lower_bound(lengths, machines)
    machine, start = lpt(lengths, [0] * machines)
    upper = max(s + p for s, p in zip(start, lengths))
    if lower == upper:
        return PcmaxSolution(OPTIMAL, upper, lower, tuple(machine), tuple(start), "bounds")
    outcome = _backend(solver)(lengths, machines, lower, upper, machine, time_limit)
    if outcome.solution is None:
        return PcmaxSolution(FEASIBLE, upper, lower, tuple(machine), tuple(start), "lpt")
    starts = sequence_on_machines(outcome.solution, lengths)
    value = max(s + p for s, p in zip(starts, lengths))
    bound = max(lower, outcome.bound if outcome.bound is not None else lower)
    status = OPTIMAL if outcome.status == OPTIMAL or bound >= value else FEASIBLE
    return PcmaxSolution(status, value, min(bound, value), tuple(outcome.solution), tuple(starts), solver)


def solve(instance, objective: str, solver: str, time_limit: float) -> Result:
    began = time.perf_counter()
    found = pcmax_optimum(instance.jobs, instance.machines, solver, time_limit)
    return Result(found.status, Fraction(found.makespan), Fraction(found.bound),
                  Schedule(found.machine, found.start), solver, found.method, time.perf_counter() - began)
