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

import gc
import json
import multiprocessing
import platform
import subprocess
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from functools import partial
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

import schedbench
from schedbench.harness.cells import machine, run_task
from schedbench.harness.experiment import Experiment, Task
from schedbench.harness.store import Store
from schedbench.errors import UserInputError

CONNECT_TIMEOUT = "20s"


@dataclass
class Summary:
    experiment: str
    cells: int          # in the experiment (this batch)
    skipped: int        # already in the store
    ran: int
    statuses: dict[str, int]


def pending_tasks(experiment: Experiment, store: Store) -> tuple[list[Task], int]:
    """The tasks reduced to their cells not yet stored, and how many cells were skipped."""
    done = store.finished()
    tasks, skipped = [], 0
    for task in experiment.tasks:
        cells = tuple(c for c in task.cells if c.cell_id not in done)
        skipped += len(task.cells) - len(cells)
        if cells:
            tasks.append(replace(task, cells=cells))
    return tasks, skipped


def run_experiment(experiment: Experiment, store: Store, workers: int = 1, cluster: Any = None,
                   command: str = "", progress: Callable[[int], object] | None = None) -> Summary:
    """Run every pending cell of ``experiment`` (its tasks: a batch of the
    file's, if loaded as one) and store each bundle as it finishes.

    ``cluster`` is a Dask scheduler address (or a ``LocalCluster``); without it,
    ``workers`` local processes (1: in this process)."""
    client = dask_client(cluster) if cluster is not None else None   # fail before anything is recorded
    store.add_members(experiment.name, experiment.quick, (c.cell_id for task in experiment.tasks for c in task.cells))
    tasks, skipped = pending_tasks(experiment, store)
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

    bundles = seed_bundles(tasks, workers if client is None else dask_workers(client))
    with client or nullcontext():
        for rows in map_unordered(run_bundle, bundles, workers, client):
            finished(rows)
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
    return [tuple(group[start:start + cap]) for group in groups.values() for start in range(0, len(group), cap)]


#: The collector's first threshold in a local worker process (Python's
#: default: 700). A bundle's allocations are mostly results and caches that
#: live on, with few reference cycles: at 700 the collector traced them 70
#: times a FAIRCAMP Fig. 4 seed (46 ms of about 1.1 s), at 7,000 twice (18 ms).
GC_THRESHOLD = 7_000


def run_bundle(bundle: tuple[Task, ...]) -> list[dict]:
    """Every task of ``bundle`` in this process, one after another."""
    return [row for task in bundle for row in run_task(task)]


def _start_worker() -> None:
    """A local worker process runs bundles only: its collector's threshold
    is set once for its life (a process that runs bundles in threads, or
    between other work, keeps its own)."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def map_unordered(function: Callable, items: list, workers: int = 1, client: Any = None) -> Iterator:
    """``function(item)`` of every item, yielded as each finishes: in this
    process (``workers`` 1), on ``workers`` local processes, or on a
    connected Dask ``client``. At most 2 x workers + 2 items are in flight,
    which bounds what a kill loses (and memory).

    Local workers are spawned, not forked: a child forked from a process
    whose CP-SAT threads hold locks (a notebook, or pytest, that solved
    before) can hang in its first solve."""
    if client is not None:
        from distributed import wait as dask_wait

        yield from _drain(items, lambda item: client.submit(function, item, pure=False),
                          lambda pending: dask_wait(pending, return_when="FIRST_COMPLETED"),
                          _window(dask_workers(client)))
    elif workers == 1:
        yield from map(function, items)
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_start_worker) as pool:
            yield from _drain(items, partial(pool.submit, function),
                              lambda pending: wait(pending, return_when=FIRST_COMPLETED), _window(workers))


def dask_client(cluster: Any):
    """A client of the Dask scheduler at ``cluster`` (an address or a LocalCluster)."""
    from distributed import Client

    try:
        return Client(cluster, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise UserInputError("--cluster", f"no Dask scheduler answers at {cluster}: {exc}") from None
    except (ValueError, TypeError) as exc:  # an address Dask cannot parse (no port; tls:// or ucx:// without their setup)
        raise UserInputError("--cluster", f"{cluster!r} is not a scheduler address such as "
                                          f"tcp://host:8786: {exc}") from None


def dask_workers(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _window(workers: int) -> int:
    return 2 * workers + 2


def _drain(items: list, submit: Callable, wait_any: Callable, window: int) -> Iterator:
    """Keep ``window`` items in flight; yield each result as it comes."""
    queue = iter(items)
    pending: set = set()
    while True:
        while len(pending) < window:
            item = next(queue, None)
            if item is None:
                break
            pending.add(submit(item))
        if not pending:
            return
        done, pending = wait_any(pending)
        pending = set(pending)
        for future in done:
            yield future.result()


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
