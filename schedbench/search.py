"""Adversarial search over instances: find the one that maximises a score.

The search works on an instance's JSON, so it needs nothing from a
family but its parser, its ``size`` and a start: a move changes one integer
(a length, a release or think time, a count of machines, a successor), or
drops, duplicates or swaps an element of one list (a job, a campaign, a
user, an organization, a task, an edge). A move the family's parser refuses
(a cycle, an index out of range, a zero length) or that leaves the limits
is not evaluated. The score is a function of the parsed instance returning
a ratio, or None where it cannot say (an optimum not proven): such an
instance is skipped, never guessed.

Strategies: ``random`` (independent starts only: the baseline),
``climb`` (hill climbing with restarts) and ``anneal`` (simulated
annealing with restarts, on the logarithm of the ratio). Chains restart
on the Luby sequence; a chain starts a few moves away from the best
instance so far (iterated local search) or at the best of a batch of
fresh starts, in proportion to how well moves and fresh starts have paid
so far for what they cost (``_Yield``). A score of
``math.inf`` (an unbounded ratio) ends the search. A run given a number
of evaluations is deterministic for its seed; under a time budget alone
the shares follow the seconds each source has cost, so that a second of
search finds as much as it can, and a run is not repeatable move for move.
"""

import copy
import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from schedbench.claims import shrink
from schedbench.errors import InstanceError, UserInputError
from schedbench.model import parse_instance
from schedbench.model.fields import Size

#: Keys a move never touches: the document's identity.
FIXED_KEYS = frozenset({"family", "format_version", "name", "meta"})
STRATEGIES = ("anneal", "climb", "random")
#: Moves without improvement before a chain restarts (from a new start or near
#: the best), counted in mean evaluations' cost under a time budget:
#: PATIENCE times the restart's term of the Luby sequence (1, 1, 2,
#: 1, 1, 2, 4, ...), so that whatever an evaluation costs, most chains are
#: short (as many starts as random sampling) and a few are long (as deep as
#: a fixed long patience), within a factor of log of the best fixed one.
PATIENCE = 25
#: The largest batch of fresh starts before a chain, in units of its patience.
MAX_BATCH = 16
#: The prior of a source's rate of new bests: one new best in this many evaluations.
PRIOR_TRIES = 25
#: Random moves between the best instance and a restart near it.
KICK_MOVES = 3
#: Annealing: the first temperature (on log ratio: a move 0.5% worse is taken with probability 1/e)
#: and its factor per move.
TEMPERATURE, COOLING = 0.005, 0.99


@dataclass(frozen=True)
class Limits:
    """The instances a search may visit."""
    machines: tuple[int, int] | None = None  # (low, high) of size().machines; None: any
    max_jobs: int = 12
    max_value: int = 20                      # the largest integer a move writes

    def admit(self, size: Size) -> bool:
        if size.jobs < 1 or size.jobs > self.max_jobs:
            return False
        return self.machines is None or self.machines[0] <= size.machines <= self.machines[1]


@dataclass(frozen=True)
class Scored:
    ratio: Fraction | float   # exact; math.inf only for an unbounded ratio
    numbers: dict = field(default_factory=dict)
    tiebreak: Fraction = Fraction(0)  # compared only between equal ratios (``Check.tiebreak``)

    def beats(self, other: "Scored | None") -> bool:
        return other is None or (self.ratio, self.tiebreak) > (other.ratio, other.tiebreak)

    def gain(self, other: "Scored") -> float:
        """The log of the ratios' quotient, the annealing's measure of a move;
        between equal ratios, the log of the quotient of 1 + the tie-breaks,
        so that a chain on a plateau still climbs."""
        if self.ratio == other.ratio:
            return math.log((1 + self.tiebreak) / (1 + other.tiebreak)) if self.tiebreak != other.tiebreak else 0.0
        return math.log(self.ratio / other.ratio) if other.ratio > 0 < self.ratio else 0.0


@dataclass
class Found:
    """A search's answer: the best instance (shrunk), its score, and how it went."""
    data: dict | None
    scored: Scored | None
    evaluated: int = 0          # instances whose score was proven
    skipped: int = 0            # instances the score could not judge (an optimum not proven)
    trajectory: list[tuple[int, float, Fraction | float]] = field(default_factory=list)  # (evaluation, seconds, ratio) per new best
    unshrunk: dict | None = None


Score = Callable[[Any], Scored | None]
Start = Callable[[random.Random, Limits], dict]


def digest(data: dict) -> str:
    """The instance's identity: its JSON without name and meta."""
    body = {k: v for k, v in data.items() if k not in ("name", "meta")}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _slots(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, value) below ``data`` that a move may change: integers and lists."""
    if isinstance(data, dict):
        for key, value in data.items():
            if not path and key in FIXED_KEYS:
                continue
            yield from _slots(value, path + (key,))
    elif isinstance(data, list):
        yield path, data
        for index, value in enumerate(data):
            yield from _slots(value, path + (index,))
    elif isinstance(data, int) and not isinstance(data, bool):
        yield path, data


def _get(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: tuple, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def mutate(data: dict, rng: random.Random, limits: Limits) -> dict:
    """One random move (see the module's docstring) on a copy of ``data``."""
    out = copy.deepcopy(data)
    slots = list(_slots(out))
    numbers = [(p, v) for p, v in slots if not isinstance(v, list)]
    lists = [(p, v) for p, v in slots if isinstance(v, list) and v]
    move = rng.choice(("nudge", "nudge", "redraw", "copy", "drop", "clone", "swap"))
    if move in ("nudge", "redraw", "copy") and numbers:
        path, value = rng.choice(numbers)
        cap = max(value, limits.max_value)  # a value already above the cap (a capacity, a deadline) is kept
        if move == "nudge":
            value += rng.choice((-2, -1, 1, 2))
        elif move == "redraw":
            value = rng.randint(0, limits.max_value)
        else:
            value = rng.choice(numbers)[1]
        _set(out, path, max(0, min(value, cap)))
    elif lists:
        path, items = rng.choice(lists)
        i = rng.randrange(len(items))
        if move == "drop" and len(items) > 1:
            del items[i]
        elif move == "clone":
            items.insert(rng.randrange(len(items) + 1), copy.deepcopy(items[i]))
        else:
            j = rng.randrange(len(items))
            items[i], items[j] = items[j], items[i]
    return _fresh(out)


@dataclass
class _Yield:
    """How often one source of instances (fresh starts, or moves) gave a new
    best for what it cost: the search gives fresh starts a larger share where
    they find more, moves where they do (the ratios of some families are
    heavy-tailed over random instances and flat under small moves): the
    share of chains that start near the best, and the size of the batch of
    fresh starts before the others. The cost is an evaluation's seconds
    under a time budget (moves may lead to instances far slower to solve
    than fresh starts), one per proven instance under a count of them."""
    won: int = 0
    spent: float = 0.0

    def rate(self, unit: float) -> float:
        """New bests per unit of cost, from a prior of one in PRIOR_TRIES evaluations of ``unit`` each."""
        return (self.won + 1) / (self.spent + PRIOR_TRIES * unit)


def luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence: the restart lengths that
    are optimal, up to a log factor, without knowing the best one (Luby,
    Sinclair and Zuckerman 1993)."""
    k = i.bit_length()
    if i == (1 << k) - 1:
        return 1 << (k - 1)
    return luby(i - (1 << (k - 1)) + 1)


def _ladder(top: int) -> list[int]:
    """The value scales a restart draws from: ``top``, its half and its
    quarter. Most ratios do not change when every value is scaled, and a
    small scale is a much smaller space to search (LPT's worst case on 5
    machines is found in seconds with values up to 10, rarely in a minute
    with values up to 20)."""
    return sorted({top, max(min(top, 2), top // 2), max(min(top, 2), top // 4)}, reverse=True)


def _kick(data: dict, rng: random.Random, limits: Limits) -> dict:
    """A restart near the best instance so far: a few random moves away from
    it (iterated local search), to refine the best region."""
    for _ in range(KICK_MOVES):
        data = mutate(data, rng, limits)
    return data


def _fresh(data: dict) -> dict:
    """A changed instance keeps no name or meta: what made the start did not make it."""
    data.pop("name", None)
    data.pop("meta", None)
    return data


def smaller(data: dict) -> Iterator[dict]:
    """The shrinking steps, largest first: halve every integer of one list
    (lengths scaled down keep most ratios), drop one element of a list,
    lower one integer by one."""
    slots = list(_slots(data))
    for path, value in slots:
        if isinstance(value, list) and any(isinstance(v, int) and not isinstance(v, bool) and v > 1 for v in value):
            out = copy.deepcopy(data)
            _set(out, path, [v // 2 if isinstance(v, int) and not isinstance(v, bool) else v for v in value])
            yield _fresh(out)
    for path, value in slots:
        if isinstance(value, list) and len(value) > 1:
            for i in range(len(value)):
                out = copy.deepcopy(data)
                del _get(out, path)[i]
                yield _fresh(out)
    for path, value in slots:
        if not isinstance(value, list) and value > 0:
            out = copy.deepcopy(data)
            _set(out, path, value - 1)
            yield _fresh(out)


class Evaluator:
    """The score of each instance JSON within the limits, cached by digest;
    counts what it proved and what it skipped."""

    def __init__(self, score: Score, limits: Limits, size: Callable[[Any], Size]):
        self.score, self.limits, self.size = score, limits, size
        self.cache: dict[str, Scored | None] = {}
        self.evaluated = self.skipped = 0
        self.proved_now = False  # whether the last call proved a score (not from the cache)
        self.cached = False      # whether the last call was answered from the cache

    def __call__(self, data: dict) -> Scored | None:
        key = digest(data)
        self.proved_now = False
        self.cached = key in self.cache
        if not self.cached:
            self.cache[key] = self._score(data)
            self.proved_now = self.cache[key] is not None
        return self.cache[key]

    def _score(self, data: dict) -> Scored | None:
        try:
            instance = parse_instance(data)
        except (InstanceError, UserInputError):
            return None
        if not self.limits.admit(self.size(instance)):
            return None
        scored = self.score(instance)
        if scored is None:
            self.skipped += 1
        else:
            self.evaluated += 1
        return scored


def search(start: Start, score: Score, size: Callable[[Any], Size], limits: Limits, seed: int = 0,
           strategy: str = "anneal", evaluations: int | None = None, budget: float | None = None,
           shrink_result: bool = True, stop_at: Fraction | None = None) -> Found:
    """Maximise ``score`` over instances within ``limits``, from starts drawn
    by ``start(rng, limits)`` (each restart at one scale of values, see ``_ladder``), until ``evaluations`` proven scores or ``budget`` seconds
    (whichever comes first, or a ratio of ``stop_at``: a bound known to be
    tight, when calibrating); the best instance is then shrunk to a smallest
    one with a ratio at least as large. With a budget, the search takes
    three quarters of it and the shrinking the rest (stopping there with the
    smallest instance reached)."""
    if strategy not in STRATEGIES:
        raise UserInputError("--strategy", f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    if evaluations is None and budget is None:
        raise UserInputError("--budget", "a search needs a time budget or a number of evaluations")
    rng = random.Random(seed)
    evaluate = Evaluator(score, limits, size)
    began = time.monotonic()
    end = math.inf if budget is None else began + budget
    deadline = math.inf if budget is None else began + (0.75 if shrink_result else 1.0) * budget
    run = _Search(start, evaluate, limits, rng, strategy, evaluations, stop_at, began, deadline)
    run.explore()
    found = run.found
    found.evaluated, found.skipped = evaluate.evaluated, evaluate.skipped
    if found.data is not None and shrink_result:
        found.unshrunk = found.data
        best = found.scored.ratio
        found.data = shrink(found.data, lambda d: time.monotonic() < end and (s := evaluate(d)) is not None
                            and s.ratio >= best, smaller, max_steps=1000)
        found.scored = evaluate(found.data)
    return found


class _Search:
    """The state of one ``search`` before the shrinking: the best instance so
    far, the steps and restarts taken, and what fresh starts and moves have
    cost and paid (``_Yield``)."""

    def __init__(self, start: Start, evaluate: Evaluator, limits: Limits, rng: random.Random, strategy: str,
                 evaluations: int | None, stop_at: Fraction | None, began: float, deadline: float) -> None:
        self.start, self.evaluate, self.limits, self.rng, self.strategy = start, evaluate, limits, rng, strategy
        self.evaluations, self.stop_at, self.began, self.deadline = evaluations, stop_at, began, deadline
        self.found = Found(None, None)
        self.steps = self.restarts = 0
        self.sampling, self.moving = _Yield(), _Yield()
        self.timed = evaluations is None   # costs in seconds; else in proven instances, so that a run is repeatable

    def more(self) -> bool:
        """Whether the search goes on: no time, evaluations or steps left,
        a ratio of ``stop_at`` or an unbounded one (nothing is worse) end it."""
        scored = self.found.scored
        unbounded = scored is not None and scored.ratio == math.inf
        if self.stop_at is not None and scored is not None and scored.ratio >= self.stop_at:
            return False
        return time.monotonic() < self.deadline \
            and (self.evaluations is None or self.evaluate.evaluated < self.evaluations) \
            and self.steps < 50 * (self.evaluations or math.inf) + 1000 and not unbounded

    def unit(self) -> float:
        """The mean cost of a proven instance so far (of a try, before any is
        proven): moves that leave what the score judges cost next to nothing
        and do not make the unit smaller."""
        tries = self.evaluate.evaluated or self.evaluate.skipped
        return max((self.sampling.spent + self.moving.spent) / tries, 1e-9) if self.timed and tries else 1.0

    def fresh(self, scale: Limits) -> dict:
        """A fresh start, the time it took charged to sampling (a claim's start may walk many moves)."""
        began_at = time.perf_counter()
        data = self.start(self.rng, scale)
        if self.timed:
            self.sampling.spent += time.perf_counter() - began_at
        return data

    def judge(self, data: dict, source: _Yield) -> tuple[Scored | None, float]:
        """The score of ``data`` (kept if best), its cost charged to
        ``source`` (its seconds, or one try when newly proven: an instance
        met again is no new try, nor a new best), and what the move costs a
        chain's patience: its seconds, a mean evaluation's when met again
        (a chain circling known instances gives up as it did when moves
        were counted), or one move."""
        evaluate, found = self.evaluate, self.found
        began_at = time.perf_counter()
        scored = evaluate(data)
        seconds = time.perf_counter() - began_at
        source.spent += seconds if self.timed else evaluate.proved_now
        cost = (self.unit() if evaluate.cached else seconds) if self.timed else 1.0
        if scored is not None and scored.beats(found.scored):
            found.data, found.scored = data, scored
            found.trajectory.append((evaluate.evaluated, round(time.monotonic() - self.began, 3), scored.ratio))
            source.won += 1
        return scored, cost

    def explore(self) -> None:
        """Fresh starts only (``random``), or chains from restarts until ``more`` says no."""
        while self.more():
            scale = replace(self.limits, max_value=self.rng.choice(_ladder(self.limits.max_value)))
            if self.strategy == "random":
                self.judge(self.fresh(scale), self.sampling)
                self.steps += 1
                continue
            self.restarts += 1
            patience = PATIENCE * luby(self.restarts)
            current, current_score = self.chain_start(scale, patience)
            if current_score is not None:
                self.walk(current, current_score, scale, patience)

    def chain_start(self, scale: Limits, patience: int) -> tuple[dict | None, Scored | None]:
        """Where a chain starts, and its score (None when no start was
        judged): a kick from the best so far, or the best of a batch of
        fresh starts, drawn by how well each has paid."""
        moves, samples = self.moving.rate(self.unit()), self.sampling.rate(self.unit())
        if self.found.data is not None and self.rng.random() < moves / (moves + samples):
            starts, source = [_kick(self.found.data, self.rng, scale)], self.moving
        else:  # the best of a batch of fresh starts, larger where sampling has found more than moving
            batch = max(1, min(round(patience * samples / moves), MAX_BATCH * patience))
            starts, source = (self.fresh(scale) for _ in range(batch)), self.sampling
        current, current_score = None, None
        for candidate in starts:
            if not self.more():
                break
            scored, _ = self.judge(candidate, source)
            self.steps += 1
            if scored is not None and scored.beats(current_score):
                current, current_score = candidate, scored
        return current, current_score

    def walk(self, current: dict, current_score: Scored, scale: Limits, patience: int) -> None:
        """One chain of moves, by hill climbing or annealing; it gives up
        after costing ``patience`` evaluations' worth without a gain."""
        stale, temperature, patience_cost = 0.0, TEMPERATURE, patience * self.unit()
        while self.more() and stale < patience_cost:
            candidate = mutate(current, self.rng, scale)
            scored, cost = self.judge(candidate, self.moving)
            self.steps += 1
            if scored is None:
                stale += cost
                continue
            gain = scored.gain(current_score)
            if gain > 0:
                stale = 0.0
            else:
                stale += cost
            if gain >= 0 or (self.strategy == "anneal" and self.rng.random() < math.exp(gain / temperature)):
                current, current_score = candidate, scored
            temperature = max(temperature * COOLING, 1e-4)
