"""Distributions across instances: how far each heuristic is from the
optimum, and how fast each exact backend proves it.

For every family and objective, over the instances with a proven optimum:

- the ECDF of the performance ratio to the optimum, r = H / OPT when
  minimizing and OPT / H when maximizing (r >= 1 either way, 1 optimal):
  the fraction of instances on which the heuristic is within r of OPT;
- the performance profile of Dolan and Moré (Math. Programming 91, 2002):
  rho_H(tau), the fraction of instances on which the heuristic is within a
  factor tau of the best heuristic on that instance (an instance a
  heuristic has no value on counts as never within);
- per exact backend, the fraction of its solve cells proven optimal (or
  infeasible) within t seconds (time to proof; unproven cells never are),
  from a store's solver cells or from a frontier or stress benchmark's log.

Values stay exact (Fractions) up to drawing (times to proof are kept to
the millisecond); each figure's steps are also written as CSV, with the
exact ratio and fraction beside the floats.
"""

import csv
from bisect import bisect_right
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from schedbench import families
from schedbench.errors import UserInputError
from schedbench.harness.analysis import ratio_rows
from schedbench.harness.plots import save
from schedbench.harness.tables import algorithm_label
from schedbench.harness.style import FigureStyle, font_context, new_figure, series_style

PROVEN = ("optimal", "infeasible")
LOG_FLOOR = 1e-3  # seconds: a proof faster than a millisecond is drawn at 1 ms on the log axis


@dataclass(frozen=True)
class Point:
    """One heuristic on one instance with a proven optimum: its performance ratio (>= 1; None: no value)."""

    family: str
    objective: str
    instance: str
    algorithm: str
    ratio: Fraction | None


def performance_ratio(ratio_to_optimum: Fraction | None, maximized: bool) -> Fraction | None:
    """H / OPT when minimizing, OPT / H when maximizing (None where H is 0 or unknown)."""
    if ratio_to_optimum is None:
        return None
    if not maximized:
        return ratio_to_optimum
    return None if ratio_to_optimum == 0 else 1 / ratio_to_optimum


def store_points(rows: Iterable[dict[str, Any]]) -> list[Point]:
    """The heuristic cells of a store that have a proven optimum (``ratio_points`` of its ratio rows)."""
    return ratio_points(ratio_rows(rows))


def ratio_points(ratios: Iterable[dict[str, Any]]) -> list[Point]:
    """From ``analysis.ratio_rows`` output: the cells with a proven optimum, a
    heuristic named with its options; a cell in error or invalid has no
    ratio (it is never within any r), a relaxed one is left out (the
    format's optimum is not its yardstick)."""
    return [Point(r["family"], r["objective"], r["instance_hash"], algorithm_label(r["algorithm"], r["options"]),
                  performance_ratio(r["ratio_to_optimum"], r["sense"] == "max"))
            for r in ratios if r["kind"] == "heuristic" and r["optimum"] is not None and r["status"] != "relaxed"]


def distinct(points: Iterable[Point]) -> list[Point]:
    """One point per heuristic and instance: the same heuristic run on the
    same instance by two experiments counts once, at its worst ratio (no
    value is worst) should the runs differ."""
    kept: dict[tuple[str, str, str, str], Point] = {}
    for p in points:
        key = (p.family, p.objective, p.instance, p.algorithm)
        old = kept.get(key)
        if old is None or (old.ratio is not None and (p.ratio is None or p.ratio > old.ratio)):
            kept[key] = p
    return list(kept.values())


def ecdf(values: list[Fraction | None]) -> list[tuple[Fraction, Fraction]]:
    """(x, fraction of values <= x) at each distinct value; None counts in the total only."""
    known = sorted(v for v in values if v is not None)
    return [(x, Fraction(bisect_right(known, x), len(values))) for x in sorted(set(known))]


def dolan_more(points: list[Point]) -> dict[str, list[Fraction | None]]:
    """Per algorithm, its ratio to the best algorithm on each instance that
    every algorithm ran on (None: no value there); an instance some did not
    run on compares nothing and is left out."""
    by_instance: dict[str, dict[str, Fraction | None]] = {}
    for p in points:
        by_instance.setdefault(p.instance, {})[p.algorithm] = p.ratio
    algorithms = sorted({p.algorithm for p in points})
    out: dict[str, list[Fraction | None]] = {a: [] for a in algorithms}
    for found in (found for found in by_instance.values() if len(found) == len(algorithms)):
        best = min((r for r in found.values() if r is not None), default=None)
        for algorithm in algorithms:
            ratio = found.get(algorithm)
            out[algorithm].append(None if ratio is None or best is None else ratio / best)
    return out


Solve = tuple[str, str, str, float | None]   # (what it is grouped by, backend, status, seconds)


def store_solves(rows: Iterable[dict[str, Any]]) -> list[Solve]:
    """The solver cells of a store, grouped by family."""
    return [(r["family"], r["algorithm"], r["status"], r["wall_time"]) for r in rows
            if r["kind"] == "solver" and r["wall_time"] is not None]


def logged_solves(path: str | Path) -> list[Solve]:
    """The solves of a benchmark's log: ``bench.frontier`` rows (one backend
    each, grouped by frontier line) or ``bench.optimality_stress`` rows
    (every backend of one instance, grouped by family)."""
    solves: list[Solve] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInputError("--results", f"cannot read {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        try:
            row = json.loads(line)
            if "backend" in row:
                solves.append(_solve(row["line"], row["backend"], row))
            else:
                solves += [_solve(row["family"], backend, row[backend])
                           for backend in families.model_backends() if isinstance(row.get(backend), dict)]
        except (ValueError, KeyError, TypeError) as exc:
            raise UserInputError("--results", f"{path} line {number}: not a frontier or stress row ({exc})") from None
    return solves


def _solve(group: Any, backend: Any, row: dict[str, Any]) -> Solve:
    """One logged solve; a backend that refused the model (too large) has no time and proves nothing."""
    seconds, status = row.get("seconds"), row["status"]
    if not all(isinstance(text, str) for text in (group, backend, status)):
        raise ValueError(f"line, family, backend and status must be texts, got {group!r}, {backend!r}, {status!r}")
    if status in PROVEN or seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < math.inf:
            raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
    return group, backend, status, seconds


def proof_times(solves: Iterable[Solve]) -> dict[str, dict[str, list[Fraction | None]]]:
    """group -> backend -> each solve's seconds to proof (None: not proven)."""
    out: dict[str, dict[str, list[Fraction | None]]] = {}
    for group, backend, status, seconds in solves:
        proven = Fraction(seconds).limit_denominator(1000) if status in PROVEN else None  # to the millisecond
        out.setdefault(group, {}).setdefault(backend, []).append(proven)
    return out


@dataclass(frozen=True)
class Panel:
    """One axes: a step curve per series; ``subject`` (family and objective) heads the figure."""

    subject: str
    title: str
    xlabel: str
    curves: dict[str, list[tuple[Fraction, Fraction]]]
    log_x: bool = False


def ratio_panels(points: list[Point]) -> dict[tuple[str, str], list[Panel]]:
    """(family, objective) -> its ECDF of ratios to OPT and its Dolan-Moré profile."""
    grouped: dict[tuple[str, str], list[Point]] = {}
    for p in distinct(points):
        grouped.setdefault((p.family, p.objective), []).append(p)
    panels = {}
    for (family, objective), members in sorted(grouped.items()):
        algorithms = sorted({p.algorithm for p in members})
        ecdfs = {a: ecdf([p.ratio for p in members if p.algorithm == a]) for a in algorithms}
        compared = dolan_more(members)
        profile = {a: ecdf(ratios) for a, ratios in compared.items()}
        subject = f"{family}, {objective} ({len({p.instance for p in members})} instances)"
        panels[family, objective] = [
            Panel(subject, "ratio to OPT", "H / OPT (OPT / H if maximized)", ecdfs),
            Panel(subject, f"Dolan-Moré profile ({len(next(iter(compared.values())))} run by all)",
                  "tau: within tau of the best heuristic", profile)]
    return panels


def proof_panels(solves: Iterable[Solve]) -> dict[str, list[Panel]]:
    """group (family, or frontier line) -> its time-to-proof panel, one curve per backend."""
    return {group: [Panel(f"{group} ({sum(map(len, times.values()))} solves)", "time to proof",
                          "seconds (under 1 ms drawn at 1 ms)",
                          {backend: ecdf(seconds) for backend, seconds in sorted(times.items())}, log_x=True)]
            for group, times in sorted(proof_times(solves).items())}


def draw_panels(panels: list[Panel], out_dir: Path, stem: str, style: FigureStyle) -> tuple[Path, ...]:
    """The panels side by side, written in the style's formats, and their steps as STEM.csv."""
    with font_context(style):
        figure = new_figure(style, width_factor=len(panels) if style.name == "paper" else 1.0)
        figure.suptitle(panels[0].subject)
        for index, panel in enumerate(panels):
            _draw_panel(figure.add_subplot(1, len(panels), index + 1), panel)
        images = save(figure, out_dir, stem, style)
    table = out_dir / f"{stem}.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(("panel", "series", "x", "fraction", "x_exact", "fraction_exact"))
        writer.writerows((f"{panel.subject}: {panel.title}", series, float(x), float(y), str(x), str(y))
                         for panel in panels for series, steps in panel.curves.items() for x, y in steps)
    return (*images, table)


def _draw_panel(ax, panel: Panel) -> None:
    for series, steps in panel.curves.items():
        slot = series_style(series)
        xs = [max(float(x), LOG_FLOOR) if panel.log_x else float(x) for x, _ in steps]
        ys = [float(y) for _, y in steps]
        ax.step([xs[0] if xs else 1.0, *xs], [0.0, *ys], where="post", label=series, color=slot.colour,
                linestyle=slot.linestyle, marker=slot.marker, markevery=max(1, len(xs) // 8))
    if panel.log_x:
        ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_title(panel.title)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel("fraction of instances")
    ax.grid(True, alpha=0.3)
    if panel.curves:
        ax.legend(loc="lower right")


def draw_profiles(rows: list[dict[str, Any]], points: list[Point], out_dir: Path,
                  style: FigureStyle) -> list[tuple[Path, ...]]:
    """Every family's ratio figure (from ``points``) and time-to-proof figure (from ``rows``)."""
    written = [draw_panels(panels, out_dir, f"profile-{family}-{objective}", style)
               for (family, objective), panels in ratio_panels(points).items()]
    return written + draw_proof_times(store_solves(rows), out_dir, "proof-time", style)


def draw_proof_times(solves: list[Solve], out_dir: Path, prefix: str, style: FigureStyle) -> list[tuple[Path, ...]]:
    """One time-to-proof figure per group, as PREFIX-GROUP (a file name made of the group's name)."""
    panels = proof_panels(solves)
    stems = {group: f"{prefix}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', group).strip('-')}" for group in panels}
    if len(set(stems.values())) < len(stems):
        clash = sorted(group for group in stems if list(stems.values()).count(stems[group]) > 1)
        raise UserInputError("--results", f"the groups {clash} would write the same figure")
    return [draw_panels(panels[group], out_dir, stems[group], style) for group in panels]


def corpus_points(table_path: str | Path) -> list[Point]:
    """Every registered heuristic on every certified optimum of a corpus table
    (as ``regress`` runs them): a failure (invalid, an error) has no ratio, a
    relaxed schedule (no ratio, no problem) is left out, as in a store."""
    from schedbench import families
    from schedbench.harness.regress import replay

    outcomes, _ = replay(table_path)
    return [Point(o.entry.family, o.entry.objective, o.entry.instance, o.heuristic,
                  performance_ratio(o.ratio, families.maximized(o.entry.family, o.entry.objective)))
            for o in outcomes if o.problem or o.ratio is not None]
