"""Solver settings shared by every backend."""

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

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
    """CP-SAT's search workers within the block only, in this thread (a
    context variable: Dask runs cells in threads of one process). A cell
    that wants one worker leaves the process's setting as it found it (set
    for good, it made every later solve in that process single-threaded,
    the rest of a test session's among them)."""
    token = _scoped_workers.set(count)
    try:
        yield
    finally:
        _scoped_workers.reset(token)


def cpsat_workers_now() -> int:
    """The workers a CP-SAT run started now gets: the block's, else ``CPSAT_WORKERS``."""
    scoped = _scoped_workers.get()
    return CPSAT_WORKERS if scoped is None else scoped


_scoped_workers: ContextVar[int | None] = ContextVar("cpsat_workers", default=None)

#: Default time limit in seconds for one solve when the caller gives none.
DEFAULT_TIME_LIMIT = 60.0
#: The longest time limit a solve takes (about 116 days): beyond, the MILP
#: watchdog's wait overflows the clock (threading.TIMEOUT_MAX is far above).
MAX_TIME_LIMIT = 1e7


def seconds_problem(value: object, zero: bool = False) -> str | None:
    """Why ``value`` is not a duration every option and file takes (a finite
    number of seconds > 0, or >= 0 with ``zero``, at most ``MAX_TIME_LIMIT``;
    nan and inf pass a plain comparison), or None when it is."""
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    if math.isfinite(number) and (0 < number or (zero and number == 0)) and number <= MAX_TIME_LIMIT:
        return None
    return f"must be a number of seconds {'>= 0' if zero else '> 0'} and <= {MAX_TIME_LIMIT:g}, got {value!r}"
