"""Solver settings shared by every backend."""

import os
from collections.abc import Iterator
from contextlib import contextmanager

#: CP-SAT search workers; benchmarks that run solves in parallel set it to 1
#: (``use_cpsat_workers``).
CPSAT_WORKERS = int(os.environ.get("SCHEDBENCH_CPSAT_WORKERS", "2"))


def use_cpsat_workers(count: int) -> None:
    """CP-SAT's search workers in this process and in every worker process it
    starts from now on (spawned workers read the environment, not this module)."""
    global CPSAT_WORKERS
    os.environ["SCHEDBENCH_CPSAT_WORKERS"] = str(count)
    CPSAT_WORKERS = count


@contextmanager
def cpsat_workers(count: int) -> Iterator[None]:
    """CP-SAT's search workers within the block only: a cell or a stress
    solve that wants one worker leaves the process's setting as it found it
    (set for good, it made every later solve in that process single-threaded:
    a test session's Theorem 2 check took 42 s instead of 2)."""
    global CPSAT_WORKERS
    saved, CPSAT_WORKERS = CPSAT_WORKERS, count
    try:
        yield
    finally:
        CPSAT_WORKERS = saved

#: Default time limit in seconds for one solve when the caller gives none.
DEFAULT_TIME_LIMIT = 60.0
