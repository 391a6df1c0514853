"""MILP models through PuLP and the CBC binary that ships inside PuLP.

PuLP does not expose CBC's best bound, so it is read from CBC's closing
summary ("Lower bound:" after a stop on a limit). CBC checks its time limit
between phases only, so a CBC still running ``CBC_GRACE`` seconds past its
limit is killed (``_cbc_watch``), and the answer is unknown. A CBC that
deadlocks is killed too, and serial CBC gets the time left.
"""

import os
import re
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psutil
import pulp

from schedbench.errors import ModelTooLarge
from schedbench.solvers.exact.outcome import ModelOutcome, round_bound
from schedbench.solvers.exact.stopping import stop_request, stop_requested

_SOL_STATUS = {
    pulp.LpSolutionOptimal: "optimal",
    pulp.LpSolutionIntegerFeasible: "feasible",
    pulp.LpSolutionInfeasible: "infeasible",
    pulp.LpSolutionUnbounded: "unknown",
    pulp.LpSolutionNoSolutionFound: "unknown",
}
_BOUND = re.compile(r"^Lower bound:\s+(\S+)", re.MULTILINE)

#: Model coefficients PuLP builds and writes for CBC per second, at the
#: least (measured: 400,000-500,000 on the project's 2-core machines).
COEFFICIENTS_PER_SECOND = 200_000
#: Coefficients beyond which a time-indexed model is refused outright.
MAX_COEFFICIENTS = 500_000


def require_small(coefficients: int) -> None:
    """Refuse a model past ``MAX_COEFFICIENTS`` (``ModelTooLarge``, naming --solver)."""
    if coefficients > MAX_COEFFICIENTS:
        raise ModelTooLarge(f"the time-indexed MILP would need {coefficients:,} coefficients "
                            f"(limit {MAX_COEFFICIENTS:,}); use --solver cpsat for this instance")


def affordable(coefficients: int, time_limit: float) -> bool:
    """Whether a model of about this many coefficients can be built in half
    of ``time_limit``: a model that cannot is not started (the answer is
    "unknown"), since PuLP and CBC's reading of it ignore every time limit.
    Refuses outright past ``MAX_COEFFICIENTS`` (``require_small``)."""
    require_small(coefficients)
    return coefficients <= COEFFICIENTS_PER_SECOND * time_limit / 2


UNKNOWN = ModelOutcome("unknown", None, None, None)

#: Seconds past its limit a CBC process may run before it is killed: on a
#: time-indexed campaign model of 150 jobs its root LP ran 20 s past a 5 s limit.
CBC_GRACE = 0.5
#: Seconds a CBC process may sleep without using the CPU before it is taken
#: for deadlocked. CBC's threaded search (``threads=1``) deadlocks at its
#: start now and then (coin-or/Cbc#640: 19 of 300 runs of a 6-item model,
#: asleep at 0 s of CPU); a working CBC is never asleep, it computes.
CBC_STALL = 0.5
#: How often the watcher looks at the CBC process.
_POLL = 0.05


@dataclass(frozen=True)
class _Watch:
    """How a watched CBC run ended, if the watcher ended it."""

    killed: threading.Event   # still running past its limit plus CBC_GRACE
    stalled: threading.Event  # asleep without using the CPU for CBC_STALL seconds


def _asleep_for(child: psutil.Process, seen: dict[int, tuple[float, float]]) -> float:
    """Seconds ``child`` has been asleep without its CPU time moving (0 when it works)."""
    with child.oneshot():
        times, asleep = child.cpu_times(), child.status() in (psutil.STATUS_SLEEPING, psutil.STATUS_DISK_SLEEP)
    used, now = times.user + times.system, time.monotonic()
    last = seen.get(child.pid)
    if not asleep or last is None or last[0] != used:
        seen[child.pid] = (used, now)
        return 0.0
    return now - last[1]


def _run_of(me: psutil.Process, folder: str) -> psutil.Process | None:
    """The child process whose command line names ``folder`` (this run's CBC), if it has started."""
    for child in me.children():
        try:
            if any(folder in part for part in child.cmdline()):
                return child
        except psutil.Error:  # another child that ended meanwhile
            pass
    return None


@contextmanager
def _cbc_watch(seconds: float, folder: str) -> Iterator[_Watch]:
    """Kill the CBC process of this run (its command line names ``folder``,
    the run's own directory for PuLP's files) once ``seconds`` plus
    ``CBC_GRACE`` have passed, or once it has slept ``CBC_STALL`` seconds
    without using the CPU (PuLP then raises ``PulpSolverError``). Other
    runs' CBC processes (a Dask worker runs tasks in threads) are never
    touched. A stop request (``solvers.exact.stopping``) kills it as its limit does."""
    # the stop request is read here: the watcher thread starts with a context of its own
    me, done, request = psutil.Process(), threading.Event(), stop_request()
    ended = _Watch(threading.Event(), threading.Event())
    deadline = time.monotonic() + seconds + CBC_GRACE

    def watch() -> None:
        seen: dict[int, tuple[float, float]] = {}
        cbc = None
        while not done.wait(_POLL):
            try:
                cbc = cbc or _run_of(me, folder)  # CBC may start late: PuLP writes the model first
                if cbc is None:
                    continue
                if time.monotonic() > deadline or (request is not None and request.is_set()):
                    ended.killed.set()
                elif _asleep_for(cbc, seen) >= CBC_STALL:
                    ended.stalled.set()
                else:
                    continue
                cbc.kill()
            except psutil.Error:  # it ended meanwhile
                pass

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield ended
    finally:
        done.set()
        watcher.join()


def _cbc(time_limit: float, folder: str, warm_start: bool, threaded: bool) -> pulp.PULP_CBC_CMD:
    """PuLP's CBC command writing its files and log into ``folder``."""
    with warnings.catch_warnings():
        # PuLP 3 deprecates its bundled CBC for 4.0; pyproject pins pulp < 4.
        warnings.simplefilter("ignore", DeprecationWarning)
        command = pulp.PULP_CBC_CMD(msg=False, timeLimit=max(0.1, time_limit), gapRel=0, gapAbs=0,
                                    warmStart=warm_start, logPath=os.path.join(folder, "cbc.log"),
                                    threads=1 if threaded else None)
    command.tmpDir = folder
    return command


def _solved(problem: pulp.LpProblem, time_limit: float, folder: str, warm_start: bool) -> bool:
    """Whether CBC answered within ``time_limit``. The threaded search
    (``threads=1``) proves some models serial CBC leaves open (docs/frontier.md,
    "CBC without its threaded search"), so it goes first; when it deadlocks,
    serial CBC, which never did here, gets the time left."""
    began = time.monotonic()
    for threaded in (True, False):
        left = time_limit - (time.monotonic() - began)
        with _cbc_watch(left, folder) as ended:
            try:
                problem.solve(_cbc(left, folder, warm_start, threaded))
                return True
            except pulp.PulpSolverError:
                if ended.killed.is_set():  # past its limit
                    return False
                if not ended.stalled.is_set():
                    raise
    return False


def run(problem: pulp.LpProblem, time_limit: float, values, objective=None, warm_start: bool = False) -> ModelOutcome:
    """Solve with CBC; read ``values`` (PuLP variables or expressions) as
    integers. A model whose stop request came while it was built is not
    handed to CBC at all."""
    if stop_requested():
        return UNKNOWN
    with tempfile.TemporaryDirectory(prefix="schedbench-cbc-") as folder:  # removed with what a kill leaves
        if not _solved(problem, time_limit, folder, warm_start):
            return UNKNOWN
        with open(os.path.join(folder, "cbc.log")) as handle:
            log = handle.read()
    status = _SOL_STATUS.get(problem.sol_status, "unknown")
    if problem.status == pulp.LpStatusInfeasible:
        status = "infeasible"  # CBC proved it; sol_status only says "no solution"
    if status not in ("optimal", "feasible"):
        return ModelOutcome(status, None, None, None)
    solution = [round(pulp.value(v)) for v in values]
    if objective is None:
        return ModelOutcome(status, None, None, solution)
    value = round(pulp.value(objective))
    if status == "optimal":
        return ModelOutcome(status, value, value, solution)
    match = _BOUND.search(log)
    return ModelOutcome(status, value, round_bound(float(match.group(1))) if match else None, solution)
