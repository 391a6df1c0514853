"""OR-Tools CP-SAT models, one module per family, and the one place that runs them.

Two configurations, both with a fixed seed so that a run depends on its
inputs only (up to the wall-clock limit, which no solver makes
deterministic):
- the primary one: ``settings.cpsat_workers_now()`` workers and the caller's hints;
- the confirming one (``confirming()``): one worker, another seed, no
  hint and no presolve, so a refutation it repeats was not reached by the
  same search nor the same model rewriting (``solvers.exact.certificate`` asks
  it where no MILP can express a model). CP-SAT 9.15's presolve refutes
  feasible models whatever the workers and seed (google/or-tools#5274;
  this project met it on a selfish MOSP model, ``tests/contract/test_certificate.py``).

A hint outside a variable's domain is dropped with every other hint of the
model: CP-SAT has answered INFEASIBLE on feasible models given such hints
(this project's MOSP cap model with 2 workers, issue 15).
"""

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType

from ortools.sat.python import cp_model

from schedbench.errors import ModelTooLarge
from schedbench.solvers.exact import settings
from schedbench.solvers.exact.stopping import stopped_on_request
from schedbench.solvers.exact.outcome import ModelOutcome, round_bound

STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
    cp_model.UNKNOWN: "unknown",
    cp_model.MODEL_INVALID: "unknown",
}


@dataclass(frozen=True)
class Configuration:
    name: str
    workers: int | None  # None: settings.cpsat_workers_now(), read at solve time
    seed: int
    hints: bool
    presolve: bool


PRIMARY = Configuration("cpsat", None, 0, True, True)
CONFIRMING = Configuration("cpsat-confirm", 1, 7, False, False)
_configuration: ContextVar[Configuration] = ContextVar("cpsat_configuration", default=PRIMARY)


@contextmanager
def confirming() -> Iterator[None]:
    """Every model run inside uses the confirming configuration."""
    token = _configuration.set(CONFIRMING)
    try:
        yield
    finally:
        _configuration.reset(token)


def hints_inside_domains(model: cp_model.CpModel) -> bool:
    """Whether every hinted value lies in its variable's domain."""
    proto = model.proto
    for index, value in zip(proto.solution_hint.vars, proto.solution_hint.values):
        domain = proto.variables[index].domain
        if not any(domain[k] <= value <= domain[k + 1] for k in range(0, len(domain), 2)):
            return False
    return True


def run(model: cp_model.CpModel, time_limit: float, values, has_objective: bool = True,
        parameters: Mapping[str, object] = MappingProxyType({})) -> ModelOutcome:
    """Solve and read ``values`` (a list of int expressions) if a solution
    exists; ``parameters``: the model's own CP-SAT parameters, in every
    configuration."""
    configuration = _configuration.get()
    if not configuration.hints or not hints_inside_domains(model):
        model.clear_hints()
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(time_limit, 0.01)
    solver.parameters.num_workers = configuration.workers or settings.cpsat_workers_now()
    solver.parameters.random_seed = configuration.seed
    solver.parameters.cp_model_presolve = configuration.presolve
    for name, value in parameters.items():
        setattr(solver.parameters, name, value)
    with stopped_on_request(solver.stop_search):
        code = solver.solve(model)
    status = STATUS[code]
    if code == cp_model.MODEL_INVALID:
        why = model.validate()
        if "overflow" in why:  # values an instance may hold, but too large for this model's sums
            raise ModelTooLarge(f"the CP-SAT model's sums pass 64-bit integers ({why.splitlines()[0]})")
        raise AssertionError(f"invalid CP-SAT model: {why}")
    if status in ("optimal", "feasible"):
        solution = [solver.value(v) for v in values]
        if has_objective:
            return ModelOutcome(status, round(solver.objective_value), round_bound(solver.best_objective_bound), solution)
        return ModelOutcome(status, None, None, solution)
    return ModelOutcome(status, None, None, None)
