"""JSON renderings of results and metrics (exact values as [num, den])."""

from typing import Any

from schedbench.metrics import fraction, number
from schedbench.families import family
from schedbench.model import schedule_to_json
from schedbench.result import Result


def schedule_csv(instance, schedule) -> str:
    """A schedule as CSV, one row per job (per task for DSSP and workflows,
    numbered flat as in the instance; its machine, processor or cluster),
    with its start and end; a task that does not run (DSSP) has no row."""
    rows = ["job,machine,start,end"]
    rows += [f"{j},{q},{s},{s + p}" for j, (q, s, p) in enumerate(zip(schedule.machine, schedule.start,
                                                                        instance.lengths)) if s is not None]
    return "\n".join(rows) + "\n"


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
    if result.schedule is not None:  # a family's answer in its own words (3-PARTITION's certificate, ...)
        extra = family(instance.family).result_fields
        out.update(extra(instance, result.schedule) if extra is not None else {})
    if result.objective is not None:
        out["objective_fraction"] = fraction(result.objective)
    if result.bound is not None:
        out["bound_fraction"] = fraction(result.bound)
    if result.details:
        out["details"] = result.details
    return out
