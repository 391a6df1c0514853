"""The HTML report of a results store: one self-contained page that leads
with the answer.

The page (``templates/report.html.j2``) opens on a summary: how many claims
held and how many were violated, the run's size and cost, the performance
profiles and ECDFs of heuristic / optimum per family and objective
(``profiles``), the headline heuristic / optimum, then every claim's verdict
with its smallest counterexample (a file and, where the claim names a
heuristic, its Gantt chart on that instance). Per-family sections follow
(figures, their statements' verdicts, the ratio tables folded), then the
figures' statements, the provenance and the failed cells.

DIR/index.html carries everything inline (figures as base64 PNG,
counterexample instances as data: links), so it can be mailed or archived
alone; the figures are also written beside it as PNG and PDF. A
counterexample too large to inline (a claim observed on a whole synthetic
workload, which no shrinking applies to) is written to DIR/counterexamples/
and linked from there. Jinja2 escapes all text from the store.
"""

import base64
import json
import re
import struct
import tempfile
import tomllib
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from fractions import Fraction
from html import escape
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from schedbench import families
from schedbench.harness import analysis, plots, profiles, tables
from schedbench.harness.statements import verdict_rows
from schedbench.harness.store import canonical
from schedbench.harness.style import STYLES
from schedbench.model import parse_instance

FAILED_SHOWN = 20
INLINE_MAX = 64 * 1024   # bytes of JSON a counterexample may carry inside the page
GANTT_JOBS_MAX = 60      # a counterexample's Gantt chart is drawn up to this many jobs
TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                        autoescape=select_autoescape(["html", "j2"]))


def write_report(store: str | Path, out: str | Path, experiment: str | None = None) -> Path:
    """Write OUT/index.html (and the figures' PNG/PDF files) for ``store``,
    restricted to one experiment if named; returns the page's path."""
    view = analysis.read_store(store, experiment)
    rows = view.rows
    runs = [r for r in view.runs if experiment is None or r["experiment"] == experiment]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    context = {"title": f"schedbench report: {experiment or Path(store).name}", "store": str(store),
               "experiment": experiment, "cells": len(rows), "statuses": _statuses(rows) or "none",
               "wall": sum(r["wall_time"] or 0 for r in rows),
               "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               "runs": _provenance(runs, rows), "failed_shown": FAILED_SHOWN,
               "failed": [r for r in rows if r["status"] in ("error", "invalid") and r["kind"] != "claims"],
               **_claims(rows, out), **(_results(view, experiment, out) if rows else {"families": []})}
    page = out / "index.html"
    page.write_text(TEMPLATES.get_template("report.html.j2").render(**context), encoding="utf-8")
    return page


def _statuses(rows: list[dict[str, Any]]) -> str:
    counts = Counter(r["status"] for r in rows)
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda item: str(item[0])))


def _versions(text: str | None) -> str:
    values = json.loads(text) if text else {}
    return ", ".join(f"{k} {v}" for k, v in values.items()) if isinstance(values, dict) else str(values)


def _provenance(runs: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each run: what was run, where, with which versions, and what became of its cells."""
    by_run: dict[Any, list] = {}
    for row in rows:
        by_run.setdefault(row["run_id"], []).append(row)
    return [{"run_id": run["run_id"], "experiment": str(run["experiment"]) + (" (quick)" if run["quick"] else ""),
             "command": run["command"], "started": run["started_at"], "machine": run["machine"],
             "versions": _versions(run["versions"]), "statuses": _statuses(by_run.get(run["run_id"], [])) or "none",
             "wall": f"{sum(r['wall_time'] or 0 for r in by_run.get(run['run_id'], [])):.1f} s"} for run in runs]


def _results(view: analysis.StoreView, experiment: str | None, out: Path) -> dict[str, Any]:
    """The headline ratios, and per family its figures and folded tables; a
    store that contradicts itself gets the reason instead, the rest stands."""
    try:
        joined = plots.figure_rows(view.rows)   # every row, heuristic rows with their ratios
        instances = analysis.instance_rows(view.rows)
    except analysis.ConflictingResults as exc:
        return {"families": [], "results_error": str(exc)}
    heuristic_rows = [r for r in joined if r["kind"] == "heuristic"]
    specs = plots.figure_specs(view.runs, experiment)
    drawn_all = plots.draw_all(specs, joined, out, view.runs, view.members)
    grids = _grid_families(view.runs)
    sections: dict[str, dict[str, Any]] = {}
    for family in sorted({r["family"] for r in view.rows if r["kind"] != "claims"}):
        chosen = [r for r in heuristic_rows if r["family"] == family]
        shown = tables.ratio_tables(chosen) + ([tables.bound_table(b)] if (b := [i for i in instances
                                                                                  if i["family"] == family]) else [])
        sections[family] = {"name": family, "figures": [], "tables": tables.html_tables(shown),
                            "rows": sum(len(t.rows) for t in shown)}
    for (experiment_name, spec), (_, drawn) in zip(specs, drawn_all):
        family = _one_family(spec.get("where", {}).get("family")) or grids.get(experiment_name) or "other"
        sections.setdefault(family, {"name": family, "figures": [], "tables": "", "rows": 0})
        sections[family]["figures"].append(_figure(spec, drawn, out))
    return {"families": list(sections.values()), "headline": _headline(heuristic_rows),
            "statements": verdict_rows(drawn_all), "profiles": _profiles(view.rows, heuristic_rows, out)}


def _profiles(rows: list[dict[str, Any]], ratios: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """The distributions across instances (``profiles``) of the heuristic rows
    already joined to their ratios, drawn into OUT/profiles and inlined."""
    drawn = profiles.draw_profiles(rows, profiles.ratio_points(ratios), out / "profiles", STYLES["screen"])
    return [{**_inline_png(next(p for p in paths if p.suffix == ".png")), "caption": paths[0].stem,
             "links": _links(paths, out, lambda path: path.suffix[1:])} for paths in drawn]


def _inline_png(path: Path) -> dict[str, Any]:
    """A PNG as base64 with its size (read from the header's IHDR), for an <img> that needs nothing beside the page."""
    data = path.read_bytes()
    width, height = struct.unpack(">II", data[16:24])
    return {"png": base64.b64encode(data).decode("ascii"), "width": width, "height": height}


def _links(paths: tuple[Path, ...], out: Path, text: Callable[[Path], str] = lambda path: path.name) -> str:
    """Links to files beside the page, each shown as ``text(path)``."""
    return ", ".join(f"<a href=\"{escape(p.relative_to(out).as_posix())}\">{escape(text(p))}</a>" for p in paths)


def _one_family(wanted: Any) -> str | None:
    """A figure's ``where.family`` when it selects exactly one family."""
    if isinstance(wanted, list):
        return wanted[0] if len(wanted) == 1 else None
    return wanted


def _grid_families(runs: list[dict[str, Any]]) -> dict[str, str]:
    """Experiment -> its family, for experiments whose grids are all of one family."""
    out = {}
    for run in runs:
        try:
            grids = tomllib.loads(run["experiment_text"] or "").get("grid", [])
        except tomllib.TOMLDecodeError:
            continue
        families = {g.get("family") for g in grids if isinstance(g, dict)}
        if len(families) == 1:
            out[run["experiment"]] = families.pop()
    return out


def _figure(spec: dict[str, Any], drawn: plots.Drawn, out: Path) -> dict[str, Any]:
    numbers = tables_html(["series", "x", "n", "missing", "stat", "centre", "95% interval", "min", "max"],
                          [[r["series"], r["x"], r["n"], r["missing"], r["stat"], _shown(r["centre"]),
                            f"[{_shown(r['low'])}, {_shown(r['high'])}]", _shown(r["min"]), _shown(r["max"])]
                           for r in drawn.shown])
    if drawn.tests:
        numbers = tables_html(["x", "A", "B", "pairs", "mean A - B", "t", "p"],
                              [[r["x"], r["a"], r["b"], r["pairs"], _shown(r["mean_difference"]), _shown(r["t"]),
                                _shown(r["p"])] for r in drawn.tests], "Paired t-tests") + numbers
    return {**_inline_png(drawn.png), "caption": spec.get("title", spec["name"]), "statements": drawn.statements,
            "numbers": numbers, "links": _links(drawn.paths, out)}


def tables_html(headers: list[str], rows: list[list[Any]], caption: str = "") -> str:
    """An HTML table, every cell escaped."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table>{f'<caption>{escape(caption)}</caption>' if caption else ''}<thead><tr>{head}</tr></thead>" \
           f"<tbody>{body}</tbody></table>"


def _headline(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per family, objective and heuristic: cells with a proven optimum, the
    mean and the worst heuristic / optimum (the smallest, when maximised)."""
    groups: dict[tuple, list[Fraction]] = {}
    senses = {}
    for r in rows:
        if r["ratio_to_optimum"] is not None:
            groups.setdefault((r["family"], r["objective"], r["algorithm"]), []).append(r["ratio_to_optimum"])
            senses[r["family"], r["objective"]] = r["sense"]
    out: dict[str, list] = {}
    for (family, objective, algorithm), ratios in sorted(groups.items()):
        worst = min(ratios) if senses[family, objective] == "max" else max(ratios)
        out.setdefault(family, []).append({"objective": objective, "algorithm": algorithm, "n": len(ratios),
                                           "mean": f"{float(sum(ratios) / len(ratios)):.3f}",
                                           "worst": f"{float(worst):.3f}"})
    return [{"family": family, "rows": found} for family, found in out.items()]


def _shown(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _download(name: str, instance: dict, out: Path) -> str:
    """A link that saves the counterexample's instance JSON: carried inside the
    page, or, past INLINE_MAX, in a file under OUT/counterexamples/."""
    text = canonical(instance)
    if len(text) <= INLINE_MAX:
        data = base64.b64encode(text.encode()).decode("ascii")
        return f"<a download=\"{escape(name)}.json\" href=\"data:application/json;base64,{data}\">{escape(name)}</a>"
    path = out / "counterexamples" / (re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".json")  # a store's text, not a path
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return (f"<a href=\"{escape(path.relative_to(out).as_posix())}\">{escape(name)}</a> "
            f"<span class=\"note\">({len(text) // 1024} KB, beside the page)</span>")


VERDICT_ORDER = {("violated", "paper"): 0, ("violated", "project"): 1, ("held", "paper"): 2,
                 ("held", "project"): 3}


def _claims(rows: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    """The claims ledger: per claim, its verdict, the instances tried and
    skipped, the worst ratio seen and each shrunk counterexample."""
    ledger = analysis.claims_ledger(rows)
    claims = []
    for c in ledger:
        verdict = "violated" if c["violations"] else ("held" if c["tried"] else "no data")
        names = sorted(c["counterexamples"].items())
        smallest = min(names, key=lambda item: len(canonical(item[1])), default=None)
        others = [item for item in names if item is not smallest]   # the smallest is in the summary, once
        claims.append({**c, "verdict": verdict if verdict != "violated" else f"violated ({c['violations']})",
                       "verdict_class": {"violated": "violated", "held": "held"}.get(verdict, "nodata"),
                       "order": VERDICT_ORDER.get((verdict, c["source"]), 4),
                       "worst": "-" if c["worst"] is None else f"{float(c['worst']):.4f}",
                       "worst_exact": "-" if c["worst"] is None else f"{float(c['worst']):.4f} ({c['worst']})",
                       "links": ", ".join(["the smallest: in the summary"] * (smallest is not None)
                                          + [_download(name, instance, out) for name, instance in others]) or "-",
                       "smallest": None if smallest is None else _smallest(c, *smallest, out)})
    failed = [r for r in rows if r["kind"] == "claims" and r["status"] != "done"]
    held = sum(c["verdict"] == "held" for c in claims)
    violated = [c for c in claims if c["violations"]]
    return {"claims": claims, "claims_first": sorted(claims, key=lambda c: (c["order"], c["key"])),
            "verdicts": {"held": held, "violated": len(violated),
                         "violated_paper": sum(c["source"] == "paper" for c in violated),
                         "violated_project": sum(c["source"] != "paper" for c in violated)},
            "claims_failed": [f"claims ledger {r['family']} ended {r['status']}: {r['error']}" for r in failed]}


def _smallest(claim: dict[str, Any], name: str, instance: dict, out: Path) -> dict[str, Any]:
    """The smallest counterexample's link and, when the claim names one of the
    instance's family's heuristics, that heuristic's schedule on it as a Gantt chart."""
    found = {"name": name, "link": _download(name, instance, out), "heuristic": None, "gantt": None}
    if len(canonical(instance)) > INLINE_MAX:
        return found
    parsed = parse_instance(instance)
    heuristic = illustrating_heuristic(claim["key"], parsed.family)
    if heuristic is None or families.size(parsed).jobs > GANTT_JOBS_MAX:
        return found
    schedule = families.heuristics(parsed.family)[heuristic](parsed)
    if families.violations(parsed, schedule, None, heuristic):   # only a schedule the validator accepts is drawn
        return found
    with tempfile.TemporaryDirectory() as folder:
        png = plots.gantt_of(parsed, schedule, Path(folder) / "gantt.png", f"{heuristic} on {name}")
        found.update(heuristic=heuristic, gantt=base64.b64encode(png.read_bytes()).decode("ascii"))
    return found


def illustrating_heuristic(key: str, family: str) -> str | None:
    """The heuristic a claim key names (``faircamp.thm1``, ``mosp.graham.ilba``,
    ``dssp.thm1.lcpf``): the first dotted part that is one of the family's heuristics."""
    known = families.heuristics(family)
    return next((part for part in key.split(".") if part in known), None)
