"""Checks of the papers' claims against exact optima, and their ledger.

A claim is one function over a *case* (an instance with lazily computed
schedules and optima) returning a ``Check``: holds or violated, with the
numbers. ``ratio`` is observed / claimed bound, so a claim holds iff
ratio <= 1 and the worst ratio seen says how close a claim came to
breaking. Violations are shrunk to a smallest instance that still
violates and saved as instance files that reproduce them.

Each claim says whose it is: ``PAPER`` for a statement a paper makes (a
violation refutes the paper), ``PROJECT`` for a check this project adds
(the paper's statement outside its own setting, a variant of a heuristic,
a sanity check of simulator against solver): a violation there says
something about the extension, not about the paper.
"""

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from schedbench.errors import NotProven

PAPER, PROJECT = "paper", "project"
SOURCES = (PAPER, PROJECT)


@dataclass(frozen=True)
class Check:
    holds: bool
    ratio: Fraction | None  # observed / bound; None for a yes-or-no claim
    numbers: dict = field(default_factory=dict)
    #: For the search only, between instances of equal ratio: how near the
    #: instance comes to breaking the claim where the ratio cannot tell (a
    #: claim whose ratio sits at its bound on most instances, a plateau).
    tiebreak: Fraction = Fraction(0)


@dataclass(frozen=True)
class Claim:
    key: str                               # e.g. "faircamp.thm1"
    statement: str                         # the claim in one line, with its source
    applies: Callable[[object], bool]      # does the claim's setting cover this instance?
    check: Callable[[object], Check]       # evaluate on a case
    source: str                            # PAPER or PROJECT

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"claim {self.key}: source must be one of {SOURCES}, got {self.source!r}")


@dataclass
class Tally:
    claim: Claim
    tried: int = 0
    skipped: int = 0
    violations: int = 0
    counterexamples: list[str] = field(default_factory=list)
    ratios: list[Fraction] = field(default_factory=list)  # every ratio seen, for distributions

    @property
    def worst(self) -> Fraction | None:
        """The largest observed / bound: how close the claim came to breaking."""
        return max(self.ratios, default=None)

    def add(self, check: Check) -> None:
        self.tried += 1
        self.violations += not check.holds
        if check.ratio is not None:
            self.ratios.append(check.ratio)


def generated_by(name: str) -> Callable[[object], bool]:
    """Does an instance come from generator ``name`` (its ``meta.generator``)?"""
    return lambda inst: inst.meta.get("generator") == name


def drawn_or_moved(name: str) -> Callable[[object], bool]:
    """Drawn by generator ``name``, or with no generator's name and no
    construction's: an instance the adversarial search moved (a move drops
    the meta). The cover of claims about a generator's random instances."""
    return lambda inst: inst.meta.get("generator", name) == name and not inst.meta.get("construction")


def shrink(instance, still_violates: Callable[[object], bool], smaller: Callable[[object], Iterable[object]],
           max_steps: int = 200):
    """Greedy shrinking: take the first smaller instance that still violates,
    until none does (a local minimum: no single reduction keeps the violation)."""
    for _ in range(max_steps):
        for candidate in smaller(instance):
            if still_violates(candidate):
                instance = candidate
                break
        else:
            return instance
    return instance


def save_counterexample(directory: Path, claim: Claim, instance, check: Check, to_json) -> Path:
    """Write the instance (named by the claim and a hash of its content, so
    the same shrunk instance is saved once) with the claim and numbers in meta."""
    directory.mkdir(parents=True, exist_ok=True)
    data = to_json(instance)
    kept = {k: v for k, v in data.pop("meta", {}).items() if k in ("construction", "generator", "long")}
    data.pop("name", None)
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:10]
    data["name"] = f"{claim.key}-{digest}"
    data["meta"] = {**kept, "counterexample_of": claim.key, "statement": claim.statement,
                    "numbers": {k: (str(v) if isinstance(v, Fraction) else v) for k, v in check.numbers.items()}}
    path = directory / f"{data['name']}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def run_ledger(claims: list[Claim], instances: Iterable, make_case: Callable, smaller: Callable,
               to_json: Callable, out_dir: Path | None = None, progress: Callable | None = None) -> list[Tally]:
    """Check every claim that applies to each instance (``make_case`` wraps it
    with its lazily computed optima); shrink and save each violation."""
    tallies = {claim.key: Tally(claim) for claim in claims}

    def violates(claim: Claim, instance) -> bool:
        if not claim.applies(instance):
            return False
        try:
            return not claim.check(make_case(instance)).holds
        except NotProven:
            return False

    for instance in instances:
        case = make_case(instance)
        for claim in claims:
            if not claim.applies(instance):
                continue
            tally = tallies[claim.key]
            try:
                check = claim.check(case)
            except NotProven:
                tally.skipped += 1
                continue
            tally.add(check)
            if not check.holds and out_dir is not None:
                record_violation(tally, instance, check, lambda c, claim=claim: violates(claim, c), smaller,
                                 make_case, to_json, out_dir)
        if progress is not None:
            progress()
    return list(tallies.values())


def record_violation(tally: Tally, instance, check: Check, violates: Callable[[object], bool],
                     smaller: Callable, make_case: Callable, to_json: Callable, out_dir: Path) -> None:
    """Shrink a violating instance and save it as the claim's counterexample
    (once per distinct shrunk instance)."""
    claim = tally.claim
    small = shrink(instance, violates, smaller)
    try:
        small_check = claim.check(make_case(small)) if small is not instance else check
    except NotProven:  # proven a moment ago inside shrink; a slower rerun keeps the original
        small, small_check = instance, check
    path = save_counterexample(out_dir, claim, small, small_check, to_json)
    if str(path) not in tally.counterexamples:
        tally.counterexamples.append(str(path))


SECTION_TITLES = {PAPER: "The papers' claims", PROJECT: "This project's checks (beyond the papers' statements)"}


def table(tallies: Iterable[Tally]) -> str:
    """The ledger as Markdown: the papers' claims, then the project's own checks."""
    tallies = list(tallies)
    parts = []
    for source in SOURCES:
        rows = ["| claim | statement | tried | skipped | violations | worst observed/bound |",
                "|---|---|---:|---:|---:|---:|"]
        for t in tallies:
            if t.claim.source == source:
                worst = "-" if t.worst is None else f"{float(t.worst):.4f}"
                rows.append(f"| {t.claim.key} | {t.claim.statement} | {t.tried} | {t.skipped} | {t.violations} "
                            f"| {worst} |")
        if len(rows) > 2:
            parts.append(f"{SECTION_TITLES[source]}:\n\n" + "\n".join(rows))
    return "\n\n".join(parts)
