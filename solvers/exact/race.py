"""Two independent methods deciding the same caps at once, one a core.

A minimisation by increasing caps (is there a schedule of value <= C?)
rests its answer on refutations, and each refutation must be reached by
two independent methods (``solvers.exact.certificate``). Asked in turn,
the second method gets what the first left of the limit; on two cores
both can work all of it. Each *lane* decides the caps C = lower,
lower + 1, ... by itself, its lowest cap not yet refuted, with all the
time left; a schedule either lane finds is the incumbent of both, and a
cap counts as refuted once every lane has refuted it (a refutation of C
refutes every lower cap). A lane whose next cap reaches the incumbent
has nothing left to ask: it ends, and a model it still runs is stopped
(``solvers.exact.stopping``). A lane is a list of methods: when one
refuses the model or answers nothing before the time is up, the next
takes over where the lane stands (the lane's refutations stay: each
was made by a method independent of the other lanes'). So does a method
whose answer is a schedule above the cap asked (a heuristic search that
improved the incumbent without reaching the cap): the schedule is the
race's incumbent, and the cap is still undecided.

A refutation by a checkable computation (``certificate.checked_refutation``:
a proof on its own, as a bound formula is) refutes the cap for every lane.

A valid schedule at or under a cap a lane refuted shows that refutation
false: the lane's claims are dropped (it ends, and the race certifies
nothing past ``lower`` but a checked refutation), and
``details["refuted_claim"]`` says so.
"""

import contextvars
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from schedbench.errors import ModelTooLarge
from schedbench.solvers.cpsat import confirming
from schedbench.solvers.exact.certificate import MILP_MINIMUM, is_checked, refutation_by
from schedbench.solvers.exact.settings import cpsat_workers
from schedbench.solvers.exact.stopping import stoppable
from schedbench.solvers.milp import CBC_GRACE

#: A cap's question for one method: (cap, seconds) -> (status, schedule or None).
CapQuestion = Callable[[int, float], tuple[str, object]]


@dataclass(frozen=True)
class RaceOutcome:
    bound: int                # every cap below it refuted by every lane (``lower`` when none is)
    schedule: object | None   # the best schedule found, the incumbent if none better
    value: int | None
    proof: tuple[str, ...]    # the methods whose refutations make ``bound`` (empty at ``lower``)
    details: dict


@dataclass
class _Lane:
    """One lane's progress: the highest cap it refuted (every lower one with it) and by which method."""
    refuted: int
    refuted_by: str | None = None
    asking: tuple[int, threading.Event] | None = None
    dropped: dict | None = None    # the claim a schedule showed false: the lane certifies nothing
    used: tuple[str, ...] = ()


@dataclass
class _Race:
    lower: int
    target: int                    # caps below it are asked: the incumbent's value, or the last cap + 1
    schedule: object | None
    value_of: Callable[[object], int]
    deadline: float
    lanes: list[_Lane]
    found_by: str | None = None   # the method that found ``schedule`` (None: the incumbent)
    checked: int = field(init=False)  # the highest cap a checkable computation refuted (``lower - 1``: none)
    checked_by: str | None = None
    checked_dropped: dict | None = None  # a checked refutation a schedule showed false (a bug in its check)
    error: BaseException | None = None   # what a lane raised: the race stops, and ``race`` raises it
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.checked = self.lower - 1

    def run_lane(self, index: int, methods: Sequence[tuple[str, CapQuestion]]) -> None:
        """The lane's methods in turn, each from where the lane stands
        (module docstring), until one has no cap left to ask. An error in
        a model stops every lane: it is a bug to show, not a lane to lose."""
        try:
            for name, ask in methods:
                self.lanes[index].used += (name,)
                if self._method(index, name, ask) == "done":
                    return
        except BaseException as exc:  # raised again by ``race``, in the caller's thread
            with self.lock:
                self.error = self.error or exc
            self.stop()

    def stop(self) -> None:
        """Leave nothing to ask, and stop every model running."""
        with self.lock:
            self.target = self.lower
            self._stop_the_moot()

    def _method(self, index: int, name: str, ask: CapQuestion) -> str:
        """One method's caps until none is left ("done") or it gives no answer ("gave up")."""
        lane = self.lanes[index]
        while True:
            with self.lock:
                cap, left = self._next_cap(index), self.deadline - time.monotonic()
                if cap is None or left <= 0:
                    return "done"
                request = threading.Event()
                lane.asking = (cap, request)
            try:
                with stoppable(request):
                    status, found = ask(cap, left)
            except ModelTooLarge:
                status, found = "unknown", None
            with self.lock:
                lane.asking = None
                by = refutation_by(status, name)
                if found is not None:
                    self._found(name, found)
                    if self.value_of(found) > cap:  # a better incumbent, the cap undecided
                        return "gave up"
                elif is_checked(status):
                    self._checked(by, cap)
                elif by is not None:
                    self._refuted(lane, name, cap)
                elif not request.is_set():
                    return "gave up"

    def _next_cap(self, index: int) -> int | None:
        """The cap lane ``index`` asks next (None: none is left): its lowest
        not refuted, or, where the other lanes have all refuted more, the
        highest cap they all refuted, which settles every lower one with a
        single question (on a selfish MOSP instance of 33 jobs, CP-SAT refuted
        cap 23 in 6.1 s, and caps 22 and 23 in 5.2 + 6.1 s)."""
        lane = self.lanes[index]
        own = max(lane.refuted, self.checked) + 1
        if lane.dropped is not None or own >= self.target:
            return None
        others = [max(other.refuted, self.checked) for other in self.lanes
                  if other is not lane and other.dropped is None]
        return min(max(own, min(others, default=own)), self.target - 1)

    def _found(self, name: str, schedule) -> None:
        """A schedule: the incumbent if better; a lane that refuted its value was wrong."""
        value = self.value_of(schedule)
        if value >= self.target:
            return
        self.schedule, self.target, self.found_by = schedule, value, name
        for lane in self.lanes:
            if lane.refuted >= value and lane.dropped is None:
                lane.dropped = {"bound": str(lane.refuted + 1), "by": lane.refuted_by, "solution_from": name}
        if self.checked >= value:
            self._drop_checked(name)
        self._stop_the_moot()

    def _checked(self, name: str, cap: int) -> None:
        """A checkable refutation of ``cap``: every lane's, at once."""
        if cap >= self.target:  # a schedule of value <= cap is known: its check is wrong
            self.checked, self.checked_by = cap, name
            self._drop_checked(self.found_by)
        elif cap > self.checked:
            self.checked, self.checked_by = cap, name
            self._stop_the_moot()

    def _drop_checked(self, solution_from: str | None) -> None:
        self.checked_dropped = {"bound": str(self.checked + 1), "by": self.checked_by, "solution_from": solution_from}
        self.checked, self.checked_by = self.lower - 1, None

    def _refuted(self, lane: _Lane, name: str, cap: int) -> None:
        if cap >= self.target:  # a schedule of value <= cap is known: the refutation is false
            if lane.dropped is None:
                lane.dropped = {"bound": str(cap + 1), "by": name, "solution_from": self.found_by}
            return
        lane.refuted, lane.refuted_by = cap, name
        self._stop_the_moot()

    def _stop_the_moot(self) -> None:
        """Stop every lane asking another cap than it would ask now: one at
        or above the incumbent (nothing is left to ask), or one below what
        the other lanes have all refuted meanwhile (``_next_cap``); it asks again."""
        for index, lane in enumerate(self.lanes):
            if lane.asking is not None and self._next_cap(index) != lane.asking[0]:
                lane.asking[1].set()

    def outcome(self) -> RaceOutcome:
        """What the lanes certify together: the least of their refutations,
        or the highest checked refutation where it is higher."""
        details: dict = {"race": {"lanes": [list(lane.used) for lane in self.lanes]}}
        dropped = [lane.dropped for lane in self.lanes if lane.dropped is not None]
        if dropped or self.checked_dropped:
            details["refuted_claim"] = (dropped or [self.checked_dropped])[0]
        by_lanes = self.lower - 1 if dropped else min(lane.refuted for lane in self.lanes)
        bound = max(by_lanes, self.checked) + 1
        if bound == self.lower:
            proof: tuple[str, ...] = ()
        elif self.checked >= by_lanes:
            proof = (self.checked_by,)
        else:
            proof = tuple(lane.refuted_by for lane in self.lanes)
        value = None if self.schedule is None else self.value_of(self.schedule)
        return RaceOutcome(bound, self.schedule, value, proof, details)


def race(lanes: Sequence[Sequence[tuple[str, CapQuestion]]], lower: int, upper: int, incumbent,
         value_of: Callable[[object], int], deadline: float) -> RaceOutcome:
    """Decide the caps ``lower``..``upper`` (those below ``incumbent``'s
    value, if any) with each lane in a thread of its own, until every lane
    has refuted every cap below the best schedule found, no lane has a
    question left, or ``deadline`` (a monotonic time). The methods of two
    lanes must be independent of each other: the bound rests on both."""
    if len(lanes) < 2:
        raise ValueError("a race needs two lanes or more: one method's refutations prove nothing")
    target = upper + 1 if incumbent is None else min(upper + 1, value_of(incumbent))
    state = _Race(lower, target, incumbent, value_of, deadline, [_Lane(lower - 1) for _ in lanes])
    threads = [threading.Thread(target=contextvars.copy_context().run, args=(state.run_lane, index, methods),
                                daemon=True) for index, methods in enumerate(lanes)]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:  # an interrupt of the caller (Ctrl-C) stops the lanes' models too
        if any(thread.is_alive() for thread in threads):
            state.stop()
            for thread in threads:
                thread.join(timeout=1)
    if state.error is not None:
        raise state.error
    return state.outcome()


def model_lanes(models: Mapping[str, object],
                ask: Callable[[object, int, float], tuple[str, object]]) -> list[list[tuple[str, CapQuestion]]]:
    """The two lanes of a family's backend models (``MODELS``), with
    ``ask(model module, cap, seconds)``: CP-SAT on one worker (the MILP's
    CBC has the other core); the MILP, then CP-SAT's confirming
    configuration where the MILP refuses the model or gives no answer in
    time (the fallback ``solvers.exact.certificate`` counts as independent).
    The MILP is asked within the time left less ``CBC_GRACE``, the most its
    CBC runs past a limit before it is killed, and not started with less
    than ``MILP_MINIMUM`` seconds, as ``certificate.confirm`` does."""
    def on(model, context) -> CapQuestion:
        def question(cap: int, seconds: float) -> tuple[str, object]:
            with context():
                return ask(model, cap, seconds)
        return question

    def milp(cap: int, seconds: float) -> tuple[str, object]:
        if seconds - CBC_GRACE < MILP_MINIMUM:
            return "unknown", None  # too little time to start a MILP in: the lane's next method
        return ask(models["milp"], cap, seconds - CBC_GRACE)

    return [[("cpsat", on(models["cpsat"], lambda: cpsat_workers(1)))],
            [("milp", milp), ("cpsat-confirm", on(models["cpsat"], confirming))]]
