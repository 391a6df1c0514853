"""Exact ratios and their statistics from the rows of a results store.

Each heuristic row is joined to the solver rows of its instance and
objective (docs/experiments.md): optimum = the value of an optimal solver
row, best bound = the tightest of the solver bounds and the heuristic's own
cheap bound. Ratios, means and percentiles are exact Fractions (a figure's
means gmpy2's exact ``mpq``); only the confidence interval's half-width is a
float (a square root and a Student t quantile, over float deviations), and
floats appear elsewhere only for display.
"""

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from gmpy2 import mpq

from schedbench.harness.store import NAMES, Store, fraction
from schedbench.errors import UserInputError

GROUP_KEY = ("family", "generator", "size", "objective", "algorithm", "options")
DERIVED = ("optimum", "best_bound", "ratio_to_optimum", "ratio_to_bound")
JSON_COLUMNS = ("params", "options", "size", "metrics")
CONFIDENCE = Fraction(95, 100)
UNTRUSTED = ("invalid", "error")   # a row whose schedule failed validation, or that crashed: no value, no bound


class ConflictingResults(UserInputError):
    """The store contradicts itself (two proven optima differ, or a value or
    a bound lies beyond a proven optimum): no ratio computed from it can be trusted."""

    def __init__(self, message: str) -> None:
        super().__init__("STORE", message)


@dataclass
class Reference:
    """What the store knows about one (instance, objective): the yardsticks of its ratios."""

    maximized: bool
    optimum: Fraction | None = None
    optimum_cell: str | None = None
    best_value: Fraction | None = None     # the best feasible value any row found
    best_bound: Fraction | None = None     # the tightest bound: solvers' proven ones and the cheap one
    cheap_bound: Fraction | None = None    # the family's cheap bound (heuristic rows carry it)

    def better(self, a: Fraction | None, b: Fraction | None) -> Fraction | None:
        """The better of two objective values (None = absent)."""
        if a is None or b is None:
            return b if a is None else a
        return max(a, b) if self.maximized else min(a, b)

    def tighter(self, a: Fraction | None, b: Fraction | None) -> Fraction | None:
        """The tighter of two bounds: the larger lower bound, or the smaller upper bound."""
        if a is None or b is None:
            return b if a is None else a
        return min(a, b) if self.maximized else max(a, b)

    def add(self, row: dict[str, Any]) -> None:
        """Take what a row establishes; an invalid or failed row establishes nothing."""
        if row["status"] in UNTRUSTED:
            return
        value, bound = fraction(row["value"]), fraction(row["bound"])
        if row["kind"] == "solver" and row["status"] == "optimal":
            if self.optimum is not None and value != self.optimum:
                raise ConflictingResults(
                    f"instance {row['instance_hash'][:12]} ({row['objective']}): proven optima differ, "
                    f"{self.optimum} (cell {self.optimum_cell[:12]}) and {value} (cell {row['cell_id'][:12]})")
            self.optimum, self.optimum_cell = value, row["cell_id"]
            bound = self.tighter(bound, value)  # a proven optimum is the tightest bound there is
        if value is not None and row["status"] in ("optimal", "feasible"):
            self.best_value = self.better(self.best_value, value)
        self.best_bound = self.tighter(self.best_bound, bound)
        if row["kind"] == "heuristic":
            self.cheap_bound = self.tighter(self.cheap_bound, bound)

    def check(self, instance: str, objective: str) -> None:
        """A value better than the optimum, or a bound beyond it, means a bug somewhere."""
        if self.optimum is None:
            return
        where = f"instance {instance[:12]} ({objective})"
        if self.best_value is not None and self.better(self.best_value, self.optimum) != self.optimum:
            raise ConflictingResults(f"{where}: a feasible value {self.best_value} beats the proven optimum "
                                     f"{self.optimum} (cell {self.optimum_cell[:12]})")
        if self.tighter(self.best_bound, self.optimum) != self.optimum:
            raise ConflictingResults(f"{where}: a bound {self.best_bound} lies beyond the proven optimum "
                                     f"{self.optimum} (cell {self.optimum_cell[:12]})")


def references(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], Reference]:
    """Reference per (instance_hash, objective), over every heuristic and solver row given."""
    refs: dict[tuple[str, str], Reference] = {}
    for row in rows:
        if row["kind"] == "claims" or row["instance_hash"] is None or row["objective"] is None:
            continue
        key = (row["instance_hash"], row["objective"])
        refs.setdefault(key, Reference(row["sense"] == "max")).add(row)
    for (instance, objective), ref in refs.items():
        ref.check(instance, objective)
    return refs


def ratio(value: Fraction | None, reference: Fraction | None) -> Fraction | None:
    """value / reference; 0 / 0 counts as 1 (both perfect), x / 0 is undefined (None)."""
    if value is None or reference is None:
        return None
    if reference == 0:
        return Fraction(1) if value == 0 else None
    return value / reference


def ratio_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every heuristic row, plus ``optimum``, ``best_bound``, ``ratio_to_optimum``
    and ``ratio_to_bound`` (exact; None where unknown). Raises ConflictingResults."""
    rows = list(rows)
    refs = references(rows)
    out = []
    for row in rows:
        if row["kind"] != "heuristic" or row["objective"] is None:
            continue
        ref = refs.get((row["instance_hash"], row["objective"]), Reference(row["sense"] == "max"))
        value = fraction(row["value"]) if row["status"] in ("feasible", "relaxed") else None
        if row["status"] == "relaxed":  # not a the format reference schedule: only the family's cheap bound holds for it
            optimum, bound = None, fraction(row["bound"])
        else:
            optimum, bound = ref.optimum, ref.best_bound
        out.append({**row, "optimum": ref.optimum, "best_bound": bound,
                    "ratio_to_optimum": ratio(value, optimum), "ratio_to_bound": ratio(value, bound)})
    return out


def instance_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (family, generator, size, objective, instance): its Reference
    (over all rows of that instance and objective) and the open gap left."""
    rows = list(rows)
    refs = references(rows)
    seen: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        ref = refs.get((row["instance_hash"], row["objective"]))
        if ref is None:
            continue
        key = (row["family"], row["generator"], row["size"], row["objective"], row["instance_hash"])
        if key not in seen:
            gap = ratio(ref.best_bound, ref.best_value) if ref.maximized else ratio(ref.best_value, ref.best_bound)
            seen[key] = {**dict(zip(("family", "generator", "size", "objective", "instance_hash"), key)),
                         "sense": row["sense"], "optimum": ref.optimum, "best_value": ref.best_value,
                         "best_bound": ref.best_bound, "gap": gap,
                         "cheap_to_optimum": ratio(ref.cheap_bound, ref.optimum)}
    return list(seen.values())


def experiment_cells(experiment: str, runs: Iterable[dict[str, Any]],
                     members: dict[tuple[str, int], set[str]]) -> set[str]:
    """The cells ``experiment`` expands to, in the variant (quick or full) of its
    latest run: a cell stored by another experiment that shares it counts too."""
    quick = [run["quick"] for run in runs if run["experiment"] == experiment]
    return members.get((experiment, quick[-1]), set()) if quick else set()


@dataclass
class StoreView:
    """What tables, figures and reports read from a store: its runs, the
    experiments' cell lists and the rows (one experiment's, when named)."""

    runs: list[dict[str, Any]]
    members: dict[tuple[str, int], set[str]]
    rows: list[dict[str, Any]]


def read_store(path: str | Path, experiment: str | None = None) -> StoreView:
    with Store(path, create=False) as db:
        runs, members, rows = db.runs(), db.members(), list(db.rows())
    return StoreView(runs, members, select(rows, experiment, runs, members))


def select(rows: Iterable[dict[str, Any]], experiment: str | None, runs: Iterable[dict[str, Any]] = (),
           members: dict[tuple[str, int], set[str]] | None = None) -> list[dict[str, Any]]:
    """The rows of one experiment (every row if None). Ratios then join only
    within it: an experiment brings its own solvers."""
    rows, runs = list(rows), list(runs)
    if experiment is None:
        return rows
    if experiment not in {r["experiment"] for r in runs}:
        known = sorted({r["experiment"] for r in runs})
        raise UserInputError("--experiment", f"no experiment {experiment!r} in the store "
                                             f"(it has: {', '.join(known) or 'nothing'})")
    cells = experiment_cells(experiment, runs, members or {})
    return [r for r in rows if r["cell_id"] in cells]


def field(row: dict[str, Any], name: str) -> Any:
    """A row's value by a figure/filter name: a column, ``params.X``, ``options.X``,
    ``size.X``, ``metrics.X`` or a ratio; exact values come back as Fractions."""
    head, dot, tail = name.partition(".")
    if dot:
        value = json.loads(row[head] or "{}").get(tail)
        return _exact(value) if head == "metrics" else value
    if name in ("value", "bound"):
        return fraction(row[name])
    return row.get(name)


def check_field(name: str, where: str) -> None:
    """Reject a name ``field`` cannot resolve (so a figure spec fails before drawing)."""
    head, dot, tail = name.partition(".") if isinstance(name, str) else ("", "", "")
    if (dot and head in JSON_COLUMNS and tail) or (not dot and (name in NAMES or name in DERIVED)):
        return
    raise UserInputError(where, f"unknown field {name!r}: a column, a ratio ({', '.join(DERIVED)}) or "
                                f"{', '.join(c + '.NAME' for c in JSON_COLUMNS)}")


def _exact(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            return value
    return value


def sort_key(value: Any) -> tuple:
    """Orders mixed values naturally: numbers by size (also inside JSON such as
    a size ``{"jobs": 50}``), then text; None last."""
    if value is None:
        return (2, "")
    if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
        return (0, value)
    if isinstance(value, str):
        try:
            return sort_key(json.loads(value)) if value[:1] in "{[" else (0, Fraction(value))
        except (ValueError, ZeroDivisionError):
            return (1, value)
    if isinstance(value, dict):
        return (1, "", tuple((k, sort_key(v)) for k, v in sorted(value.items())))
    if isinstance(value, (list, tuple)):
        return (1, "", tuple(sort_key(v) for v in value))
    return (1, str(value))


def groups(rows: Iterable[dict[str, Any]], key: tuple[str, ...] = GROUP_KEY) -> list[tuple[tuple, list[dict]]]:
    """Rows grouped by the columns of ``key``, groups in natural order."""
    out: dict[tuple, list[dict]] = {}
    for row in rows:
        out.setdefault(tuple(row[k] for k in key), []).append(row)
    return sorted(out.items(), key=lambda item: tuple(sort_key(v) for v in item[0]))


def rational_sum(values: Iterable[Fraction | int | float]) -> mpq:
    """The exact sum as gmpy2's ``mpq``: numerators added per denominator,
    then the distinct denominators summed pairwise, so the common
    denominator only gets large at the last levels. GMP reduces the large
    ones with a subquadratic gcd; Python's, which a Fraction's
    normalisation runs, took 9 s for one sum of 20,000 Jain indices
    (distinct 107-bit denominators: a 1.9-million-bit result)."""
    numerators: dict[int, int] = {}
    for value in values:
        value = Fraction(value) if isinstance(value, float) else value   # a float metric, taken exactly
        numerators[value.denominator] = numerators.get(value.denominator, 0) + value.numerator
    terms = [mpq(n, d) for d, n in numerators.items()]
    while len(terms) > 1:
        terms = [sum(terms[i:i + 2], mpq(0)) for i in range(0, len(terms), 2)]
    return terms[0] if terms else mpq(0)


def rational_mean(values: list[Fraction]) -> mpq:
    """The exact mean as ``mpq``, for comparisons inside this process (a
    figure's statements): a Fraction of it would pay Python's quadratic gcd."""
    return rational_sum(values) / len(values)


def exact_sum(values: Iterable[Fraction | int | float]) -> Fraction:
    """``rational_sum`` as a Fraction of Python ints (for tables and JSON)."""
    total = rational_sum(values)
    return Fraction(int(total.numerator), int(total.denominator))


def mean(values: list[Fraction]) -> Fraction:
    return exact_sum(values) / len(values)


def percentile(values: list[Fraction], level: Fraction) -> Fraction:
    """The ``level`` quantile (0..1) with linear interpolation between order
    statistics (numpy's default), exact."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * Fraction(level)
    low = math.floor(position)
    if low + 1 >= len(ordered):
        return ordered[low]
    return ordered[low] + (position - low) * (ordered[low + 1] - ordered[low])


def median_interval(values: list[Fraction], confidence: Fraction = CONFIDENCE) -> tuple[Fraction, Fraction, Fraction]:
    """The distribution-free confidence interval of the median: order statistics
    x_(j) <= median <= x_(n+1-j) with the largest j whose coverage
    P(j <= B <= n-j), B ~ Binomial(n, 1/2), reaches ``confidence``. Returns
    (low, high, coverage), exact. Below six values no j reaches 95%: the
    interval is then the whole range, whose coverage 1 - 2^(1-n) is returned."""
    ordered = sorted(values)
    n = len(ordered)
    total = 1 << n                # the coverages are integers over 2^n: no Fraction in the loop
    tail, term = 0, 1             # 2^n P(B < j), and C(n, j - 1)
    chosen, kept = 1, total - 2
    for j in range(1, n // 2 + 1):
        tail += term
        term = term * (n - j + 1) // j
        if (total - 2 * tail) * confidence.denominator < confidence.numerator * total:
            break
        chosen, kept = j, total - 2 * tail
    return ordered[chosen - 1], ordered[n - chosen], Fraction(kept, total)


def half_width(values: list[Fraction], confidence: Fraction = CONFIDENCE) -> float | None:
    """Half-width of the Student t confidence interval of the mean; None for one value."""
    from scipy.stats import t

    n = len(values)
    if n < 2:
        return None
    # floats, in two passes: the half-width is drawn and printed as a float; an exact variance of
    # 20,000 Jain indices took minutes (squares of distinct 107-bit denominators)
    points = [float(v) for v in values]
    centre = math.fsum(points) / n
    variance = math.fsum((x - centre) ** 2 for x in points) / (n - 1)
    return float(t.ppf((1 + float(confidence)) / 2, n - 1)) * math.sqrt(variance / n)


def paired_t(a: list, b: list) -> dict[str, float | None]:
    """Student's paired t-test of a against b (two-sided): the mean
    difference, t and p, floats for display (None below two pairs; p = 1
    when every difference is 0)."""
    from scipy.stats import ttest_rel

    if len(a) < 2:
        return {"mean_difference": None, "t": None, "p": None}
    differences = [x - y for x, y in zip(a, b)]
    difference = float(mean(differences))
    if all(d == 0 for d in differences):
        return {"mean_difference": 0.0, "t": 0.0, "p": 1.0}
    test = ttest_rel([float(x) for x in a], [float(y) for y in b])
    return {"mean_difference": difference, "t": float(test.statistic), "p": float(test.pvalue)}


@dataclass(frozen=True)
class Summary:
    """Statistics of exact values; ``worst`` and ``percentile`` look at the bad
    tail: the largest values when minimizing, the smallest when maximizing."""

    n: int
    mean: Fraction
    worst: Fraction
    percentile: Fraction
    level: int                  # 95, or 5 when maximized
    half_width: float | None    # 95% CI of the mean; None when n = 1


def summarize(values: Iterable[Fraction | None], maximized: bool = False) -> Summary | None:
    """Summary of the values present (None skipped), or None if there are none."""
    present = [Fraction(v) if isinstance(v, float) else v for v in values if v is not None]
    if not present:
        return None
    level = 5 if maximized else 95
    return Summary(len(present), mean(present), min(present) if maximized else max(present),
                   percentile(present, Fraction(level, 100)), level, half_width(present))


def claims_ledger(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims of each family's largest finished ledger run (most
    instances; the latest on a tie): two runs of one ledger try the same
    paper constructions, so their counts are not added. Per claim: tried,
    skipped, violations, the worst (largest) ratio, the shrunk
    counterexamples by name; the papers' claims first, then the project's checks."""
    largest: dict[str, tuple[tuple, dict[str, Any]]] = {}
    for row in rows:
        if row["kind"] != "claims" or row["status"] != "done":
            continue
        rank = (json.loads(row["params"] or "{}").get("instances", 0), row["finished_at"] or "")
        kept = largest.get(row["family"])
        if kept is None or rank > kept[0]:
            largest[row["family"]] = (rank, row)
    ledger = []
    for family in sorted(largest):
        row = largest[family][1]
        for claim in json.loads(row["metrics"])["claims"]:
            ratios = [Fraction(r) for r in claim["ratios"]]
            ledger.append({"key": claim["key"], "family": family, "statement": claim["statement"],
                           "source": claim.get("source"),   # None: a store written before claims had sources
                           "tried": claim["tried"], "skipped": claim["skipped"], "violations": claim["violations"],
                           "worst": max(ratios, default=None),
                           "counterexamples": {c["name"]: c["instance"] for c in claim["counterexamples"]}})
    return sorted(ledger, key=lambda c: (c["source"] != "paper", c["key"]))
