"""Running an experiment's cells into a store, on local processes or Dask.

The parent process is the store's only writer: each finished task is one
transaction, so a kill at any moment loses only the tasks in flight, and
the next run skips every committed cell. A bounded window of tasks is in
flight at a time, which keeps that loss (and memory) small.
"""

import json
import platform
import subprocess
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

import schedbench
from schedbench.bench.cells import machine, run_task
from schedbench.bench.experiment import Experiment, Task, select_batch
from schedbench.bench.store import Store
from schedbench.errors import UserInputError

CONNECT_TIMEOUT = "20s"


@dataclass
class Summary:
    experiment: str
    cells: int          # in the experiment (this batch)
    skipped: int        # already in the store
    ran: int
    statuses: dict[str, int]


def pending_tasks(experiment: Experiment, store: Store, batch: tuple[int, int] | None) -> tuple[list[Task], int]:
    """The batch's tasks reduced to their cells not yet stored, and how many cells were skipped."""
    done = store.finished()
    tasks, skipped = [], 0
    for task in select_batch(experiment.tasks, batch):
        cells = tuple(c for c in task.cells if c.cell_id not in done)
        skipped += len(task.cells) - len(cells)
        if cells:
            tasks.append(replace(task, cells=cells))
    return tasks, skipped


def run_experiment(experiment: Experiment, store: Store, workers: int = 1, cluster: Any = None,
                   batch: tuple[int, int] | None = None, command: str = "",
                   progress: Callable[[int], object] | None = None) -> Summary:
    """Run every pending cell of ``experiment`` (of batch K/N) and store each task as it finishes.

    ``cluster`` is a Dask scheduler address (or a ``LocalCluster``); without it,
    ``workers`` local processes (1: in this process)."""
    client = _dask_client(cluster) if cluster is not None else None   # fail before anything is recorded
    store.add_members(experiment.name, experiment.quick,
                      (c.cell_id for task in select_batch(experiment.tasks, batch) for c in task.cells))
    tasks, skipped = pending_tasks(experiment, store, batch)
    run_id = store.add_run({"experiment": experiment.name, "experiment_text": experiment.text,
                            "quick": int(experiment.quick), "command": command,
                            "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                            "machine": machine(), "versions": json.dumps(versions())})
    statuses: dict[str, int] = {}

    def finished(rows: list[dict]) -> None:
        store.add([{**row, "run_id": run_id} for row in rows])
        for row in rows:
            statuses[row["status"]] = statuses.get(row["status"], 0) + 1
        if progress is not None:
            progress(len(rows))

    if client is not None:
        with client:
            _run_dask(tasks, client, finished)
    elif workers == 1:
        for task in tasks:
            finished(run_task(task))
    else:
        _run_pool(tasks, workers, finished)
    total = skipped + sum(len(t.cells) for t in tasks)
    return Summary(experiment.name, total, skipped, total - skipped, statuses)


def _window(workers: int) -> int:
    return 2 * workers + 2


def _run_pool(tasks: list[Task], workers: int, finished: Callable[[list[dict]], None]) -> None:
    with ProcessPoolExecutor(workers) as pool:
        _drain(tasks, pool.submit, lambda pending: wait(pending, return_when=FIRST_COMPLETED), _window(workers),
               finished)


def _dask_client(cluster: Any):
    """A client of the Dask scheduler at ``cluster`` (an address or a LocalCluster)."""
    from distributed import Client

    try:
        return Client(cluster, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise UserInputError("--cluster", f"no Dask scheduler answers at {cluster}: {exc}") from None


def _run_dask(tasks: list[Task], client: Any, finished: Callable[[list[dict]], None]) -> None:
    from distributed import wait as dask_wait

    workers = max(1, len(client.scheduler_info().get("workers", {})))
    _drain(tasks, lambda fn, task: client.submit(fn, task, pure=False),
           lambda pending: dask_wait(pending, return_when="FIRST_COMPLETED"), _window(workers), finished)


def _drain(tasks: list[Task], submit, wait_any, window: int, finished) -> None:
    """Keep ``window`` tasks in flight; hand each finished task's rows to ``finished``."""
    queue = iter(tasks)
    pending: set = set()
    while True:
        while len(pending) < window:
            task = next(queue, None)
            if task is None:
                break
            pending.add(submit(run_task, task))
        if not pending:
            return
        done, pending = wait_any(pending)
        pending = set(pending)
        for future in done:
            finished(future.result())


def versions() -> dict[str, str]:
    """What produced a run: Python, schedbench and the solvers' packages."""
    out = {"python": platform.python_version(), "schedbench": schedbench.__version__}
    for package in ("ortools", "pulp", "networkx", "numpy"):
        out[package] = version(package)
    commit = _git_commit()
    if commit:
        out["git_commit"] = commit
    return out


def _git_commit() -> str | None:
    """The checkout's commit when schedbench runs from one (an editable install)."""
    root = Path(schedbench.__file__).resolve().parent.parent
    try:
        found = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                               timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() if found.returncode == 0 else None
