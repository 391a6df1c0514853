"""Running cells: a task (one instance, its cells) in, store rows out.

Everything a worker does is here, as plain functions of the task, so the
process pool and Dask run exactly the same code. A cell that fails is
recorded with status ``error`` and its message, never dropped: the run goes
on and reports it.
"""

import functools
import hashlib
import inspect
import json
import os
import platform
import tempfile
import time
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import schedbench
from schedbench import families
from schedbench.harness.experiment import Cell, Task, build_instance
from schedbench.harness.store import canonical, exact
from schedbench.errors import NotProven
from schedbench.model import instance_to_json, schedule_to_json
from schedbench.solvers import solve
from schedbench.solvers.exact import settings


def run_task(task: Task) -> list[dict[str, Any]]:
    """Build the task's instance once and run each of its cells."""
    spec = task.instance
    if spec.generator == "claims":
        return [_claims_row(task.experiment, task.cells[0])]
    try:
        instance = build_instance(spec)
    except Exception as exc:  # a generator refusing its parameters fails each of its cells, visibly
        return [_row(task.experiment, cell, None, {"status": "error", "error": _message(exc)}) for cell in task.cells]
    digest = instance_hash(instance)  # once per instance: hashing 10^4 jobs costs as much as a heuristic
    return [_row(task.experiment, cell, instance, _run_cell(instance, cell), digest) for cell in task.cells]


def _run_cell(instance, cell: Cell) -> dict[str, Any]:
    """The cell's row; every CP-SAT run in it (a solver's, and the references
    its value and checks need) has the cell's workers: one unless a solver
    cell's ``workers`` option says otherwise, the same optimum every run."""
    try:
        with settings.cpsat_workers(cell.options.get("workers", 1) if cell.kind == "solver" else 1):
            if cell.kind == "heuristic":
                return _heuristic(instance, cell)
            return _solver(instance, cell)
    except NotProven as exc:
        return {"status": "unknown", "error": _message(exc)}
    except Exception as exc:
        return {"status": "error", "error": _message(exc)}


def _heuristic(instance, cell: Cell) -> dict[str, Any]:
    function = families.heuristics(instance.family)[cell.algorithm]
    options = families.heuristic_options(instance.family, instance, cell.options)
    began = time.perf_counter()
    schedule = function(instance, **options)
    wall = time.perf_counter() - began
    references = cell.time_limit or settings.DEFAULT_TIME_LIMIT  # the grid's reference_time_limit
    out = {"wall_time": wall, "algorithm_version": _version(function), "solver": "schedbench",
           "solver_version": schedbench.__version__, **_schedule_columns(instance, cell, schedule, references)}
    verdict, why = families.heuristic_verdict(instance, schedule, cell.objective, cell.algorithm, references)
    status = {"status": verdict, "error": why or None}
    if verdict == "invalid":
        return {**out, **status}
    value = families.objective_value(instance, schedule, cell.objective, references)
    return {**out, **status, "value": value, "bound": families.lower_bound(instance, cell.objective)}


def _solver(instance, cell: Cell) -> dict[str, Any]:
    result = solve(instance, cell.objective, cell.algorithm, cell.time_limit)
    out = {"status": result.status, "value": result.objective, "bound": result.bound,
           "wall_time": result.wall_time, "solver": result.solver, "solver_version": _solver_version(cell.algorithm),
           "algorithm_version": _version(families.family(instance.family).solvers)}
    if result.schedule is None:
        return out
    violations = families.violations(instance, result.schedule, cell.objective)
    if violations:
        return {**out, "status": "invalid", "error": str(violations[0])}
    return {**out, **_schedule_columns(instance, cell, result.schedule)}


def _schedule_columns(instance, cell: Cell, schedule,
                      time_limit: float = settings.DEFAULT_TIME_LIMIT) -> dict[str, Any]:
    """The metrics (their exact references proven within ``time_limit``) and the schedule, if kept."""
    measures = families.metrics(instance.family, time_limit)
    values = {name: _jsonable(measures[name](instance, schedule)) for name in cell.metrics}
    return {"metrics": canonical(values) if values else None,
            "schedule": canonical(schedule_to_json(instance, schedule)) if cell.keep_schedule else None}


def _claims_row(experiment: str, cell: Cell) -> dict[str, Any]:
    """A whole claims ledger as one cell: its tallies, with the shrunk counterexamples inline."""
    options = cell.instance.params
    ledger = families.ledger(cell.algorithm)
    began = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as out:
            items = list(ledger.instances(options["instances"], options["seed"]))
            tallies = ledger.run(items, options["solver"], cell.time_limit, Path(out))
            claims = [_tally_json(t) for t in tallies]
        result = {"status": "done", "metrics": canonical({"claims": claims})}
    except Exception as exc:
        result = {"status": "error", "error": _message(exc)}
    return _row(experiment, cell, None, {**result, "wall_time": time.perf_counter() - began,
                                          "algorithm_version": _version(ledger), "solver": options["solver"],
                                          "solver_version": _solver_version(options["solver"])})


def _tally_json(tally) -> dict[str, Any]:
    return {"key": tally.claim.key, "statement": tally.claim.statement, "source": tally.claim.source,
            "tried": tally.tried,
            "skipped": tally.skipped, "violations": tally.violations, "ratios": [str(r) for r in tally.ratios],
            "counterexamples": [{"name": Path(p).stem, "instance": json.loads(Path(p).read_text())}
                                for p in tally.counterexamples]}


def _row(experiment: str, cell: Cell, instance, result: dict[str, Any], digest: str | None = None) -> dict[str, Any]:
    spec = cell.instance
    value, bound = result.get("value"), result.get("bound")
    maximized = cell.objective is not None and families.maximized(spec.family, cell.objective)
    return {
        "cell_id": cell.cell_id, "experiment": experiment, "family": spec.family, "generator": spec.generator,
        "params": canonical(spec.params), "size": canonical(spec.size), "seed": spec.seed,
        "instance_hash": digest,
        "instance_name": getattr(instance, "name", None) or None,
        "objective": cell.objective, "sense": None if cell.objective is None else ("max" if maximized else "min"),
        "kind": cell.kind, "algorithm": cell.algorithm, "options": canonical(cell.options),
        "algorithm_version": result.get("algorithm_version"), "status": result["status"],
        "value": exact(value), "value_float": None if value is None else float(value),
        "bound": exact(bound), "bound_float": None if bound is None else float(bound),
        "wall_time": result.get("wall_time"), "solver": result.get("solver"),
        "solver_version": result.get("solver_version"), "time_limit": cell.time_limit, "machine": machine(),
        "metrics": result.get("metrics"), "schedule": result.get("schedule"), "error": result.get("error"),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "run_id": None,
    }


def instance_hash(instance) -> str:
    return hashlib.sha256(canonical(instance_to_json(instance)).encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _message(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@functools.cache
def machine() -> str:
    return f"{platform.node()} ({platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()})"


def _version(obj) -> str:
    """The package version plus a hash of the source module that defines ``obj``:
    a result can be traced to the code that produced it."""
    target = getattr(obj, "func", obj)  # functools.partial
    module = target if inspect.ismodule(target) else inspect.getmodule(target)
    return f"{schedbench.__version__}+{_source_hash(inspect.getsourcefile(module))}"


@functools.cache
def _source_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:10]


@functools.cache
def _solver_version(solver: str) -> str:
    from importlib.metadata import version

    if solver == "milp":
        return f"pulp {version('pulp')} (CBC bundled)"
    return f"ortools {version('ortools')}"
