"""The P||Cmax LP bound by column generation (Gilmore and Gomory 1961),
kept warm from one capacity to the next.

The LP is the one the arc-flow graph relaxes: min sum_p x_p over packings
p of one machine (patterns: at most count(s) jobs of length s, total at
most C), every length covered count(s) times. Its value is at least the
arc-flow graph's (``milp.pcmax``: the compressed graph also has paths that
repeat a length more often than it has jobs), so a capacity the graph's LP
refutes, this one refutes too. The restricted LP holds a few patterns;
the pricing is a bounded knapsack over exact loads (numpy), which adds the
patterns the duals say are missing.

Why it exists beside the graph's LP: on organizations of a few tens of
distinct lengths U[1, 1000] and C of one to two thousand (MOSP Fig. 8's
C^(k)alone), the graph has some 20,000 arcs and GLOP takes 0.1-0.3 s on it
at each capacity, where column generation takes 0.05-0.1 s cold and a few
milliseconds more at the next capacity, whose restricted LP starts from
the patterns of the last (``bench/pcmax_patterns.py``). On more jobs the
iterations grow with n and the graph is faster (Lawrinenko's classes
6-7, n = 120 to 220: 0.1-1.3 s against 0.04-0.5 s), so the engine asks
this one only up to ``MAX_JOBS`` jobs and ``MAX_CELLS`` knapsack cells, and
from ``MIN_CAPACITY`` on (``pays``).

Nothing here is trusted: a refutation is returned only when the duals,
scaled to integers, pass ``weights_bound`` (an exact bounded knapsack, the
same check as the graph's LP bound), and "not refuted" only ever weakens a
bound. A restricted LP whose value is at most m machines shows that the
full LP cannot refute C, and ends the question early.
"""

import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
from ortools.linear_solver import pywraplp

from schedbench.metrics.pcmax.bounds import dual_weights, refuted_through, weights_bound

#: At most this many jobs: the engine's LP bound uses column generation (above, the graph's LP).
MAX_JOBS = 64
#: And at most this many knapsack cells a pricing (jobs x (C + 1)): on
#: planted instances of lengths U[1, 10^4] (C near 2 x 10^4) the pricings
#: took the time the fill needed, and 4 of 72 stayed open instead of none.
MAX_CELLS = 150_000
#: And a capacity of at least this: below it the graph has at most C + 1
#: nodes and GLOP solves it in milliseconds (FAIRCAMP Fig. 4's campaigns,
#: C below 500: with column generation the full run took 8.6 minutes
#: instead of 6.8; Lawrinenko's instances of up to 64 jobs, C below 1,000).
MIN_CAPACITY = 1_000

#: GLOP without presolve: column generation solves the restricted LP again
#: after each pricing's columns, and a presolved LP is solved from scratch
#: where the unpresolved one starts from the last basis (one-off runs on
#: 893 solved MOSP Fig. 8 organizations, with and without alternated
#: problem by problem, twice: 79.6 s of CPU with presolve, 76.8 s
#: without, the same methods closing the same problems;
#: docs/development-notes.md).
GLOP_PARAMETERS = "use_preprocessing: false"
#: Patterns added per pricing, at most: the best packing of each of the loads of the highest value.
PATTERNS_PER_PRICING = 8
#: Reduced costs below this count as zero (float duals).
TOLERANCE = 1e-9
#: The exact check of the duals runs only where their float Farley bound,
#: restricted LP value / heaviest pattern, is within this fraction of m or
#: above: the check's integer weights are the duals floored to 2^-20, so its
#: bound exceeds the Farley bound by at most k 2^-20 / (heaviest pattern)
#: relatively, k the jobs of a pattern (below 10^-4 while k <= MAX_JOBS =
#: 64), and below that it cannot refute. Skipping it there spares most
#: iterations the check's own knapsack.
FARLEY_MARGIN = 1e-4

Pattern = tuple[tuple[int, int], ...]  # (length, jobs of it) pairs, ascending lengths

REFUTED, FITS, CONVERGED, UNKNOWN = "refuted", "fits", "converged", "unknown"


def pays(jobs: int, capacity: int) -> bool:
    """Whether the engine asks column generation, not the graph, for this LP."""
    return jobs <= MAX_JOBS and capacity >= MIN_CAPACITY and jobs * (capacity + 1) <= MAX_CELLS


def pattern_lp(lengths: tuple[int, ...]) -> "PatternLP":
    """The restricted LP of a job multiset (``lengths`` sorted), shared by the
    engine's LP bound and the dive that follows it at the same capacity,
    which then starts from the patterns the bound's last question left.
    One per thread: a GLOP model is not to be solved from two at once (the
    MOSP race's lanes may ask the same organization)."""
    return _pattern_lp(lengths, threading.get_ident())


@lru_cache(maxsize=8)
def _pattern_lp(lengths: tuple[int, ...], thread: int) -> "PatternLP":
    return PatternLP(lengths)


def forget_pattern_lps() -> None:
    """Drop the kept restricted LPs (the engine's ``clear_cache``)."""
    _pattern_lp.cache_clear()


class PatternLP:
    """The restricted LP of one job multiset, reused across capacities:
    a pattern of load L stays valid at every C >= L, and is switched off
    (upper bound 0) below."""

    def __init__(self, lengths: Sequence[int]):
        self.counts = Counter(lengths)
        self.lengths = sorted(self.counts)
        self.solver = pywraplp.Solver.CreateSolver("GLOP")
        if not self.solver.SetSolverSpecificParametersAsString(GLOP_PARAMETERS):
            raise RuntimeError(f"GLOP refused its parameters {GLOP_PARAMETERS!r}")
        self.rows = {s: self.solver.Constraint(self.counts[s], self.solver.infinity()) for s in self.lengths}
        self.objective = self.solver.Objective()
        self.objective.SetMinimization()
        self.columns: dict[Pattern, tuple[pywraplp.Variable, int]] = {}
        self.weights: dict[int, int] = {}  # the last duals asked, as checked integer weights

    def refuted_through(self, capacity: int, machines: int, limit: int, deadline: float) -> int:
        """The largest C <= ``limit`` that the checked weights of the LP at
        ``capacity`` refute (``bounds.refuted_through``), or ``capacity - 1``
        where they do not refute ``capacity``."""
        if self._solve(capacity, machines, deadline) != REFUTED:
            return capacity - 1
        return refuted_through(self.counts, machines, capacity, limit, self.weights)

    def fractional(self, capacity: int, machines: int, deadline: float) -> list[tuple[float, list[int]]] | None:
        """A fractional packing in at most ``machines`` machines: (weight,
        lengths of one machine) per pattern it uses, heaviest first (what
        LP diving fixes); None when the LP needs more machines or was cut short."""
        status = self._solve(capacity, machines, deadline)
        if status == FITS or status == CONVERGED and self.objective.Value() < machines + 1e-4:
            used = [(variable.solution_value(), pattern) for pattern, (variable, _) in self.columns.items()]
            return sorted(((weight, [s for s, jobs in pattern for _ in range(jobs)]) for weight, pattern in used
                           if weight > 1e-6), key=lambda p: -p[0])
        return None

    def seed(self, machines: Iterable[Sequence[int]]) -> None:
        """Columns to start from: one pattern for each machine's lengths
        (those of a step above in a dive, for the jobs it left)."""
        for lengths in machines:
            pattern = tuple(sorted(Counter(lengths).items()))
            if all(self.counts[s] >= jobs for s, jobs in pattern):
                self._add(pattern)

    def _solve(self, capacity: int, machines: int, deadline: float) -> str:
        """Column generation at ``capacity`` until the question "more than
        ``machines``?" is settled: REFUTED (checked duals), FITS (the restricted
        LP packs the jobs fractionally in ``machines``), CONVERGED (no pattern
        left to add, the check not passed) or UNKNOWN (deadline, GLOP)."""
        self._restrict(capacity)
        while time.monotonic() < deadline:
            self.solver.SetTimeLimit(max(1, int(1000 * (deadline - time.monotonic()))))
            if self.solver.Solve() != pywraplp.Solver.OPTIMAL:
                return UNKNOWN
            if self.objective.Value() <= machines + TOLERANCE:  # the full LP is no larger: it cannot refute
                return FITS
            duals = {s: max(self.rows[s].dual_value(), 0.0) for s in self.lengths}
            priced, heaviest = best_patterns(self.counts, duals, capacity, PATTERNS_PER_PRICING)
            if self.objective.Value() > machines * (1 - FARLEY_MARGIN) * max(heaviest, 1.0) or not priced:
                self.weights = dual_weights(self.counts, capacity, duals)
                if weights_bound(self.counts, capacity, self.weights) > machines:
                    return REFUTED
            fresh = [pattern for pattern in priced if pattern not in self.columns]
            if not fresh:  # optimal for the full LP, whose value the check could not separate from m
                return CONVERGED
            for pattern in fresh:
                self._add(pattern)
        return UNKNOWN

    def _restrict(self, capacity: int) -> None:
        """Patterns within ``capacity`` on, the others off, and each length
        alone (as many as fit) among them, so the restricted LP is feasible."""
        for variable, load in self.columns.values():
            variable.SetUb(self.solver.infinity() if load <= capacity else 0.0)
        for s in self.lengths:
            if s <= capacity:
                self._add(((s, min(self.counts[s], capacity // s)),))

    def _add(self, pattern: Pattern) -> None:
        if pattern in self.columns:
            self.columns[pattern][0].SetUb(self.solver.infinity())
            return
        variable = self.solver.NumVar(0.0, self.solver.infinity(), "")
        for s, jobs in pattern:
            self.rows[s].SetCoefficient(variable, jobs)
        self.objective.SetCoefficient(variable, 1.0)
        self.columns[pattern] = (variable, sum(s * jobs for s, jobs in pattern))


def best_patterns(counts: Counter, duals: dict[int, float], capacity: int, many: int) -> tuple[list[Pattern], float]:
    """Patterns of dual value above 1 (negative reduced cost), best first,
    and the highest dual value a pattern holds (the Farley bound's
    denominator): the bounded knapsack's best packing of each of the
    ``many`` loads of the highest value. The knapsack is over exact loads
    (``best[c]``: the most value of a packing of load exactly c), so the
    loads' packings are ``many`` distinct patterns, where the best packing
    *within* each capacity is mostly one pattern for all the capacities
    near C (a pricing then adds one or two columns, and column generation
    takes twice the pricings on MOSP Fig. 8's organizations). Counts
    are split into chunks 1, 2, 4, ... so each chunk is a 0-1 item;
    ``taken[i, c]`` records whether the best value at load c takes chunk i,
    which the packings are read back from."""
    chunks = [(s, take) for s in sorted(counts) if duals.get(s, 0.0) > TOLERANCE
              for take in _chunks(counts[s], capacity // s)]
    best = np.full(capacity + 1, -np.inf)
    best[0] = 0.0
    taken = np.zeros((len(chunks), capacity + 1), dtype=bool)
    for i, (s, take) in enumerate(chunks):
        size = s * take
        candidate = best[:capacity + 1 - size] + duals[s] * take
        taken[i, size:] = candidate > best[size:] + TOLERANCE
        np.maximum(best[size:], candidate, out=best[size:])
    tops = np.argsort(-best, kind="stable")[:many]
    tops = tops[best[tops] > 1 + TOLERANCE]
    return _read_back_all(chunks, taken, tops), float(best.max())


def _chunks(count: int, fit: int) -> list[int]:
    """Binary splitting of min(count, fit) copies: every number of them is a sum of chunks."""
    left, chunk, out = min(count, fit), 1, []
    while left > 0:
        out.append(min(chunk, left))
        left -= out[-1]
        chunk *= 2
    return out


def _read_back_all(chunks: list[tuple[int, int]], taken: np.ndarray, tops: np.ndarray) -> list[Pattern]:
    """The packings of the loads ``tops``, in their order: every load is
    read back at once, a chunk at a time (one load at a time in Python was
    nearly half of a pricing). A load's packing has exactly that load (the
    knapsack's states are exact loads), so no two are the same pattern."""
    loads = tops.astype(np.int64)
    sizes = np.array([s * take for s, take in chunks], dtype=np.int64)
    chosen = np.zeros((len(tops), len(chunks)), dtype=bool)
    for i in range(len(chunks) - 1, -1, -1):
        chosen[:, i] = taken[i, loads]
        loads -= chosen[:, i] * sizes[i]
    patterns: list[Pattern] = []
    for row in chosen:
        jobs: Counter = Counter()
        for i in np.flatnonzero(row).tolist():
            jobs[chunks[i][0]] += chunks[i][1]
        patterns.append(tuple(sorted(jobs.items())))
    return patterns
