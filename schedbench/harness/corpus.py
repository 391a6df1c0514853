"""The certified corpus: instance files under ``instances/corpus/<family>/``
and ``known_values.csv``, a MIPLIB-style table of what is proven about each
(instance, objective).

A status is earned, never assumed:

- ``opt``: both backends (CP-SAT and MILP) prove the same optimum, or one
  proves it and it equals the family's cheap bound (``solvers`` says which:
  ``cpsat+milp``, ``cpsat+lower-bound``);
- ``best``: the value of a validated schedule, not certified optimal;
  ``bound`` is the tightest proven bound (when one backend alone proves the
  optimum, value equals bound but the status stays ``best``);
- ``bestdual``: only a bound is known;
- ``infeasible``: both backends prove there is no solution.

Every schedule a backend returns is validated and its value recomputed
before it counts. Proofs that contradict each other (two optima, a value
beyond a proven bound, a schedule of a proven-infeasible instance) are a
bug somewhere: the entry is refused, never written. A new result never
downgrades an entry: ``opt`` and ``infeasible`` stay, ``best`` only
improves its value and bound.
"""

import csv
import math
import os
import shutil
from contextlib import nullcontext
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import schedbench.instances
import schedbench.solvers
from schedbench import families
from schedbench.harness.cells import instance_hash
from schedbench.harness.runner import dask_client, map_unordered
from schedbench.errors import ModelTooLarge, NotProven, UserInputError, unknown_key
from schedbench.model import load_instance
from schedbench.model.options import exact
from schedbench.result import INFEASIBLE, OPTIMAL

OPT, BEST, BESTDUAL, INFEASIBLE_STATUS = "opt", "best", "bestdual", "infeasible"
STATUSES = (OPT, BEST, BESTDUAL, INFEASIBLE_STATUS)
SETTLED = (OPT, INFEASIBLE_STATUS)  # statuses that no new result can change
OPEN_AFTER = 600.0  # seconds per backend without a proof that make an unsettled entry an open instance
BACKENDS = families.model_backends()
CHEAP_BOUND = "lower-bound"  # the source name of families.lower_bound (an upper bound when maximised)
PUBLISHED = "published"  # the source name of an optimum the instance's own source publishes (checked, never a proof)
HEADER = ("instance", "family", "objective", "status", "value", "bound", "solvers", "time_limit", "instance_hash")


def corpus_dir() -> Path:
    """The shipped corpus: ``corpus/`` beside the ``schedbench.instances`` package."""
    return Path(schedbench.instances.__file__).parent / "corpus"


def default_table() -> Path:
    return corpus_dir() / "known_values.csv"


@dataclass(frozen=True)
class Entry:
    """One row of the table; ``instance`` is the file's path relative to the
    table's folder, ``instance_hash`` the sha256 of the instance it certifies
    (the store's instance hash): a file edited since is not that instance.
    ``time_limit``: per backend, of the run that settled the entry, or of
    the longest run that did not (an unsettled entry with a gap, tried at
    ``OPEN_AFTER`` seconds or more, is an open instance). It is the limit
    the backends were given: one that gives up sooner without a proof (a
    model past its size cap) counts as having tried."""

    instance: str
    family: str
    objective: str
    status: str
    value: Fraction | None
    bound: Fraction | None
    solvers: str
    time_limit: float
    instance_hash: str = ""   # always set in a table; an entry made in memory may leave it out

    @property
    def key(self) -> tuple[str, str]:
        return self.instance, self.objective


Table = dict[tuple[str, str], Entry]


class Disagreement(Exception):
    """Proofs about one (instance, objective) contradict each other."""


def _exact(text: str) -> Fraction | None:
    return Fraction(text) if text else None


def _text(value: Fraction | None) -> str:
    return "" if value is None else str(value)


def read_csv(path: str | Path, header: tuple[str, ...], option: str, what: str,
             convert: Callable[[dict[str, str]], tuple[tuple[str, ...], Any]], twice: str) -> dict:
    """{key: value} of ``convert(row) = (key, value)`` over a CSV file with
    exactly ``header`` (empty if the file does not exist yet); a row it cannot
    read, or a key given again (``twice`` says how), is one error naming its
    line, never overwritten."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            found = tuple(reader.fieldnames or ())
            stray = next((name for name in found if name not in header), None)
            if stray is not None:  # a misspelled column would leave its values unread
                raise UserInputError(option, f"{path}: column {unknown_key(UserInputError, '', stray, header, 'column')}")
            if found != header:
                raise UserInputError(option, f"{path} is not {what} (header {','.join(header)})")
            out = {}
            for row in reader:
                if None in row:  # DictReader's key for the fields past the header's
                    raise UserInputError(option, f"{path} line {reader.line_num}: more fields than the header's")
                try:
                    key, value = convert(row)
                except (ValueError, ZeroDivisionError, TypeError) as exc:
                    raise UserInputError(option, f"{path} line {reader.line_num}: {exc}") from None
                if key in out:
                    raise UserInputError(option, f"{path} line {reader.line_num}: {' '.join(key)} {twice}")
                out[key] = value
            return out
    except UnicodeDecodeError:
        raise UserInputError(option, f"{path} is not {what}: not UTF-8 text") from None


def _entry(row: dict[str, str]) -> Entry:
    """One row, refused where it cannot be a certificate (a table edited by hand)."""
    if row["family"] not in families.names():
        raise ValueError(f"family must be one of {', '.join(families.names())}, got {row['family']!r}")
    if row["objective"] not in families.objectives(row["family"]):
        raise ValueError(f"objective {row['objective']!r} is not one of {row['family']}: "
                         f"{', '.join(families.objectives(row['family']))}")
    if row["status"] not in STATUSES:
        raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {row['status']!r}")
    if len(row["instance_hash"]) != 64:
        raise ValueError(f"instance_hash must be a sha256 (64 hex digits), got {row['instance_hash']!r}")
    entry = Entry(row["instance"], row["family"], row["objective"], row["status"], _exact(row["value"]),
                  _exact(row["bound"]), row["solvers"], float(row["time_limit"]), row["instance_hash"])
    if not (math.isfinite(entry.time_limit) and entry.time_limit > 0):
        raise ValueError(f"time_limit must be a finite number of seconds > 0, got {row['time_limit']!r}")
    if entry.status == OPT and (entry.value is None or entry.value != entry.bound):
        raise ValueError(f"an opt entry's value and bound are the optimum, got {row['value']!r} and {row['bound']!r}")
    return entry


def read_table(path: str | Path) -> Table:
    """The table at ``path`` (empty if the file does not exist yet)."""
    return read_csv(path, HEADER, "--table", "a known-values table", lambda row: _keyed(_entry(row)),
                    "is certified twice")


def _keyed(entry: Entry) -> tuple[tuple[str, str], Entry]:
    return entry.key, entry


def write_csv(path: str | Path, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Written beside ``path`` and renamed over it: a crash never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    os.replace(partial, path)


def write_table(path: str | Path, table: Table) -> None:
    write_csv(path, HEADER, ((e.instance, e.family, e.objective, e.status, _text(e.value), _text(e.bound),
                              e.solvers, f"{e.time_limit:g}", e.instance_hash)
                             for e in sorted(table.values(), key=lambda e: e.key)))


def load(table_path: str | Path, entry: Entry):
    """The instance of ``entry``, read from beside its table; refused when the
    file no longer holds the instance that was certified."""
    instance = load_instance(Path(table_path).parent / entry.instance)
    if instance_hash(instance) != entry.instance_hash:
        raise UserInputError("--table", f"{entry.instance} is not the instance its {entry.objective} entry "
                                        f"certifies (the file changed since): certify it again")
    return instance


@dataclass(frozen=True)
class Evidence:
    """What one source establishes: a validated value, a proven bound, a proof."""

    source: str
    value: Fraction | None = None
    bound: Fraction | None = None
    optimal: bool = False
    infeasible: bool = False


def backend_evidence(instance, objective: str, solver: str, time_limit: float) -> Evidence:
    """Solve with one backend; its schedule must validate and be worth what it says."""
    result = schedbench.solvers.solve(instance, objective, solver, time_limit)  # looked up per call: tests patch it
    if result.status == INFEASIBLE:
        return Evidence(solver, infeasible=True)
    value = None
    if result.schedule is not None:
        broken = families.violations(instance, result.schedule, objective)
        if broken:
            raise Disagreement(f"{solver} returned an invalid schedule: {broken[0]}")
        try:
            value = families.objective_value(instance, result.schedule, objective, time_limit)
        except NotProven:  # the value needs optima (F_u*) not proven in time: the schedule cannot count
            value = None
        if value is not None and result.objective is not None and value != result.objective:
            raise Disagreement(f"{solver} reports {result.objective}, its schedule is worth {value}")
    optimal = value is not None and (result.status == OPTIMAL or result.bound == value)
    return Evidence(solver, value, result.bound, optimal)


def _unless_refused(instance, objective: str, solver: str, time_limit: float) -> Evidence | None:
    """``backend_evidence``, or None where the backend refuses the model as
    too large: the pair then rests on the other backend alone (``opt`` only
    if its proof meets the cheap bound)."""
    try:
        return backend_evidence(instance, objective, solver, time_limit)
    except ModelTooLarge:
        return None


def _entry_evidence(entry: Entry) -> Evidence:
    return Evidence(entry.solvers, entry.value, entry.bound, entry.status == OPT,
                    entry.status == INFEASIBLE_STATUS)


def _best(values: Iterable[Fraction], maximize: bool) -> Fraction:
    return max(values) if maximize else min(values)


def _tightest(bounds: Iterable[Fraction], maximize: bool) -> Fraction:
    return min(bounds) if maximize else max(bounds)


def check_consistent(evidence: Sequence[Evidence], maximize: bool) -> None:
    """Raise ``Disagreement`` when the sources contradict each other."""
    optima = {e.source: e.value for e in evidence if e.optimal}
    if len(set(optima.values())) > 1:
        raise Disagreement("different optima proven: " + ", ".join(f"{s} {v}" for s, v in optima.items()))
    found = [e for e in evidence if e.value is not None]
    refuted = [e for e in evidence if e.infeasible]
    if found and refuted:
        raise Disagreement(f"{refuted[0].source} proves infeasibility, {found[0].source} has a schedule")
    for b in (e for e in evidence if e.bound is not None and not e.infeasible):
        for v in found:
            if (v.value > b.bound) if maximize else (v.value < b.bound):
                raise Disagreement(f"{v.source} finds {v.value} beyond {b.source}'s proven bound {b.bound}")


def _joined(sources: Iterable[str]) -> str:
    names = []
    for source in sources:
        names += [n for n in source.split("+") if n not in names]
    return "+".join(names)


def verdict(evidence: Sequence[Evidence], maximize: bool) -> tuple[str, Fraction | None, Fraction | None, str] | None:
    """(status, value, bound, solvers) from consistent evidence, or None when nothing is known.

    Only fresh backend proofs certify ``opt``: two of them, or one equal to the cheap bound."""
    provers = [e for e in evidence if e.optimal and e.source in BACKENDS]
    if len(provers) >= 2:
        return OPT, provers[0].value, provers[0].value, _joined(e.source for e in provers)
    cheap = [e for e in evidence if e.source == CHEAP_BOUND and e.bound is not None]
    if provers and cheap and cheap[0].bound == provers[0].value:
        return OPT, provers[0].value, provers[0].value, _joined((provers[0].source, CHEAP_BOUND))
    refuted = [e for e in evidence if e.infeasible and e.source in BACKENDS]
    if len(refuted) >= 2:
        return INFEASIBLE_STATUS, None, None, _joined(e.source for e in refuted)
    bounds = [e for e in evidence if e.bound is not None and not e.infeasible]
    bound = _tightest((e.bound for e in bounds), maximize) if bounds else None
    found = [e for e in evidence if e.value is not None]
    if found:
        value = _best((e.value for e in found), maximize)
        return BEST, value, bound, _joined(e.source for e in found if e.value == value)
    if bound is not None:
        return BESTDUAL, None, bound, _joined(e.source for e in bounds if e.bound == bound)
    return None


def merge(old: Entry | None, fresh: Sequence[Evidence], instance: str, family: str, objective: str,
          time_limit: float) -> Entry | None:
    """The entry after this run: the old one if settled (checked against the new
    evidence), else the verdict of old and new evidence together."""
    maximize = families.maximized(family, objective)
    evidence = [*fresh, *([_entry_evidence(old)] if old else [])]
    check_consistent(evidence, maximize)
    if old is not None and old.status in SETTLED:
        return old
    found = verdict(evidence, maximize)
    if found is None:
        return old
    status, value, bound, solvers = found
    tried = time_limit if old is None or status in SETTLED else max(old.time_limit, time_limit)
    entry = Entry(instance, family, objective, status, value, bound, solvers, tried)
    if old is not None and same_verdict(old, entry):
        return replace(old, time_limit=tried)  # nothing learnt but how long it resisted: the rest of its provenance stays
    return entry


def same_verdict(a: Entry, b: Entry) -> bool:
    """The same status, value and bound: nothing learnt between the two (whatever their provenance)."""
    return (a.status, a.value, a.bound) == (b.status, b.value, b.bound)


def has_gap(entry: Entry) -> bool:
    """Unsettled, and value and bound apart (a ``best`` entry whose value
    equals its bound has one proof and waits for the second)."""
    return entry.status not in SETTLED and entry.value != entry.bound


def is_open(entry: Entry) -> bool:
    """A gap still there after ``OPEN_AFTER`` seconds per backend: a challenge just beyond the frontier."""
    return has_gap(entry) and entry.time_limit >= OPEN_AFTER


@dataclass
class Report:
    """What a certify run did: (old entry, new entry, instance, objective) per
    pair tried (new is None when nothing is known), and the refused pairs."""

    changes: list[tuple[Entry | None, Entry | None, str, str]]
    refused: list[str]


def corpus_files(table_path: str | Path) -> list[Path]:
    return sorted(Path(table_path).parent.glob("*/*.json"))


def _table_key(path: Path, table_path: Path, family: str) -> str:
    """The file's path relative to the table's folder; a file from elsewhere is
    copied in first (``<family>/<file name>``), so the table names only files it ships."""
    folder = table_path.parent.resolve()
    path = path.resolve()
    if not path.is_relative_to(folder):
        target = folder / family / path.name
        if target.exists() and target.read_bytes() != path.read_bytes():
            raise UserInputError(str(path), f"the corpus already has a different {family}/{path.name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        path = target
    return path.relative_to(folder).as_posix()


def _current(entry: Entry | None, digest: str) -> Entry | None:
    """``entry`` if it certifies the instance of hash ``digest``; an entry of a file edited since proves nothing."""
    return entry if entry is not None and entry.instance_hash == digest else None


def tasks(paths: Sequence[str | Path], objectives: Sequence[str], table_path: str | Path, again: bool = True,
          only: Collection[tuple[str, str]] | None = None) -> list[tuple[str, object, str, str, bool]]:
    """(table key, instance, its hash, objective, explicit) to certify. No
    paths: every corpus file, objectives not yet settled; the given paths'
    settled objectives too unless ``again`` is false; ``only``: just these
    (table key, objective) pairs. ``explicit``: the objective was asked
    for, so an objective that does not apply to the instance is an error."""
    table_path = Path(table_path)
    table = read_table(table_path)
    todo = []
    for path in (paths or corpus_files(table_path)):
        instance = load_instance(path)
        key = _table_key(Path(path), table_path, instance.family)
        digest = instance_hash(instance)
        family_objectives = families.objectives(instance.family)
        for objective in objectives or family_objectives:
            if objective not in family_objectives:
                raise UserInputError("--objective", f"{objective!r} is not an objective of {key} "
                                                    f"(family {instance.family}: {', '.join(family_objectives)})")
            entry = _current(table.get((key, objective)), digest)
            if only is not None and (key, objective) not in only:
                continue
            if (paths and again) or entry is None or entry.status not in SETTLED:
                todo.append((key, instance, digest, objective, bool(objectives)))
    return todo


def certify(paths: Sequence[str | Path], objectives: Sequence[str] = (), time_limit: float = 10.0,
            table_path: str | Path | None = None, progress: Callable[[Iterable, int], Iterable] = lambda it, n: it,
            workers: int = 1, cluster: Any = None, again: bool = True,
            only: Collection[tuple[str, str]] | None = None) -> Report:
    """Solve each (instance, objective) with both backends, on ``workers``
    processes or a Dask ``cluster``, and merge what is proven into the
    table: this process alone writes it, after each pair (a long run can be
    stopped and resumed). ``progress`` wraps the finished pairs (a tqdm
    bar) and is told how many there are. ``again`` false: settled pairs of
    the given paths are skipped too (a resumed growth); ``only``: just
    these (table key, objective) pairs, in the paths' order."""
    table_path = Path(table_path or default_table())
    todo = [(*task, time_limit) for task in tasks(paths, objectives, table_path, again, only)]
    table = read_table(table_path)
    report = Report([], [])
    client = dask_client(cluster) if cluster is not None else None
    with client or nullcontext():
        for key, family, digest, objective, fresh in progress(map_unordered(evidence, todo, workers, client), len(todo)):
            if fresh is None:  # an objective the instance does not have (user-flow of several users)
                continue
            old = _current(table.get((key, objective)), digest)
            try:
                if isinstance(fresh, str):
                    raise Disagreement(fresh)
                new = merge(old, fresh, key, family, objective, time_limit)
                new = new and replace(new, instance_hash=digest)
            except Disagreement as exc:
                report.refused.append(f"{key} {objective}: {exc}")
                continue
            report.changes.append((old, new, key, objective))
            if new is not None and new != old:
                table[new.key] = new
                write_table(table_path, table)
    return report


def evidence(task: tuple) -> tuple[str, str, str, str, list[Evidence] | str | None]:
    """What a worker finds for one (instance, objective): both backends'
    evidence and the cheap bound; a contradiction's message instead, or
    None for an objective the instance does not have (unless asked for)."""
    key, instance, digest, objective, explicit, time_limit = task
    try:
        fresh = [found for solver in BACKENDS
                 if (found := _unless_refused(instance, objective, solver, time_limit)) is not None]
    except UserInputError:
        if explicit:
            raise
        return key, instance.family, digest, objective, None
    except Disagreement as exc:
        return key, instance.family, digest, objective, str(exc)
    cheap = families.lower_bound(instance, objective)
    if cheap is not None:
        fresh.append(Evidence(CHEAP_BOUND, bound=cheap))
    published = published_optimum(instance, objective)
    if published is not None:
        try:  # a claim to check the proofs against, never a proof itself: it stays out of the verdict
            check_consistent([*fresh, Evidence(PUBLISHED, published, published, True)],
                             families.maximized(instance.family, objective))
        except Disagreement as exc:
            return key, instance.family, digest, objective, f"against the file's published optimum: {exc}"
    return key, instance.family, digest, objective, fresh


def published_optimum(instance, objective: str) -> Fraction | None:
    """The optimum the instance's source publishes for ``objective``
    (``meta.published_optimum``, objective -> value, as a converter of a
    benchmark library with known optima writes it), or None."""
    published = instance.meta.get("published_optimum", {})
    if not isinstance(published, dict):
        raise UserInputError("meta.published_optimum", f"must map objectives to values, got {published!r}")
    for name in published:
        if name not in families.objectives(instance.family):
            raise unknown_key(UserInputError, "meta.published_optimum", name, families.objectives(instance.family),
                              what="objective")
    if objective not in published:
        return None
    return exact(published[objective], f"meta.published_optimum.{objective}")


def status_counts(table: Table) -> dict[str, dict[str, int]]:
    """family -> status -> number of entries."""
    counts: dict[str, dict[str, int]] = {}
    for e in table.values():
        per = counts.setdefault(e.family, {})
        per[e.status] = per.get(e.status, 0) + 1
    return counts


def opt_entries(table: Table, family: str | None = None) -> list[Entry]:
    return [e for e in sorted(table.values(), key=lambda e: e.key)
            if e.status == OPT and family in (None, e.family)]
