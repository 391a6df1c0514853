"""Solver settings shared by every backend."""

import os

#: CP-SAT search workers; benchmarks that run solves in parallel set it to 1.
CPSAT_WORKERS = int(os.environ.get("SCHEDBENCH_CPSAT_WORKERS", "2"))

#: Default time limit in seconds for one solve when the caller gives none.
DEFAULT_TIME_LIMIT = 60.0
