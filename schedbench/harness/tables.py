"""The ratio and bound tables of a results store, as plain text, Markdown,
LaTeX (booktabs), CSV or HTML.

A table is built once as typed cells (exact Fractions, means with their
confidence interval) and rendered by format, so every format shows the same
numbers: three decimals for reading (or a chosen precision, or the exact
fractions), full-precision floats beside the exact fractions in CSV.
"""

import csv
import html
import io
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from schedbench.harness.analysis import groups, instance_rows, mean, ratio_rows, summarize
from schedbench.errors import UserInputError

KINDS = ("ratios", "bounds")
TEXT, COUNT, EXACT, ESTIMATE = "text", "count", "exact", "estimate"


@dataclass(frozen=True)
class Estimate:
    """A mean with the half-width of its 95% confidence interval (None: one value, no interval)."""

    mean: Fraction
    half_width: float | None


@dataclass(frozen=True)
class Column:
    key: str      # CSV header
    label: str    # what a reader sees
    kind: str = TEXT


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    note: str = ""


def size_label(size: str | None) -> str:
    """``{"jobs": 50, "organizations": 5}`` -> ``jobs=50, organizations=5``."""
    values = json.loads(size or "{}")
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "-"


def algorithm_label(algorithm: str, options: str | None) -> str:
    values = json.loads(options or "{}")
    return f"{algorithm} ({', '.join(f'{k}={v}' for k, v in values.items())})" if values else algorithm


GROUP_COLUMNS = (Column("family", "family"), Column("generator", "generator"), Column("size", "size"),
                 Column("objective", "objective"))


def _ratio_columns(prefix: str, against: str, maximized: bool) -> tuple[Column, ...]:
    level = "p5" if maximized else "p95"
    return (Column(f"{prefix}_n", f"n {against}", COUNT),
            Column(f"{prefix}_mean", f"H/{against} mean ± 95% CI", ESTIMATE),
            Column(f"{prefix}_worst", f"H/{against} worst ({'min' if maximized else 'max'})", EXACT),
            Column(f"{prefix}_{level}", f"H/{against} {level}", EXACT))


def _stats(values: Iterable[Fraction | None], maximized: bool) -> tuple:
    summary = summarize(values, maximized)
    if summary is None:
        return (0, None, None, None)
    return (summary.n, Estimate(summary.mean, summary.half_width), summary.worst, summary.percentile)


def ratio_tables(ratios: list[dict[str, Any]]) -> list[Table]:
    """From ``analysis.ratio_rows``: per family, size, objective and algorithm, the
    statistics of heuristic / optimum and heuristic / best bound; one table per
    objective sense, since "worst" and the tail percentile flip when maximizing."""
    tables = []
    for sense in ("min", "max"):
        chosen = [r for r in ratios if r["sense"] == sense]
        if not chosen:
            continue
        maximized = sense == "max"
        bound = "UB" if maximized else "LB"
        columns = (*GROUP_COLUMNS, Column("sense", "sense"), Column("algorithm", "algorithm"), Column("n", "n", COUNT),
                   *_ratio_columns("optimum", "OPT", maximized), *_ratio_columns("bound", bound, maximized))
        rows = []
        for (family, generator, size, objective, algorithm, options), members in groups(chosen):
            rows.append((family, generator, size_label(size), objective, sense, algorithm_label(algorithm, options),
                         sum(r["status"] in ("feasible", "relaxed") for r in members),
                         *_stats((r["ratio_to_optimum"] for r in members), maximized),
                         *_stats((r["ratio_to_bound"] for r in members), maximized)))
        title = ("Maximized objectives: heuristic / optimum and heuristic / best upper bound (ratios <= 1; "
                 "worst = smallest; p5 = 5th percentile)" if maximized else
                 "Minimized objectives: heuristic / optimum and heuristic / best lower bound (ratios >= 1; "
                 "worst = largest; p95 = 95th percentile)")
        note = (f"n: heuristic cells with a feasible value; n OPT / n {bound}: those with a proven optimum / a "
                "nonzero bound. Best bound: the tightest of the solvers' proven bounds and the family's cheap bound. "
                "A relaxed cell (a MOSP heuristic valid against its own local schedule, not the format's references) "
                "is compared with the cheap bound only.")
        tables.append(Table(title, columns, tuple(rows), note))
    return tables


def bound_table(instances: list[dict[str, Any]]) -> Table:
    """From ``analysis.instance_rows``: per family, size and objective, how many
    optima were proven, the gap the solvers left open and how tight the cheap bound is."""
    columns = (*GROUP_COLUMNS, Column("instances", "instances", COUNT), Column("optima", "optima proven", COUNT),
               Column("gap_mean", "open gap mean", EXACT), Column("gap_max", "open gap max", EXACT),
               Column("cheap_mean", "cheap bound / OPT mean", EXACT))
    rows = []
    for (family, generator, size, objective), members in groups(instances, ("family", "generator", "size",
                                                                            "objective")):
        gaps = [r["gap"] for r in members if r["gap"] is not None]
        cheap = [r["cheap_to_optimum"] for r in members if r["cheap_to_optimum"] is not None]
        rows.append((family, generator, size_label(size), objective, len(members),
                     sum(r["optimum"] is not None for r in members), mean(gaps) if gaps else None,
                     max(gaps, default=None), mean(cheap) if cheap else None))
    note = ("open gap: best value found / best bound proven when minimizing, best bound / best value when "
            "maximizing (1 = closed). cheap bound / OPT: the family's cheap bound against the proven optimum "
            "(<= 1 for lower bounds, >= 1 for upper bounds).")
    return Table("Bounds: optima proven and gaps left open", columns, tuple(rows), note)


@dataclass(frozen=True)
class Cells:
    """How a cell reads: ``precision`` decimals, or exact fractions (a mean's
    interval, a float, keeps its decimals)."""

    precision: int = 3
    fractions: bool = False

    def __call__(self, value: Any) -> str:
        """The cell's text; '-' when absent."""
        if value is None:
            return "-"
        if isinstance(value, Estimate):
            centre = self(value.mean)
            return centre if value.half_width is None else f"{centre} ± {value.half_width:.{self.precision}f}"
        if isinstance(value, Fraction):
            return str(value) if self.fractions else f"{float(value):.{self.precision}f}"
        return str(value)


show = Cells()


def markdown(tables: list[Table], show: Cells = show) -> str:
    parts = []
    for table in tables:
        cells = [[show(v).replace("|", "\\|") for v in row] for row in table.rows]
        lines = [f"**{table.title}**", "", "| " + " | ".join(c.label for c in table.columns) + " |",
                 "|" + "|".join("---" if c.kind == TEXT else "---:" for c in table.columns) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in cells]
        parts.append("\n".join(lines + (["", f"_{table.note}_"] if table.note else [])))
    return "\n\n".join(parts) + "\n"


LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_text(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text).replace("±", r"$\pm$").replace("<=", r"$\le$") \
        .replace(">=", r"$\ge$")


def latex(tables: list[Table], show: Cells = show) -> str:
    """booktabs tabulars (``\\usepackage{booktabs}``), the title and note as comments."""
    parts = []
    for table in tables:
        align = "".join("l" if c.kind == TEXT else "r" for c in table.columns)
        lines = [f"% {table.title}", *([f"% {table.note}"] if table.note else []), f"\\begin{{tabular}}{{{align}}}",
                 r"\toprule", " & ".join(_latex_text(c.label) for c in table.columns) + r" \\", r"\midrule"]
        lines += [" & ".join(_latex_text(show(v)) for v in row) + r" \\" for row in table.rows]
        parts.append("\n".join(lines + [r"\bottomrule", r"\end{tabular}"]))
    return "\n\n".join(parts) + "\n"


def _csv_cells(column: Column, value: Any) -> dict[str, str]:
    """A column's CSV fields: exact values as a full-precision float plus ``_exact``
    num/den text; a mean also its CI half-width as ``_ci95``."""
    if column.kind == EXACT:
        return {column.key: "" if value is None else repr(float(value)),
                f"{column.key}_exact": "" if value is None else str(value)}
    if column.kind == ESTIMATE:
        absent = value is None
        return {column.key: "" if absent else repr(float(value.mean)),
                f"{column.key}_exact": "" if absent else str(value.mean),
                f"{column.key}_ci95": "" if absent or value.half_width is None else repr(value.half_width)}
    return {column.key: "" if value is None else str(value)}


def csv_text(tables: list[Table], show: Cells = show) -> str:
    """One CSV for all tables: the union of their columns (a maximized table has
    p5 where a minimized one has p95), empty where a table lacks a column.

    The exact mean of many ratios can have thousands of digits; Python refuses
    to print an int over 4300 digits unless told (a guard against parsing
    hostile input), so the guard is lifted while these values are written.
    CSV is for programs: full precision always, whatever ``show`` says."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        records = [{k: v for c, value in zip(t.columns, row) for k, v in _csv_cells(c, value).items()}
                   for t in tables for row in t.rows]
    finally:
        sys.set_int_max_str_digits(limit)
    header = list(dict.fromkeys(k for t in tables for c in t.columns for k in _csv_cells(c, None)))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


def html_tables(tables: list[Table], show: Cells = show) -> str:
    parts = []
    for table in tables:
        head = "".join(f"<th>{html.escape(c.label)}</th>" for c in table.columns)
        body = "".join("<tr>" + "".join(f'<td class="{"text" if c.kind == TEXT else "num"}">{html.escape(show(v))}</td>'
                                        for c, v in zip(table.columns, row)) + "</tr>" for row in table.rows)
        note = f"<p class=\"note\">{html.escape(table.note)}</p>" if table.note else ""
        parts.append(f"<table><caption>{html.escape(table.title)}</caption><thead><tr>{head}</tr></thead>"
                     f"<tbody>{body}</tbody></table>{note}")
    return "\n".join(parts)


def text(tables: list[Table], show: Cells = show) -> str:
    """Plain text for a terminal: columns aligned, numbers to the right."""
    parts = []
    for table in tables:
        grid = [[c.label for c in table.columns], *[[show(v) for v in row] for row in table.rows]]
        widths = [max(len(line[i]) for line in grid) for i in range(len(table.columns))]
        lines = ["  ".join(cell.ljust(width) if column.kind == TEXT else cell.rjust(width)
                           for cell, width, column in zip(line, widths, table.columns)).rstrip() for line in grid]
        lines.insert(1, "  ".join("-" * width for width in widths))
        parts.append("\n".join([table.title, "", *lines, *(["", table.note] if table.note else [])]))
    return "\n\n".join(parts) + "\n"


RENDERERS = {"text": text, "markdown": markdown, "latex": latex, "csv": csv_text, "html": html_tables}
FORMATS = tuple(RENDERERS)


def render(tables: list[Table], form: str, precision: int = 3, fractions: bool = False) -> str:
    """``tables`` in format ``form``, numbers to ``precision`` decimals or as exact fractions."""
    if form not in RENDERERS:
        raise UserInputError("--format", f"unknown format {form!r} (known: {', '.join(FORMATS)})")
    return RENDERERS[form](tables, Cells(precision, fractions))


def store_tables(rows: list[dict[str, Any]], kind: str) -> list[Table]:
    """The tables of ``kind`` for rows of a store (see ``analysis.select``)."""
    if kind == "ratios":
        return ratio_tables(ratio_rows(rows))
    if kind == "bounds":
        instances = instance_rows(rows)
        return [bound_table(instances)] if instances else []
    raise UserInputError("--kind", f"unknown table kind {kind!r} (known: {', '.join(KINDS)})")
