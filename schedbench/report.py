"""JSON renderings of results and metrics (exact values as [num, den])."""

from typing import Any

from schedbench.metrics import fraction, number
from schedbench.model import schedule_to_json
from schedbench.result import Result


def result_json(instance, result: Result, objective: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "status": result.status,
        "objective": number(result.objective),
        "bound": number(result.bound),
        "solver": result.solver,
        "wall_time": round(result.wall_time, 6),
        "schedule": schedule_to_json(instance, result.schedule) if result.schedule is not None else None,
        "objective_name": objective,
        "method": result.method,
        "proof": list(result.proof),
    }
    if instance.family == "three_partition" and result.schedule is not None:
        out["certificate"] = [list(triple) for triple in result.schedule]
    if instance.family == "knapsack" and result.schedule is not None:
        out["selected"] = list(result.schedule)
    if result.objective is not None:
        out["objective_fraction"] = fraction(result.objective)
    if result.bound is not None:
        out["bound_fraction"] = fraction(result.bound)
    if result.details:
        out["details"] = result.details
    return out
