"""Stopping a model that another thread no longer needs.

A race (``solvers.exact.race``) runs one model a core; when one model's
schedule makes the other's question moot, that model is stopped at once
instead of at its time limit. The request travels as a context variable,
so the backends' ``run`` functions see it without a new parameter on
every family's ``decide``: CP-SAT's is stopped through ``stop_search``
and GLOP's through ``interrupt_solve`` (``stopped_on_request``), CBC is
killed by its watcher (``solvers.milp``).
"""

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: How often a running solve looks at its stop request.
POLL = 0.02

_request: ContextVar[threading.Event | None] = ContextVar("stop_request", default=None)


@contextmanager
def stoppable(request: threading.Event) -> Iterator[None]:
    """Every model run inside this block (in this thread) ends early once ``request`` is set."""
    token = _request.set(request)
    try:
        yield
    finally:
        _request.reset(token)


def stop_request() -> threading.Event | None:
    """The request the model about to run obeys, if any."""
    return _request.get()


def stop_requested() -> bool:
    """Whether the model about to run is no longer needed."""
    request = _request.get()
    return request is not None and request.is_set()


@contextmanager
def stopped_on_request(stop: Callable[[], None]) -> Iterator[None]:
    """Call ``stop`` (a solver's own interruption: CP-SAT's ``stop_search``,
    GLOP's ``interrupt_solve``) once this thread's stop request is set,
    while the block runs. A watcher calls it again at every poll: a stop
    asked before the solve has started is a no-op in CP-SAT."""
    request = stop_request()
    if request is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(POLL):
            if request.is_set():
                stop()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()
