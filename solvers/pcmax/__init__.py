"""P||Cmax: the one entry point every family uses for a P||Cmax optimum.

Bounds first, models last:
1. lower bound: L0, the L1 family, Martello-Toth L2 inside a search on C;
2. upper bound: the best of LPT and MULTIFIT, improved by local search;
   equal bounds close the instance ("bounds"); then the fill search
   (``solvers.pcmax.fill.fill_to``) looks for a schedule at the lower bound,
   which the bound alone proves optimal ("fill"), for at most 5% of the
   time before the backend's search (from ``FILL_FIRST`` jobs a machine
   on, two short probes of it go first of all, from the local search's
   schedule and then from LPT's, and a full try follows where bin
   completion leaves the bound undecided; with fewer, only one probe
   there), and after it for all the time left
   when no model refuted the bound (machines filled to C exactly, where the
   models are too large to build); bin completion
   (``solvers.pcmax.bin_completion``) looks for one too, at this bound and at
   the LP's, each for at most 5% of the time ("bin-completion"); where it
   refutes this bound, it climbs (not where column generation is the LP,
   whose weights refute several capacities at once): the next capacity, and
   so on, until it packs one, cannot decide one or meets the incumbent,
   within one more 5%, and the assignment search (``solvers.pcmax.assignment_search``) refutes its
   last claim again within one more, with no model;
3. backend ``milp``: the arc-flow LP bound (up to 64 jobs and from C =
   1,000 on, the same LP by column generation, ``milp.pcmax_patterns``), found by bisection on C (the
   lower bound tried first, or, where bin completion refuted up to a
   claim, the capacity just below it), raises
   the lower bound ("arcflow-lp", each refuted C checked from the LP's dual
   solution in exact arithmetic); then C = lower, lower + 1, ... is decided
   by LP diving, which only ever finds packings ("arcflow-dive"; skipped at
   a C bin completion refuted), then, where column generation pays, by the
   partition into the patterns whose loads the slack allows
   (``milp.pcmax_partition``, "partition-milp"; near-perfect partitions),
   or elsewhere and where that window holds too many patterns by the
   arc-flow MILP ("arcflow-milp"), both of which also refute;
   backend ``cpsat``: the CP-SAT bin-packing model minimises the makespan
   between the bounds ("cpsat"), which also moves fast over wide gaps
   (long jobs), where deciding one C at a time cannot;
   ``portfolio``: the LP bound, then the dive and the MILP for 3/4 of the
   search time, then CP-SAT for the rest (all of it when the arc-flow graph
   is too large);
4. what the search leaves: where column generation pays, bin completion
   at the certified bound again, without a node budget, for most of the
   time left; then the dive resumed, then the fill.
Deciding C in increasing order means the first feasible C is optimal: every
smaller one was refuted. The bounds and the checked LP bound are certified
on their own; a model's refutation is a claim until a second method
(``solvers.exact.certificate``) refutes the same C again: bin completion or the
assignment search (no model at all), the window partition, the arc-flow
MILP or CP-SAT (confirming configuration), any two of them. On the time
limit the best schedule found and the last certified lower bound are
returned.
"""

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from schedbench.errors import ModelTooLarge, UserInputError
from schedbench.heuristics.pcmax import lpt, multifit
from schedbench.metrics.pcmax.bounds import forget_bounds, l0, lower_bound, refuted_through
from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL, Result
from schedbench.schedule import Schedule, back_to_back
from schedbench.solvers.exact import settings
from schedbench.solvers.pcmax.arcflow import build
from schedbench.solvers.pcmax.assignment_search import fits
from schedbench.solvers.pcmax.fill import fill_to, improve
from schedbench.solvers.pcmax.bin_completion import forget_verdicts, pack
from schedbench.solvers.exact.certificate import SEARCH_SHARE, confirm, unconfirmed
from schedbench.solvers.cpsat import confirming
from schedbench.solvers.cpsat.pcmax import minimize
# The arc-flow models and the window partition as modules, not their names: they import this
# package's parts (the graph, bin completion), which runs this module first when a user imports
# one of them first, and their names do not exist yet then.
from schedbench.solvers.milp import pcmax as arcflow_models
from schedbench.solvers.milp import pcmax_partition
from schedbench.solvers.milp.pcmax_patterns import pattern_lp, pays

FAMILY = "pcmax"
BACKENDS = ("portfolio", "cpsat", "milp")
#: The strongest measured: on 16 hard Lawrinenko instances the portfolio
#: proves 16 within 10 s where CP-SAT alone proves 6 (bench/pcmax_engine.py).
DEFAULT_SOLVER = "portfolio"


@dataclass(frozen=True)
class PcmaxSolution:
    status: str              # optimal | feasible
    makespan: int
    bound: int
    machine: tuple[int, ...]
    start: tuple[int, ...]
    method: str              # what closed it: bounds, fill, bin-completion, arcflow-lp, arcflow-dive, partition-milp, arcflow-milp, cpsat (or the heuristic)
    proof: tuple[str, ...] = ()   # the methods behind ``bound`` (``solvers.exact.certificate``)
    unconfirmed: tuple[int, str] | None = None  # a larger bound only one method claims

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL


def _makespan(machine_of, lengths) -> int:
    loads: dict[int, int] = {}
    for q, p in zip(machine_of, lengths):
        loads[q] = loads.get(q, 0) + p
    return max(loads.values())


@dataclass
class _Search:
    """The engine's state: the incumbent, the certified lower bound with its
    proof, and the bound a single method claims beyond it."""
    lengths: tuple[int, ...]
    machines: int
    best: list[int]
    upper: int
    method: str
    lower: int
    proof: tuple[str, ...]
    claimed: int = 0
    claimed_by: str = ""
    fill_seed: int = 0  # the fill search's next seed
    fill_from: list[int] | None = None  # where the time cut the fill's last try short (else it starts at ``best``)

    def __post_init__(self) -> None:
        self.heuristic = self.method  # the incumbent's first origin

    def improve(self, machine_of: list[int], method: str) -> None:
        value = _makespan(machine_of, self.lengths)
        if value < self.upper:
            self.best, self.upper, self.method = machine_of, value, method

    @property
    def closed(self) -> bool:
        return self.lower >= self.upper

    def claim(self, bound: int, by: str) -> None:
        if bound > max(self.claimed, self.lower):
            self.claimed, self.claimed_by = bound, by

    def refuted(self, capacity: int, by: str) -> None:
        """``by`` decided that no schedule has makespan <= ``capacity``, on its
        own (not within a floor another claim set): that confirms another
        method's claim of ``capacity + 1``, else it is a claim."""
        if capacity + 1 == self.claimed > self.lower and by != self.claimed_by:
            self.certify(self.claimed, (self.claimed_by, by))
        else:
            self.claim(capacity + 1, by)

    def certify(self, bound: int, proof: tuple[str, str]) -> None:
        """A refutation confirmed by two methods becomes the certified bound."""
        self.lower, self.proof = bound, proof
        if self.closed and self.method == self.heuristic:  # the refutation proved the heuristic's schedule optimal
            self.method = proof[0]

    def answer(self) -> PcmaxSolution:
        optimal = self.closed
        open_claim = (self.claimed, self.claimed_by) if self.claimed > self.lower else None
        return PcmaxSolution(OPTIMAL if optimal else FEASIBLE, self.upper, self.upper if optimal else self.lower,
                             tuple(self.best), tuple(back_to_back(self.best, self.lengths)), self.method,
                             self.proof, None if optimal else open_claim)


#: Certified optima by (lengths, machines, solver): a proven optimum holds
#: whatever the time limit that proved it, so asking again costs nothing
#: (per solver, so that comparing backends still runs each).
_PROVEN: dict[tuple[tuple[int, ...], int, str], PcmaxSolution] = {}
_PROVEN_SIZE = 200_000


#: Problems ``pcmax_optima`` left open: (the most seconds one call gave it, its
#: answer). Asked again with no more time, a later call takes the answer
#: instead of spending the time again (FAIRCAMP Fig. 4's five values of k share
#: every campaign).
_UNPROVEN: dict[tuple[tuple[int, ...], int, str], tuple[float, PcmaxSolution]] = {}
_UNPROVEN_SIZE = 10_000
#: How much more time than before a problem left open needs to be asked again
#: (a few milliseconds more would only spend the time again).
MORE_TIME = 1.25

#: Seconds each open problem needs at least for another round of ``pcmax_optima``.
MIN_ROUND = 0.05

#: Per-instance caches built on these answers elsewhere (``derived_cache``).
_DERIVED: list = []


def derived_cache(function: Callable) -> Callable:
    """Register an ``lru_cache``-wrapped function of P||Cmax answers, so that
    ``clear_cache`` forgets its results too."""
    _DERIVED.append(function)
    return function


def clear_cache() -> None:
    """Forget every answer (tests that plant wrong solvers need it)."""
    _PROVEN.clear()
    _UNPROVEN.clear()
    forget_bounds()
    arcflow_models.forget_patterns()
    forget_verdicts()
    pcmax_optimum.cache_clear()
    for function in _DERIVED:
        function.cache_clear()


@lru_cache(maxsize=200_000)
def pcmax_optimum(lengths: tuple[int, ...], machines: int, solver: str = "cpsat",
                  time_limit: float = settings.DEFAULT_TIME_LIMIT) -> PcmaxSolution:
    """Optimal (or best found, with its certified bound) P||Cmax schedule of ``lengths``."""
    if solver not in BACKENDS:
        raise UserInputError("--solver", f"unknown P||Cmax solver {solver!r} (known: {', '.join(BACKENDS)})")
    known = _PROVEN.get((lengths, machines, solver))
    if known is not None:
        return known
    return _remembered(lengths, machines, solver, _optimum(lengths, machines, solver, time_limit))


def _remembered(lengths: tuple[int, ...], machines: int, solver: str, found: PcmaxSolution) -> PcmaxSolution:
    """``found``, kept in ``_PROVEN`` when it is optimal."""
    if found.optimal:
        if len(_PROVEN) >= _PROVEN_SIZE:
            _PROVEN.clear()
        _PROVEN[lengths, machines, solver] = found
    return found


def _optimum(lengths: tuple[int, ...], machines: int, solver: str, time_limit: float,
             search: "_Search | None" = None) -> PcmaxSolution:
    """The engine on one problem; ``search``, the state ``pcmax_optima``'s
    first pass (or an earlier round) left, goes on from its bounds and
    incumbent instead of computing them again."""
    began = time.monotonic()
    deadline, search_end = began + time_limit, began + SEARCH_SHARE * time_limit
    if search is None:
        search = _bounds(lengths, machines, began + time_limit / 4, began + time_limit / 2, began + time_limit / 4)
    else:
        _polish(search, began + time_limit / 4)

    def share(fraction: float) -> float:
        """The end of a step given ``fraction`` of the limit from now, within the search's share."""
        return min(search_end, time.monotonic() + fraction * time_limit)

    probed = len(lengths) >= FILL_FIRST * machines
    if probed:
        _fill(search, share(FILL_SHARE), patience=FILL_FIRST_PATIENCE)
        _fill(search, share(FILL_SHARE), patience=FILL_FIRST_PATIENCE, start=lpt(lengths, [0] * machines)[0])
    if _pack(search, share(PACK_SHARE)) == INFEASIBLE:
        _climb(search, solver, share(PACK_SHARE))
        if search.claimed > search.lower:  # confirmed by the second search, the claim needs no LP
            _confirm(search, share(PACK_SHARE), only="assignment-search")
    else:  # bin completion left it undecided: the fill, only a probe where it has not probed yet
        _fill(search, share(FILL_SHARE), patience=None if probed else FILL_FIRST_PATIENCE)
    if not search.closed:
        _search(search, solver, search_end)
    if search.claimed > search.lower:
        _confirm(search, deadline)
        if not search.claimed and not search.closed:
            # the claim was false (the schedule that shows it is the incumbent now), and below it
            # only the false method had looked (bin completion's climb): the models search again
            now = time.monotonic()
            _search(search, solver, now + SEARCH_SHARE * (deadline - now))  # the rest: its confirmation
            if search.claimed > search.lower:
                _confirm(search, deadline)
    else:  # nothing to confirm: the time left goes to bin completion, the dive resumed where it stopped, the fill
        if solver != "cpsat":
            _pack_unbudgeted(search, deadline)
        if search.claimed > search.lower:  # bin completion's refutation, not confirmed yet: the rest confirms it
            _confirm(search, deadline)
        elif solver != "cpsat" and not search.closed:
            _dive_again(search, deadline)
        _fill(search, deadline, restarts=True)
    return search.answer()


#: The share of the time left after the search that bin completion gets
#: without a node budget where column generation pays (``_pack_unbudgeted``):
#: on the 25 organizations MOSP Fig. 8's two timed batches left open within
#: 10 s, asked again alone: 7 proven at 0.9, 5 at 0.5, 3 without the step
#: (none of them in its last phase); docs/development-notes.md.
LAST_PACK_SHARE = 0.9


def _pack_unbudgeted(search: _Search, deadline: float) -> None:
    """Bin completion at the certified bound with no node budget, for
    ``LAST_PACK_SHARE`` of the time left, where column generation pays
    (at most 64 jobs, C from 1,000 on and at most 150,000 knapsack cells:
    MOSP Fig. 8's organizations; not Lawrinenko's nor FAIRCAMP's, whose C
    is below 1,000; backends portfolio and milp): where the search left
    such an organization open, its 20,000 nodes at the bound had often
    fallen just short (one of 56 jobs packs at the bound in 0.06 s
    without a budget). A refutation is a claim another method must
    confirm (within the same share, and then it goes on at the next
    capacity; else ``_optimum`` gives the confirmation the rest)."""
    if search.closed or not pays(len(search.lengths), search.lower):
        return
    stop = time.monotonic() + LAST_PACK_SHARE * (deadline - time.monotonic())
    while not search.closed and time.monotonic() < stop:
        status, machine_of = pack(search.lengths, search.machines, search.lower, stop, node_limit=math.inf)
        if status == FEASIBLE:
            search.improve(machine_of, "bin-completion")
        if status != INFEASIBLE:
            return
        search.refuted(search.lower, "bin-completion")
        _confirm(search, stop)
        if search.claimed > search.lower:  # not confirmed in time: it stays a claim
            return


def _dive_again(search: _Search, deadline: float) -> None:
    """The dive at the certified bound with the time left: the LP steps the
    search's dive already took are remembered (``milp.pcmax._patterns``),
    so it goes on where that one stopped. On Lawrinenko's classes 6-7 the
    dives that find a schedule took up to 7 s alone, more than the search's
    share gives them, and with 3/4 of the time left (the fill the rest) 17
    instances stayed open instead of 11-14. The fill gets what the dive
    leaves: all of it where the graph is too large (planted instances) and
    the dive returns at once, nothing where the dive runs out of time."""
    status, machine_of = arcflow_models.dive(search.lengths, search.machines, search.lower, deadline - time.monotonic())
    if status == FEASIBLE:
        search.improve(machine_of, "arcflow-dive")


#: From this many jobs a machine the fill goes before bin completion: on
#: FAIRCAMP Fig. 4's campaigns of 4 jobs a machine and more, bin completion
#: spent its 2 x 10^4 nodes (30-100 ms) in vain where the fill then found
#: the schedule in a millisecond; with fewer, the fill mostly fails (15-40
#: ms) and bin completion decides (Lawrinenko's instances have at most 3).
FILL_FIRST = 4
#: Steps without progress that fill gets before bin completion: enough where it
#: closes those campaigns (a few steps), little where it fails (U[1,1000]
#: jobs, MOSP Fig. 8's organizations: its full patience cost them 0.5 s).
#: Where the probe from the local search's schedule fails, a second one
#: starts from LPT's: on those organizations with a schedule at L0 it found
#: one from LPT's for half of them, from the local search's for almost none.
#: With fewer jobs a machine, where bin completion leaves the bound
#: undecided, the fill gets one such probe before the models, and its full
#: tries only at the end: a full try there, alternated problem by problem
#: (CPU), cost 300 Lawrinenko instances (at most 3 jobs a machine) 94.2 s
#: against 64.7 s, 200 generated (U[1,1000], U[100,200], U[1,100], 2.2 to
#: 3.9 jobs a machine) 72.3 s against 65.4 s with one fewer proven, 345 of
#: Fig. 8's organizations 84.0 s against 80.8 s; no fill there at all lost
#: 3 of those 200. From 4 jobs a machine on, the full try stays: without
#: it, 902 of Fig. 8's organizations took 39.9 s against 29.2 s, the dive
#: closing four the fill had (docs/development-notes.md).
FILL_FIRST_PATIENCE = 50

#: The fill's share of the time limit before the backend's search (the probe's too): a
#: probe, since a fill that fails costs the models their time (at a quarter,
#: Lawrinenko classes 6-7 lost instances the arc-flow dive proves).
FILL_SHARE = 0.05


def _fill(search: _Search, stop_at: float, restarts: bool = False, patience: int | None = None,
          start: list[int] | None = None) -> None:
    """A schedule at the certified bound by ``fill_to`` (one try, or tries
    with new seeds until ``stop_at``): where it is found, the bound alone
    proves it optimal. A try the time cut short is where the next one
    starts, a try that stalled is not (the next starts at the incumbent):
    on planted instances of four jobs a machine the fill spends seconds
    bringing the excess down before its last units, and starting each try
    at the incumbent again lost them. A try that could re-split no group
    (subset-sum tables too large) is not repeated. With ``patience``
    (``fill_to``'s steps without progress) it is a probe: the first steps
    of the next full try. ``start``: the assignment the try begins at
    instead (the second probe's, LPT's schedule)."""
    while not search.closed and time.monotonic() < stop_at:
        found, moved, stopped_at = fill_to(search.lengths, start or search.fill_from or search.best, search.machines,
                                           search.lower, stop_at, search.fill_seed, patience=patience)
        search.fill_from = stopped_at if time.monotonic() >= stop_at else None
        if patience is None:  # a probe cut short is the next full try's start: it keeps the seed
            search.fill_seed += 1
        if found is not None:
            search.improve(found, "fill")
        if not (restarts and moved):
            return


#: The bin completion's share of the time limit at each bound it tries.
PACK_SHARE = 0.05


def _pack(search: _Search, stop_at: float) -> str:
    """A schedule at the certified bound by bin completion: fast where the
    fill is not, with two or three jobs a machine, and hopeless with many
    short jobs, so it gets a share of the time and a node budget. Its status
    is returned. An exhausted search ("infeasible") is a claim of the next
    bound that another method must refute again (``_Search.refuted``), and it
    spares the fill its time."""
    if search.closed:
        return FEASIBLE
    status, machine_of = pack(search.lengths, search.machines, search.lower, stop_at)
    if status == FEASIBLE:
        search.improve(machine_of, "bin-completion")
    elif status == INFEASIBLE:
        search.refuted(search.lower, "bin-completion")
    return status


def _climb(search: _Search, solver: str, stop_at: float) -> None:
    """Bin completion at each capacity above the one it refuted, until it
    packs one, cannot decide one or reaches the incumbent. Its refutations
    are claims that one refutation of the last confirms: the assignment
    search's, else one LP just below it. On FAIRCAMP Fig. 4's campaigns a
    refutation costs bin completion about a millisecond, an LP five, and
    bisecting between the bounds took one and a half LPs a campaign where
    this takes one at most. Where the backend's LP bound is column
    generation's (``pays``, asked as ``lp_refuted_through`` asks it; backend
    ``cpsat`` asks no LP, so its bin completion climbs), there is no climb:
    the assignment search still tries bin completion's one claim, and the
    LP decides the capacities above it, warm from one C to the next, a few
    milliseconds a capacity, one LP's weights often refuting several,
    where each of bin completion's refutations is an exhaustive search (on
    MOSP Fig. 8's organizations the climb cost more than the LPs it spared:
    docs/development-notes.md)."""
    if solver != "cpsat" and pays(len(search.lengths), search.upper - 1):
        return
    while search.claimed < search.upper and time.monotonic() < stop_at:
        status, machine_of = pack(search.lengths, search.machines, search.claimed, stop_at)
        if status == FEASIBLE:
            search.improve(machine_of, "bin-completion")
            return
        if status != INFEASIBLE:
            return
        search.refuted(search.claimed, "bin-completion")


def _bounds(lengths: tuple[int, ...], machines: int, improve_until: float, rules_until: float,
            bound_until: float) -> _Search:
    """The engine's start: LPT's schedule, the lower bound (its L2 search
    stopping at LPT's makespan, or at ``bound_until``), MULTIFIT's schedule
    where it is better and LPT missed the bound (before ``rules_until``),
    then local search until ``improve_until`` (none when it is past);
    method "bounds" when they meet."""
    best, heuristic = lpt(lengths, [0] * machines)[0], "lpt"
    upper = _makespan(best, lengths)
    lower, name = lower_bound(lengths, machines, upper, deadline=bound_until)
    if lower < upper and time.monotonic() < rules_until:
        other = multifit(lengths, [0] * machines, deadline=rules_until)[0]
        makespan = _makespan(other, lengths)
        if makespan < upper:
            best, heuristic, upper = other, "multifit", makespan
    search = _Search(lengths, machines, best, upper, heuristic, lower, (name,))
    _polish(search, improve_until)
    return search


def _polish(search: _Search, stop_at: float) -> None:
    """The local search on the incumbent until ``stop_at``; method "bounds"
    when the bounds meet."""
    if not search.closed and time.monotonic() < stop_at:
        better = improve(search.lengths, search.best, search.machines, deadline=stop_at)
        if _makespan(better, search.lengths) < search.upper:
            search.improve(better, search.method + "+search")
            search.heuristic = search.method
    if search.closed:
        search.method = "bounds"


def pcmax_optima(problems: list[tuple[tuple[int, ...], int]], solver: str, time_limit: float) -> list[PcmaxSolution]:
    """``pcmax_optimum`` of every (lengths, machines) within one budget of
    ``time_limit`` seconds in all. Those the bounds close (without local
    search) are answered first; the others then share the budget, each an
    equal share of what is left, so the time one does not use goes to the
    next; those still open get further rounds while the time left allows
    ``MIN_ROUND`` seconds each, and a problem an earlier call left open is
    asked again only with ``MORE_TIME`` times the time that call gave it. Problems the budget does not reach (a trace
    of millions of jobs) get LPT's schedule and L0, unproven."""
    deadline = time.monotonic() + time_limit
    out: list[PcmaxSolution | None] = []
    started: dict[int, _Search] = {}  # the first pass's state of each open problem, carried from round to round
    for lengths, machines in problems:
        known = _PROVEN.get((lengths, machines, solver))
        if known is None and solver in BACKENDS and time.monotonic() < deadline:
            start = _bounds(lengths, machines, improve_until=0.0, rules_until=deadline, bound_until=deadline)
            if start.method == "bounds":
                known = _remembered(lengths, machines, solver, start.answer())
            else:
                started[len(out)] = start
        out.append(known)
    hard = [i for i, found in enumerate(out) if found is None]
    # a problem left open by an earlier call starts from that call's answer and share
    given = {}
    for i in hard:
        seconds, out[i] = _UNPROVEN.get((*problems[i], solver), (0.0, None))
        given[i] = MORE_TIME * seconds
    opened, asked_ever = list(hard), set()
    while hard:
        asked = []
        for done, i in enumerate(hard):
            if time.monotonic() >= deadline:
                out[i] = out[i] or _unreached(*problems[i])
                continue
            share = max(deadline - time.monotonic(), 0.01) / (len(hard) - done)
            if share > given[i]:  # asking again with no more time than before cannot do better
                given[i] = share
                out[i] = _ask(problems[i], solver, share, started.get(i))
                asked.append(i)
                asked_ever.add(i)
        # what the easier ones left goes to another round for those still open
        hard = [i for i in hard if not out[i].optimal]
        if not asked or deadline - time.monotonic() < MIN_ROUND * len(hard):
            break
    for i in opened:
        if not out[i].optimal and i in asked_ever:
            if len(_UNPROVEN) >= _UNPROVEN_SIZE:
                _UNPROVEN.clear()
            _UNPROVEN[(*problems[i], solver)] = (given[i], out[i])
    return out


def _ask(problem: tuple[tuple[int, ...], int], solver: str, seconds: float, start: _Search | None) -> PcmaxSolution:
    """``pcmax_optimum`` of a problem, going on from its first-pass state when there is one."""
    if start is None:
        return pcmax_optimum(*problem, solver, seconds)
    known = _PROVEN.get((*problem, solver))
    return known or _remembered(*problem, solver, _optimum(*problem, solver, seconds, start))


def _unreached(lengths: tuple[int, ...], machines: int) -> PcmaxSolution:
    """A problem the budget did not reach: LPT's schedule and L0, the bounds that cost O(n log n)."""
    machine_of = lpt(lengths, [0] * machines)[0]
    return _Search(lengths, machines, machine_of, _makespan(machine_of, lengths), "lpt", l0(lengths, machines),
                   ("L0",)).answer()


def _search(search: _Search, solver: str, stop_at: float) -> None:
    """The backend's search: raises the certified bound (the checked LP) and
    claims refutations, improving the incumbent on the way."""
    lengths, machines = search.lengths, search.machines
    if solver == "milp" or solver == "portfolio" and _arcflow_fits(lengths, search.lower, stop_at):
        lp = _arcflow_lower_bound(lengths, machines, search.lower, search.upper, stop_at,
                                  first=min(search.claimed, search.upper) - 1 if search.claimed > search.lower
                                  else search.lower)
        raised = lp > search.lower
        if raised:
            search.lower, search.proof = lp, ("arcflow-lp-dual",)
        if search.lower >= search.upper:
            search.method = "arcflow-lp"
            return
        climbed = search.claimed_by == "bin-completion" and search.lower < search.claimed
        if raised and not climbed:  # a new bound bin completion has not refuted yet: it tries it
            _pack(search, min(stop_at, time.monotonic() + PACK_SHARE * (stop_at - time.monotonic())))
            if search.closed:
                return
        # the portfolio gives the arc-flow decisions 3/4 of the time, CP-SAT the rest
        stop = stop_at if solver == "milp" else time.monotonic() + 0.75 * (stop_at - time.monotonic())
        capacity = search.lower
        while capacity < search.upper and time.monotonic() < stop:
            status, machine_of, method = _arcflow_decide(lengths, machines, capacity, stop,
                                                         dive_first=capacity >= search.claimed)
            if status == "feasible":
                search.improve(machine_of, method)
                return
            if status != INFEASIBLE:
                break
            search.refuted(capacity, method)
            capacity += 1
        if solver == "milp" or capacity >= search.upper:
            return
    floor = max(search.lower, search.claimed)
    if floor >= search.upper:  # claimed up to the incumbent: only the confirmation is left
        return
    status, machine_of, bound = minimize(lengths, machines, floor, search.upper - 1, stop_at)
    if machine_of is not None:
        search.improve(machine_of, "cpsat")
    if status in ("optimal", INFEASIBLE):  # infeasible: nothing below the incumbent
        search.claim(search.upper, "cpsat")
    elif bound is not None:
        search.claim(bound, "cpsat")


#: Bin completion's share of a confirmation's time (the other methods get the rest).
CONFIRM_PACK_SHARE = 0.25


def _confirm(search: _Search, deadline: float, only: str | None = None) -> None:
    """Ask the claim's refutation (no makespan <= claimed - 1) again by the
    other methods (``only`` that one); a schedule one finds instead replaces
    the incumbent."""
    capacity = search.claimed - 1
    lengths, machines = search.lengths, search.machines

    def by_packing(seconds: float) -> tuple[str, object]:
        """A share of the time and no node budget: on the instances whose LP
        bound is one short (the arc-flow MILP refutes, CP-SAT does not within
        a minute) bin completion refutes in 10^5 to 2 x 10^6 nodes (0.1 to
        1.1 s on MOSP Fig. 8's organizations); a fixed budget cuts the
        deeper ones short, and their claims stay unconfirmed for the whole
        limit."""
        return pack(lengths, machines, capacity, time.monotonic() + CONFIRM_PACK_SHARE * seconds,
                    node_limit=math.inf)

    def by_assignment(seconds: float) -> tuple[str, object]:
        return fits(lengths, machines, capacity, time.monotonic() + seconds)

    def by_partition(seconds: float) -> tuple[str, object]:  # ModelTooLarge in a wide window
        return pcmax_partition.decide(lengths, machines, capacity, seconds)

    def by_arcflow(seconds: float) -> tuple[str, object]:  # unknown when the graph is too large
        return arcflow_models.decide(lengths, machines, capacity, seconds)

    def by_cpsat(seconds: float) -> tuple[str, object]:
        with confirming():
            status, machine_of, _ = minimize(lengths, machines, search.lower, capacity, time.monotonic() + seconds)
        return status, machine_of

    methods: list[tuple[str, Callable[[float], tuple[str, object]]]] = [
        ("bin-completion", by_packing), ("assignment-search", by_assignment),
        *([("partition-milp", by_partition)] if pays(len(lengths), capacity) else []),
        ("arcflow-milp", by_arcflow), ("cpsat-confirm", by_cpsat)]
    done = confirm([(name, ask) for name, ask in methods
                    if _independent(name, search.claimed_by) and only in (None, name)], deadline)
    if done.confirmed:
        search.certify(search.claimed, (search.claimed_by, done.by))
    elif done.found is not None:  # the claim was false: its refutation missed this schedule
        search.improve(list(done.found), done.found_by)
        search.claimed, search.claimed_by = 0, ""


#: The models SCIP solves: never each other's second method, whose bugs they could share.
SCIP_MODELS = ("partition-milp", "arcflow-milp")


def _independent(method: str, claimed_by: str) -> bool:
    """Whether ``method`` may confirm a refutation ``claimed_by`` made."""
    return method != claimed_by and not (method in SCIP_MODELS and claimed_by in SCIP_MODELS)


def _arcflow_fits(lengths, capacity, deadline) -> bool:
    """Whether the arc-flow graph at the lower bound stays under its size cap:
    long jobs and a large C make it too large, and then the portfolio leaves
    all its time to CP-SAT instead of building graphs it cannot use. Below
    (C + 1)(n + 2) arcs and nodes, the most ``build`` can count, it fits
    without building it."""
    if (capacity + 1) * (len(lengths) + 2) <= arcflow_models.MAX_GRAPH:
        return True
    return build(lengths, capacity, arcflow_models.MAX_GRAPH, deadline) is not None


#: The dive's share of the time left to decide one C, the MILP's the rest: on
#: Lawrinenko's classes 6-7 the dive closes about 600 instances, the MILP one
#: at most, and at half the time the dive left open instances it closes in 3-7 s.
DIVE_SHARE = 0.75


def _arcflow_decide(lengths, machines, capacity, stop, dive_first: bool = True) -> tuple[str, list[int] | None, str]:
    """C decided by LP diving (``DIVE_SHARE`` of the time left), then the
    window partition where column generation pays (``pcmax_patterns.pays``),
    else or where the window is too wide the arc-flow MILP.
    Without ``dive_first`` (another method already refuted C) only the
    models, which can refute too: a dive only finds packings, and it spent
    half of a campaign's share in vain on FAIRCAMP Fig. 4's workloads. The
    dive goes first because where it finds the schedule (MOSP Fig. 8's
    organizations of 50 jobs on 20 machines) it takes milliseconds and the
    window is mostly too wide to enumerate."""
    if dive_first:
        status, machine_of = arcflow_models.dive(lengths, machines, capacity, DIVE_SHARE * (stop - time.monotonic()))
        if status == "feasible":
            return status, machine_of, "arcflow-dive"
    if pays(len(lengths), capacity):
        try:
            status, machine_of = pcmax_partition.decide(lengths, machines, capacity, max(stop - time.monotonic(), 0.01))
            return status, machine_of, "partition-milp"
        except ModelTooLarge:  # a wide window: too many patterns to enumerate
            pass
    status, machine_of = arcflow_models.decide(lengths, machines, capacity, max(stop - time.monotonic(), 0.01))
    return status, machine_of, "arcflow-milp"


def _arcflow_lower_bound(lengths, machines, lower, upper, deadline, first: int | None = None) -> int:
    """Smallest C in [lower, upper] the arc-flow LP does not refute, by bisection.

    The LP's machine count never grows with C, so a refuted C refutes every
    smaller one; a C left untested (graph too large, time up) only stops the
    search, it never counts as refuted. ``first`` (in [lower, upper)) is
    tried before the bisection: ``lower`` where no other method refuted it
    (the LP leaves it standing about half the time on MOSP Fig. 8's
    organizations, and then one LP answers where bisection between the
    bounds took three or four), or just below another method's claim,
    which the LP mostly confirms at once."""
    while lower < upper and time.monotonic() < deadline:
        middle, first = (first if first is not None else (lower + upper) // 2), None
        through = lp_refuted_through(lengths, machines, middle, upper - 1, deadline)
        if through >= middle:
            lower = through + 1
        else:
            upper = middle
    return lower


def lp_refuted_through(lengths: tuple[int, ...], machines: int, capacity: int, limit: int, deadline: float) -> int:
    """The largest C <= ``limit`` that the LP's checked duals at ``capacity``
    refute (``capacity - 1`` where they do not refute it by ``deadline``):
    one LP's weights often refute several capacities above its own, each a
    bisection step saved. Where ``pcmax_patterns.pays`` (at most 64 jobs, C at
    least 1,000 and at most 150,000 knapsack cells) the LP is
    solved by column generation, whose restricted LP is kept from one C to
    the next (0.05-0.1 s for a bisection on MOSP Fig. 8's organizations,
    where the graph's LP took 0.1-0.3 s at each C; the dive at the C found
    starts from its patterns), else on the arc-flow graph."""
    if pays(len(lengths), limit):
        return pattern_lp(tuple(sorted(lengths))).refuted_through(capacity, machines, limit, deadline)
    weights = arcflow_models.dual_certificate(lengths, capacity, deadline - time.monotonic())
    if weights is None:
        return capacity - 1
    return refuted_through(dict(Counter(lengths)), machines, capacity, limit, weights)


def result(found: PcmaxSolution, solver: str, began: float) -> Result:
    """The engine's answer as a ``Result``: the claim no second method
    confirmed, if any, in ``details["unconfirmed"]``."""
    details = unconfirmed(found.unconfirmed[0], found.unconfirmed[1], found.bound) if found.unconfirmed else {}
    return Result(found.status, Fraction(found.makespan), Fraction(found.bound), Schedule(found.machine, found.start),
                  solver, found.method, time.perf_counter() - began, details, found.proof)


def solve(instance, objective: str, solver: str, time_limit: float) -> Result:
    began = time.perf_counter()
    return result(pcmax_optimum(instance.jobs, instance.machines, solver, time_limit), solver, began)
