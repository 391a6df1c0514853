"""Solver settings shared by every backend."""

import os

#: CP-SAT search workers; benchmarks that run solves in parallel set it to 1
#: (``use_cpsat_workers``).
CPSAT_WORKERS = int(os.environ.get("SCHEDBENCH_CPSAT_WORKERS", "2"))


def use_cpsat_workers(count: int) -> None:
    """CP-SAT's search workers in this process and in every worker process it
    starts from now on (spawned workers read the environment, not this module)."""
    global CPSAT_WORKERS
    os.environ["SCHEDBENCH_CPSAT_WORKERS"] = str(count)
    CPSAT_WORKERS = count

#: Default time limit in seconds for one solve when the caller gives none.
DEFAULT_TIME_LIMIT = 60.0
