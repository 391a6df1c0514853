"""The results store: one SQLite row per finished cell.

Only the process that runs a grid writes, one transaction per finished
task, so a run killed at any moment (SIGKILL included) leaves every
committed cell intact and loses only the cells in flight; SQLite's journal
makes each commit all-or-nothing. Exact values are stored as ``"num/den"``
text beside a float copy for sorting and display.

A cell is stored once, whichever experiment ran it first; the ``members``
table says which cells each experiment (quick or full) expands to, so two
experiments that share cells both see them. A cell that ended in ``error``
(a crash, a worker lost) is not finished: the next run tries it again and
its row is replaced.
"""

import csv
import json
import re
import sqlite3
import tomllib
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from schedbench.errors import UserInputError
from schedbench.model import FAMILIES

COLUMNS: tuple[tuple[str, str], ...] = (
    ("cell_id", "TEXT PRIMARY KEY"),   # sha256 of the cell's canonical key (see bench.experiment)
    ("experiment", "TEXT"),
    ("family", "TEXT"),
    ("generator", "TEXT"),             # generator name, or "file"
    ("params", "TEXT"),                # canonical JSON of the generator's parameters (seed apart)
    ("size", "TEXT"),                  # the varied parameters, the grouping key of the tables
    ("seed", "INTEGER"),
    ("instance_hash", "TEXT"),         # sha256 of the canonical instance JSON
    ("instance_name", "TEXT"),
    ("objective", "TEXT"),
    ("sense", "TEXT"),                 # min or max
    ("kind", "TEXT"),                  # heuristic, solver or claims
    ("algorithm", "TEXT"),
    ("options", "TEXT"),               # canonical JSON of the algorithm's options
    ("algorithm_version", "TEXT"),
    ("status", "TEXT"),                # one of STATUSES
    ("value", "TEXT"),                 # exact "num/den"
    ("value_float", "REAL"),
    ("bound", "TEXT"),                 # exact proven bound (a heuristic's row: the family's cheap bound)
    ("bound_float", "REAL"),
    ("wall_time", "REAL"),
    ("solver", "TEXT"),
    ("solver_version", "TEXT"),
    ("time_limit", "REAL"),
    ("machine", "TEXT"),
    ("metrics", "TEXT"),               # JSON object of extra metrics, exact values as "num/den"
    ("schedule", "TEXT"),              # JSON schedule, when the experiment keeps them
    ("error", "TEXT"),
    ("finished_at", "TEXT"),
    ("run_id", "INTEGER"),
)
NAMES = tuple(name for name, _ in COLUMNS)
# What a rerun must reproduce: everything but timing, place and provenance.
VALUE_COLUMNS = tuple(n for n in NAMES if n not in ("wall_time", "machine", "finished_at", "run_id", "experiment"))

RETRIED = "error"  # the status of a cell that a later run tries again
MEMBERS = "experiment TEXT, quick INTEGER, cell_id TEXT, PRIMARY KEY (experiment, quick, cell_id)"

RUN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "INTEGER PRIMARY KEY"),
    ("experiment", "TEXT"),
    ("experiment_text", "TEXT"),       # the TOML file as run, for provenance and the figures
    ("quick", "INTEGER"),
    ("command", "TEXT"),
    ("started_at", "TEXT"),
    ("machine", "TEXT"),
    ("versions", "TEXT"),              # JSON: python, schedbench, ortools, pulp, git commit
)


def exact(value: Fraction | int | None) -> str | None:
    return None if value is None else str(Fraction(value))


def fraction(text: str | None) -> Fraction | None:
    return None if text is None else Fraction(text)


class Store:
    """An open results store; ``with Store(path) as store: ...``."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        """``create=False``: open an existing store read-only."""
        path = Path(path)
        if not create and not path.is_file():
            raise UserInputError("STORE", f"no results store at {path}")
        try:
            if create:  # another application's SQLite file is refused before anything is written into it
                self.db = sqlite3.connect(path, timeout=60, isolation_level=None)
                tables = self._tables()
                if tables and "cells" not in tables:
                    raise sqlite3.DatabaseError(f"it has the tables {sorted(tables)}, none of them cells")
                if tables:
                    self._check_cells()
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self._create()
            else:  # a reader takes no lock a running grid would wait for (or make it wait)
                self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=60,
                                          isolation_level=None)
                self._check()
        except sqlite3.DatabaseError as exc:
            raise UserInputError("STORE", f"{path} is not a schedbench results store ({exc})") from None
        self.path = path

    def _create(self) -> None:
        """The tables a store lacks (all of a new one; members, added after
        the first stores), in one transaction: never a store left half made."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(f"CREATE TABLE IF NOT EXISTS cells ({', '.join(f'{n} {t}' for n, t in COLUMNS)})")
            self.db.execute(f"CREATE TABLE IF NOT EXISTS runs ({', '.join(f'{n} {t}' for n, t in RUN_COLUMNS)})")
            self.db.execute(f"CREATE TABLE IF NOT EXISTS members ({MEMBERS})")

    def _check(self) -> None:
        """cells and runs, as a run makes them (members, which the first
        stores lack, is read as empty: ``members``)."""
        tables = self._tables()
        if not {"cells", "runs"} <= tables:
            raise sqlite3.DatabaseError(f"it has the tables {sorted(tables)}, not cells and runs")
        self._check_cells()

    def _check_cells(self) -> None:
        have = {row[1] for row in self.db.execute("PRAGMA table_info(cells)")}
        if have != set(NAMES):
            raise sqlite3.DatabaseError(f"its cells table has columns {sorted(have)}")

    def _tables(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def add_run(self, run: dict[str, Any]) -> int:
        """Record a run; the same run again (a store merged twice) keeps its first id."""
        names = [n for n, _ in RUN_COLUMNS if n != "run_id"]
        same = self.db.execute(f"SELECT run_id FROM runs WHERE {' AND '.join(f'{n} IS ?' for n in names)}",
                               [run.get(n) for n in names]).fetchone()
        if same:
            return same[0]
        cursor = self.db.execute(f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                                 [run.get(n) for n in names])
        return cursor.lastrowid

    def add_members(self, experiment: str, quick: bool, cell_ids: Iterable[str]) -> None:
        """Record that ``experiment`` (its quick or full variant) expands to these cells."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("INSERT OR IGNORE INTO members VALUES (?, ?, ?)",
                                [(experiment, int(quick), c) for c in cell_ids])

    def members(self) -> dict[tuple[str, int], set[str]]:
        """(experiment, quick) -> the ids of its cells."""
        out: dict[tuple[str, int], set[str]] = {}
        if "members" not in self._tables():  # a first store, read only: its cells by the experiment that ran them
            for experiment, cell_id in self.db.execute("SELECT experiment, cell_id FROM cells"):
                for quick in (0, 1):
                    out.setdefault((experiment, quick), set()).add(cell_id)
            return out
        for experiment, quick, cell_id in self.db.execute("SELECT experiment, quick, cell_id FROM members"):
            out.setdefault((experiment, quick), set()).add(cell_id)
        return out

    def runs(self) -> list[dict[str, Any]]:
        """Every run, refusing one edited by hand (as ``rows`` refuses a cell)."""
        cursor = self.db.execute("SELECT * FROM runs ORDER BY run_id")
        names = [d[0] for d in cursor.description]
        runs = [dict(zip(names, row)) for row in cursor]
        for run in runs:
            problem = run_problem(run)
            if problem:
                raise UserInputError("STORE", f"{self.path}: run {run['run_id']}: {problem} "
                                              "(not as a run writes it: was the store edited?)")
        return runs

    def finished(self) -> set[str]:
        """The cells a run skips: every stored cell but those that ended in error."""
        return {row[0] for row in self.db.execute("SELECT cell_id FROM cells WHERE status IS NOT ?", (RETRIED,))}

    def add(self, rows: Iterable[dict[str, Any]]) -> int:
        """Store cells in one transaction: a new cell is added, a stored one kept,
        unless it ended in error and the new row did not. Returns rows written."""
        placeholders = ", ".join("?" * len(NAMES))
        update = ", ".join(f"{n} = excluded.{n}" for n in NAMES if n != "cell_id")
        with self.db:  # one transaction: all rows of the task or none
            self.db.execute("BEGIN IMMEDIATE")
            before = self.db.total_changes
            self.db.executemany(f"INSERT INTO cells ({', '.join(NAMES)}) VALUES ({placeholders}) "
                                f"ON CONFLICT (cell_id) DO UPDATE SET {update} "
                                f"WHERE cells.status IS ? AND excluded.status IS NOT ?",
                                [[*(row.get(n) for n in NAMES), RETRIED, RETRIED] for row in rows])
            return self.db.total_changes - before

    def rows(self, where: str = "", args: tuple = ()) -> Iterator[dict[str, Any]]:
        """Every stored cell as a dict (ordered by cell_id), ``where`` an SQL
        condition; a cell not as a run writes it (a store edited by hand,
        ``row_problem``) is refused, naming it."""
        sql = "SELECT * FROM cells" + (f" WHERE {where}" if where else "") + " ORDER BY cell_id"
        cursor = self.db.execute(sql, args)
        names = [d[0] for d in cursor.description]
        known_json: set[str] = set()  # parameters, sizes and options repeat from cell to cell: read once
        for values in cursor:
            row = dict(zip(names, values))
            problem = row_problem(row, known_json)
            if problem:
                raise UserInputError("STORE", f"{self.path}: cell {str(row['cell_id'])[:12]}: {problem} "
                                              "(not as a run writes it: was the store edited?)")
            yield row

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM cells").fetchone()[0]

    def merge(self, other: str | Path) -> tuple[int, list[str]]:
        """Join another store into this one: new cells are added, cells already
        here are kept (a cell here in error takes the other's result). Returns
        the number written and the ids of cells whose stored values differ
        between the two stores (for the caller to report)."""
        source = Store(other, create=False)
        try:
            mine = {row["cell_id"]: row for row in self.rows()}
            added, differ, run_ids = [], [], {}
            for run in source.runs():
                old = run.pop("run_id")
                run_ids[old] = self.add_run(run)
            for row in source.rows():
                here = mine.get(row["cell_id"])
                if here is None or (here["status"] == RETRIED and row["status"] != RETRIED):
                    added.append({**row, "run_id": run_ids.get(row["run_id"])})
                elif row["status"] != RETRIED and any(here[n] != row[n] for n in VALUE_COLUMNS if n != "schedule"):
                    differ.append(row["cell_id"])
            for (experiment, quick), cells in source.members().items():
                self.add_members(experiment, bool(quick), cells)
            return (self.add(added) if added else 0), differ
        finally:
            source.close()

    def export(self, path: str | Path) -> int:
        """Write every cell to ``path``: CSV for ``.csv``, Parquet for ``.parquet``."""
        rows = list(self.rows())
        path = Path(path)
        if not path.parent.is_dir():
            raise UserInputError("--out", f"no folder {path.parent} to write {path.name} into")
        if path.suffix == ".csv":
            with path.open("w", newline="") as out:
                writer = csv.DictWriter(out, fieldnames=NAMES)
                writer.writeheader()
                writer.writerows(rows)
        elif path.suffix == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            types = {"INTEGER": pa.int64(), "REAL": pa.float64()}
            schema = pa.schema([(n, types.get(t.split()[0], pa.string())) for n, t in COLUMNS])
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
        else:
            raise UserInputError("--out", f"export writes .csv or .parquet files, not {path.name!r}")
        return len(rows)


EXACT_COLUMNS = ("value", "bound")
JSON_OBJECT_COLUMNS = ("params", "size", "options", "metrics")
#: What a run writes: a solve's status, a heuristic's verdict, error, or a claims ledger's done.
STATUSES = frozenset({"optimal", "feasible", "infeasible", "unknown", "invalid", "relaxed", RETRIED, "done"})
KINDS = frozenset({"heuristic", "solver", "claims"})
NUMBER_COLUMNS = ("seed", "value_float", "bound_float", "wall_time", "time_limit")


def row_problem(row: dict[str, Any], known_json: set[str]) -> str | None:
    """Why a stored cell's status, kind, family, numbers, exact values or
    JSON objects are not what a run writes, or None (its schedule is read,
    and checked, only where one is drawn). ``known_json``: JSON texts
    already read as objects."""
    for name, known in (("status", STATUSES), ("kind", KINDS), ("family", FAMILIES)):
        if row[name] not in known:
            return f"{name} {row[name]!r} is not one of {', '.join(sorted(known))}"
    for name in NUMBER_COLUMNS:
        if row[name] is not None and (isinstance(row[name], bool) or not isinstance(row[name], (int, float))):
            return f"{name} {row[name]!r} is not a number"
    for name in EXACT_COLUMNS:
        text = row[name]
        if text is not None and not (isinstance(text, str) and _EXACT.fullmatch(text)):
            return f"{name} {text!r} is not an exact number num/den"
    for name in JSON_OBJECT_COLUMNS:
        if row[name] is not None and row[name] not in known_json:
            if not isinstance(_json(row[name]), dict):
                return f"{name} {str(row[name])[:40]!r} is not a JSON object"
            known_json.add(row[name])
    return None


def run_problem(run: dict[str, Any]) -> str | None:
    """Why a stored run's versions or experiment text are not what a run writes, or None."""
    if run["versions"] is not None and not isinstance(_json(run["versions"]), dict):
        return f"versions {str(run['versions'])[:40]!r} is not a JSON object"
    if run["experiment_text"] is not None:
        try:
            tomllib.loads(run["experiment_text"])
        except (TypeError, tomllib.TOMLDecodeError):
            return "its experiment_text is not a TOML experiment"
    return None


def _json(text: Any) -> Any:
    """The JSON value of ``text``, or None when it is none."""
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None


_EXACT = re.compile(r"-?[0-9]+(/0*[1-9][0-9]*)?")  # what str(Fraction) writes, up to leading zeros


#: One encoder for every key: a new one per call (``json.dumps`` with
#: options) was a seventh of loading a grid of millions of cells.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def canonical(obj: Any) -> str:
    """The one JSON spelling of a value, for keys and hashes."""
    return _CANONICAL.encode(obj)
