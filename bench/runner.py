"""Running an experiment's cells into a store, on local processes or Dask.

The parent process is the store's only writer: each finished bundle of
tasks is one transaction, so a kill at any moment loses only the bundles in
flight, and the next run skips every committed cell. A bounded window of
bundles is in flight at a time, which keeps that loss (and memory) small.

A bundle is the tasks of one generator and seed (a grid's values of a
varied parameter), run one after another in one process: generators draw
the same stream for the same seed (FAIRCAMP's workloads have the same
campaigns for every k, only their owners change), so the P||Cmax engine's
per-process cache of proven optima answers the second and later tasks.
"""

import json
import platform
import subprocess
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from itertools import islice
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

    bundles = seed_bundles(tasks, workers if client is None else _dask_workers(client))
    if client is not None:
        with client:
            _run_dask(bundles, client, finished)
    elif workers == 1:
        for task in (task for bundle in bundles for task in bundle):
            finished(run_task(task))
    else:
        _run_pool(bundles, workers, finished)
    total = skipped + sum(len(t.cells) for t in tasks)
    return Summary(experiment.name, total, skipped, total - skipped, statuses)


def seed_bundles(tasks: list[Task], workers: int) -> list[tuple[Task, ...]]:
    """The tasks grouped by (family, generator, seed), in first-seen order;
    a group is cut into bundles of at most a quarter of each worker's share,
    so that a grid of one seed still keeps every worker busy."""
    cap = max(1, len(tasks) // (4 * workers))
    groups: dict[tuple, list[Task]] = {}
    for task in tasks:
        spec = task.instance
        key = (spec.family, spec.generator, spec.seed) if spec.seed is not None else (id(task),)
        groups.setdefault(key, []).append(task)
    return [tuple(islice(group, start, start + cap)) for group in groups.values()
            for start in range(0, len(group), cap)]


def run_bundle(bundle: tuple[Task, ...]) -> list[dict]:
    """Every task of ``bundle`` in this process, one after another."""
    return [row for task in bundle for row in run_task(task)]


def _window(workers: int) -> int:
    return 2 * workers + 2


def _run_pool(bundles: list[tuple[Task, ...]], workers: int, finished: Callable[[list[dict]], None]) -> None:
    with ProcessPoolExecutor(workers) as pool:
        _drain(bundles, pool.submit, lambda pending: wait(pending, return_when=FIRST_COMPLETED), _window(workers),
               finished)


def _dask_client(cluster: Any):
    """A client of the Dask scheduler at ``cluster`` (an address or a LocalCluster)."""
    from distributed import Client

    try:
        return Client(cluster, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise UserInputError("--cluster", f"no Dask scheduler answers at {cluster}: {exc}") from None


def _dask_workers(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _run_dask(bundles: list[tuple[Task, ...]], client: Any, finished: Callable[[list[dict]], None]) -> None:
    from distributed import wait as dask_wait

    _drain(bundles, lambda fn, bundle: client.submit(fn, bundle, pure=False),
           lambda pending: dask_wait(pending, return_when="FIRST_COMPLETED"), _window(_dask_workers(client)), finished)


def _drain(bundles: list[tuple[Task, ...]], submit, wait_any, window: int, finished) -> None:
    """Keep ``window`` bundles in flight; hand each finished bundle's rows to ``finished``."""
    queue = iter(bundles)
    pending: set = set()
    while True:
        while len(pending) < window:
            bundle = next(queue, None)
            if bundle is None:
                break
            pending.add(submit(run_bundle, bundle))
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
