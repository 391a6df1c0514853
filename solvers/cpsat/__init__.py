"""OR-Tools CP-SAT models, one module per family."""

from ortools.sat.python import cp_model

from schedbench.solvers import settings
from schedbench.solvers.outcome import ModelOutcome, round_bound

STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
    cp_model.UNKNOWN: "unknown",
    cp_model.MODEL_INVALID: "unknown",
}


def run(model: cp_model.CpModel, time_limit: float, values, has_objective: bool = True) -> ModelOutcome:
    """Solve and read ``values`` (a list of int expressions) if a solution exists."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(time_limit, 0.01)
    solver.parameters.num_workers = settings.CPSAT_WORKERS
    code = solver.solve(model)
    status = STATUS[code]
    if code == cp_model.MODEL_INVALID:
        raise AssertionError(f"invalid CP-SAT model: {model.validate()}")
    if status in ("optimal", "feasible"):
        solution = [solver.value(v) for v in values]
        if has_objective:
            return ModelOutcome(status, round(solver.objective_value), round_bound(solver.best_objective_bound), solution)
        return ModelOutcome(status, None, None, solution)
    return ModelOutcome(status, None, None, None)
