"""Regression testing of the heuristics against the certified corpus.

Every heuristic of a family (default options) runs on every ``opt`` entry
of ``known_values.csv``; its schedule is validated and its exact ratio
value / certified optimum compared with the baseline
``heuristic_ratios.csv``. A schedule valid only against the heuristic's own
references (``relaxed``: a MOSP heuristic against its own local schedule)
is checked for that but has no ratio: the format's optimum is not its yardstick.
A value better than the certified optimum fails: the optimum, the
validator or the objective is wrong. The baseline is a ratchet: a ratio may improve
(``--update`` records it) but never get worse, and a schedule must never
stop validating. To accept a deliberately worse ratio, delete its baseline
rows and run ``--update`` again, which records them as new.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from schedbench import families
from schedbench.harness import analysis
from schedbench.harness.corpus import Entry, load, opt_entries, published_optimum, read_csv, read_table, write_csv
from schedbench.errors import UserInputError

HEADER = ("instance", "objective", "heuristic", "ratio")
TIME_LIMIT = 10.0  # seconds for the optima an objective needs (F_u* of max-user-stretch)

Key = tuple[str, str, str]  # instance, objective, heuristic
Baseline = dict[Key, Fraction]


def default_baseline(table_path: str | Path) -> Path:
    return Path(table_path).parent / "heuristic_ratios.csv"


@dataclass(frozen=True)
class Outcome:
    """One heuristic on one opt entry: its value and ratio, or the problem that prevents them."""

    entry: Entry
    heuristic: str
    value: Fraction | None = None
    ratio: Fraction | None = None
    problem: str = ""  # "invalid: ...", "error: ..." or "beats the certified optimum ..."

    @property
    def key(self) -> Key:
        return self.entry.instance, self.entry.objective, self.heuristic


def read_baseline(path: str | Path) -> Baseline:
    return read_csv(path, HEADER, "--baseline", "a ratio baseline", _baseline_row, "is given twice")


def _baseline_row(row: dict[str, str | None]) -> tuple[tuple[str, str, str], Fraction]:
    if row["ratio"] is None:
        raise ValueError("the row has no ratio column")
    ratio = Fraction(row["ratio"])
    if ratio < 0:
        raise ValueError(f"ratio must be >= 0 (heuristic / optimum), got {row['ratio']!r}")
    return (row["instance"], row["objective"], row["heuristic"]), ratio


def write_baseline(path: str | Path, baseline: Baseline) -> None:
    write_csv(path, HEADER, ((*key, str(baseline[key])) for key in sorted(baseline)))


def evaluate(call: Callable, name: str, instance, entries: Sequence[Entry], checked_as: str | None) -> list[Outcome]:
    """Run ``call(instance)`` once and score its schedule on each entry (objective)
    of that instance. A ``UserInputError`` means the heuristic does not apply
    to the instance (camp: one user only): no outcome. ``checked_as``: the
    heuristic name whose own references the validator uses, or None for the format's."""
    try:
        schedule = call(instance)
    except UserInputError:
        return []
    except (Exception, SystemExit) as exc:  # a crash or an exit is a regression to report, not a reason to stop
        return [Outcome(e, name, problem=f"error: {type(exc).__name__}: {exc}") for e in entries]
    return [_score(instance, schedule, entry, name, checked_as) for entry in entries]


def _score(instance, schedule, entry: Entry, name: str, checked_as: str | None) -> Outcome:
    try:
        verdict, why = families.heuristic_verdict(instance, schedule, entry.objective, checked_as)
        if verdict == "invalid":
            return Outcome(entry, name, problem=f"invalid: {why}")
        value = families.objective_value(instance, schedule, entry.objective, TIME_LIMIT)
    except Exception as exc:  # not a schedule of this instance, or an optimum (F_u*) not proven in time
        return Outcome(entry, name, problem=f"error: {type(exc).__name__}: {exc}")
    if verdict == "relaxed":
        return Outcome(entry, name, value)
    published = published_optimum(instance, entry.objective)
    if published is not None and published != entry.value:
        return Outcome(entry, name, value, problem=f"the certified optimum {entry.value} is not the file's "
                                                   f"published optimum {published}")
    if value != entry.value and families.maximized(entry.family, entry.objective) == (value > entry.value):
        return Outcome(entry, name, value, problem=f"value {value} beats the certified optimum {entry.value}")
    ratio = analysis.ratio(value, entry.value)
    if ratio is None:
        return Outcome(entry, name, value, problem=f"error: value {value} against a certified optimum of 0")
    return Outcome(entry, name, value, ratio)


def _by_instance(entries: Iterable[Entry]) -> dict[str, list[Entry]]:
    grouped: dict[str, list[Entry]] = {}
    for entry in entries:
        grouped.setdefault(entry.instance, []).append(entry)
    return grouped


def replay(table_path: str | Path, family: str | None = None,
           progress: Callable[[list], Iterable] = iter) -> tuple[list[Outcome], set[Key]]:
    """Every registered heuristic on every opt entry (of ``family``): the
    outcomes and the keys a heuristic is expected to cover."""
    grouped = _by_instance(opt_entries(read_table(table_path), family))
    outcomes: list[Outcome] = []
    expected: set[Key] = set()
    for entries in progress(list(grouped.values())):
        instance = load(table_path, entries[0])
        for name, heuristic in families.heuristics(instance.family).items():
            expected.update((e.instance, e.objective, name) for e in entries)

            def call(inst, heuristic=heuristic):
                return heuristic(inst, **families.heuristic_options(inst.family, inst, {}))

            outcomes += evaluate(call, name, instance, entries, checked_as=name)
    return outcomes, expected


def _show(ratio: Fraction) -> str:
    return f"{ratio} ({float(ratio):.4f})"


@dataclass
class Comparison:
    """Lines to print, by kind; ``regressions`` fail the run."""

    regressions: list[str] = field(default_factory=list)
    improvements: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)


def compare(outcomes: Sequence[Outcome], expected: set[Key], baseline: Baseline) -> Comparison:
    """Outcomes against the baseline. A baseline row with no outcome is a
    regression when its heuristic and entry still exist (it stopped running),
    stale otherwise."""
    found = Comparison()
    for o in outcomes:
        where = " ".join(o.key)
        stored = baseline.get(o.key)
        if o.problem:
            found.regressions.append(f"{where}: {o.problem}")
        elif o.ratio is None:
            continue   # relaxed: checked against its own references, no ratio to compare
        elif stored is None:
            found.new.append(f"{where}: {_show(o.ratio)}")
        elif o.ratio != stored:
            worse = (o.ratio < stored) if families.maximized(o.entry.family, o.entry.objective) else (o.ratio > stored)
            line = f"{where}: {_show(o.ratio)}, baseline {_show(stored)}"
            (found.regressions if worse else found.improvements).append(line)
    covered = {o.key for o in outcomes}
    compared = {o.key for o in outcomes if o.ratio is not None or o.problem}
    for key in sorted(set(baseline) - compared):
        line = f"{' '.join(key)}: baseline {_show(baseline[key])}"
        if key in expected and key not in covered:
            found.regressions.append(f"{line}, but the heuristic no longer applies")
        else:
            found.stale.append(line)
    return found


def split(baseline: Baseline, table_path: str | Path, family: str | None) -> tuple[Baseline, Baseline]:
    """The rows of ``family`` (all rows when None) and the others, which a
    run restricted to ``family`` neither checks nor rewrites."""
    if family is None:
        return baseline, {}
    families_of = {e.instance: e.family for e in read_table(table_path).values()}
    inside = {k: v for k, v in baseline.items() if families_of.get(k[0], k[0].split("/")[0]) == family}
    return inside, {k: v for k, v in baseline.items() if k not in inside}


def updated(baseline: Baseline, outcomes: Sequence[Outcome], expected: set[Key]) -> Baseline:
    """The ratchet's next position: new and improved ratios recorded, stale rows
    dropped (a relaxed schedule has no ratio); worse or missing ratios keep
    their stored value, so they still fail."""
    covered = {o.key for o in outcomes}
    compared = {o.key for o in outcomes if o.ratio is not None or o.problem}
    out = {k: v for k, v in baseline.items() if k in compared or (k in expected and k not in covered)}
    for o in outcomes:
        if o.ratio is None:
            continue
        stored = out.get(o.key)
        if stored is None:
            out[o.key] = o.ratio
        elif families.maximized(o.entry.family, o.entry.objective):
            out[o.key] = max(stored, o.ratio)
        else:
            out[o.key] = min(stored, o.ratio)
    return out


def user_outcomes(function: Callable, family: str, table_path: str | Path,
                  progress: Callable[[list], Iterable] = iter) -> list[Outcome]:
    """The user's ``function(instance) -> schedule`` on the family's opt entries,
    validated against the format's rules."""
    entries = opt_entries(read_table(table_path), family)
    if not entries:
        raise UserInputError("--family", f"the corpus has no certified optimum of family {family}")
    name = getattr(function, "__name__", "heuristic")
    outcomes = []
    for group in progress(list(_by_instance(entries).values())):
        outcomes += evaluate(function, name, load(table_path, group[0]), group, checked_as=None)
    return outcomes


def ratio_summary(outcomes: Sequence[Outcome]) -> list[tuple[str, str, str, analysis.Summary]]:
    """(family, objective, heuristic, statistics of the ratios) over the outcomes
    that have a ratio; worst is the largest ratio, the smallest when maximising."""
    groups: dict[tuple[str, str, str], list[Fraction]] = {}
    for o in outcomes:
        if o.ratio is not None:
            groups.setdefault((o.entry.family, o.entry.objective, o.heuristic), []).append(o.ratio)
    return [(family, objective, heuristic, analysis.summarize(ratios, families.maximized(family, objective)))
            for (family, objective, heuristic), ratios in sorted(groups.items())]
