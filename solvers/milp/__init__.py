"""MILP models through PuLP and the CBC binary that ships inside PuLP.

PuLP does not expose CBC's best bound, so it is read from CBC's closing
summary ("Lower bound:" after a stop on a limit). CBC checks its time limit
between phases only, so a CBC still running ``CBC_GRACE`` seconds past its
limit is killed (``_cbc_deadline``), and the answer is unknown.
"""

import os
import re
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import psutil
import pulp

from schedbench.errors import ModelTooLarge
from schedbench.solvers.exact.outcome import ModelOutcome, round_bound

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


@contextmanager
def _cbc_deadline(seconds: float, folder: str) -> Iterator[threading.Event]:
    """Kill the CBC process of this run (its command line names ``folder``,
    the run's own directory for PuLP's files) once ``seconds`` plus
    ``CBC_GRACE`` have passed (PuLP then raises ``PulpSolverError``); the
    event yielded is set when it was killed. Other runs' CBC processes (a
    Dask worker runs tasks in threads) are never touched."""
    me = psutil.Process()
    done, killed = threading.Event(), threading.Event()

    def watch() -> None:
        if done.wait(seconds + CBC_GRACE):
            return
        while not done.wait(0.05):  # CBC may start late: PuLP writes the model first
            for child in me.children():
                try:
                    if any(folder in part for part in child.cmdline()):
                        child.kill()
                        killed.set()
                except psutil.Error:  # it ended meanwhile
                    pass

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield killed
    finally:
        done.set()
        watcher.join()


def run(problem: pulp.LpProblem, time_limit: float, values, objective=None, warm_start: bool = False) -> ModelOutcome:
    """Solve with CBC; read ``values`` (PuLP variables or expressions) as integers."""
    with tempfile.TemporaryDirectory(prefix="schedbench-cbc-") as folder:  # removed with what a kill leaves
        log_path = os.path.join(folder, "cbc.log")
        with warnings.catch_warnings():
            # PuLP 3 deprecates its bundled CBC for 4.0; pyproject pins pulp < 4.
            warnings.simplefilter("ignore", DeprecationWarning)
            # threads=1 starts CBC's threaded search, which now and then hangs until killed below
            # (coin-or/Cbc#640); serial CBC never did here but lost the max-user-stretch MILP frontier
            # entry (docs/frontier.md, "CBC without its threaded search"), so the threaded one stays
            command = pulp.PULP_CBC_CMD(msg=False, timeLimit=max(0.1, time_limit), gapRel=0, gapAbs=0,
                                        warmStart=warm_start, logPath=log_path, threads=1)
        command.tmpDir = folder
        with _cbc_deadline(time_limit, folder) as killed:
            try:
                problem.solve(command)
            except pulp.PulpSolverError:
                if killed.is_set():  # past its limit
                    return UNKNOWN
                raise
        with open(log_path) as handle:
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
