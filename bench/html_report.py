"""The HTML report of a results store: one self-contained page.

DIR/index.html carries everything inline (CSS, figures as base64 PNG,
counterexample instances as data: links), so it can be mailed or archived
alone; the figures are also written beside it as PNG and PDF. The one
exception is a counterexample too large to inline (a claim observed on a
whole synthetic workload, which no shrinking applies to): it is written to
DIR/counterexamples/ and linked from there, so that the page stays light.
All text from the store is escaped.
"""

import base64
import json
import re
from collections import Counter
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from schedbench.bench import analysis, plots, tables
from schedbench.bench.store import canonical
from schedbench.bench.statements import verdict_rows

STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1200px; color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #446; } h2 { margin-top: 2em; color: #335; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.5em; vertical-align: top; }
th { background: #e8eaf2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #f6f7fa; }
.note { font-size: 0.85em; color: #555; } .error { color: #a00; font-weight: bold; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
code { font-size: 0.9em; }
"""
FAILED_SHOWN = 20
INLINE_MAX = 64 * 1024   # bytes of JSON a counterexample may carry inside the page


def write_report(store: str | Path, out: str | Path, experiment: str | None = None) -> Path:
    """Write OUT/index.html (and the figures' PNG/PDF files) for ``store``,
    restricted to one experiment if named; returns the page's path."""
    view = analysis.read_store(store, experiment)
    rows = view.rows
    runs = [r for r in view.runs if experiment is None or r["experiment"] == experiment]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    title = f"schedbench report: {experiment or Path(store).name}"
    if rows:
        body = [_provenance(runs, rows), _results(view, experiment, out), _claims(rows, out), _failures(rows)]
    else:
        body = [_provenance(runs, rows), "<p class=\"error\">This store holds no cells"
                + (f" of experiment {escape(experiment)}" if experiment else "") + ": nothing to report.</p>"]
    page = out / "index.html"
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    page.write_text(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
                    f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>"
                    f"<p class=\"note\">Store <code>{escape(str(store))}</code>, {len(rows)} cells; "
                    f"generated {generated}.</p>{''.join(body)}</body></html>\n", encoding="utf-8")
    return page


def _table(headers: list[str], rows: list[list[str]], caption: str = "") -> str:
    """An HTML table of already escaped cells."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table>{f'<caption>{escape(caption)}</caption>' if caption else ''}<thead><tr>{head}</tr></thead>" \
           f"<tbody>{body}</tbody></table>"


def _statuses(rows: list[dict[str, Any]]) -> str:
    counts = Counter(r["status"] for r in rows)
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda item: str(item[0])))


def _versions(text: str | None) -> str:
    values = json.loads(text) if text else {}
    return ", ".join(f"{k} {v}" for k, v in values.items()) if isinstance(values, dict) else str(values)


def _provenance(runs: list[dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    """Each run: what was run, where, with which versions, and what became of its cells."""
    by_run: dict[Any, list] = {}
    for row in rows:
        by_run.setdefault(row["run_id"], []).append(row)
    table = [[escape(str(run["run_id"])), escape(str(run["experiment"])) + (" (quick)" if run["quick"] else ""),
              f"<code>{escape(str(run['command']))}</code>", escape(str(run["started_at"])),
              escape(str(run["machine"])), escape(_versions(run["versions"])),
              escape(_statuses(by_run.get(run["run_id"], [])) or "none"),
              f"{sum(r['wall_time'] or 0 for r in by_run.get(run['run_id'], [])):.1f} s"] for run in runs]
    total = sum(r["wall_time"] or 0 for r in rows)
    parts = ["<h2>Provenance</h2>",
             f"<p>{len(rows)} cells ({escape(_statuses(rows) or 'none')}); cell wall time {total:.1f} s in all.</p>"]
    if runs:
        parts.append(_table(["run", "experiment", "command", "started", "machine", "versions", "cells per status",
                             "cell wall time"], table))
    return "".join(parts)


def _results(view: analysis.StoreView, experiment: str | None, out: Path) -> str:
    """The ratio and bound tables and the figures; a store that contradicts
    itself gets the reason in their place, the rest of the report still stands."""
    try:
        joined = plots.figure_rows(view.rows)   # every row, heuristic rows with their ratios
        instances = analysis.instance_rows(view.rows)
    except analysis.ConflictingResults as exc:
        return f"<h2>Ratios, bounds and figures</h2><p class=\"error\">None computed: {escape(str(exc))}</p>"
    ratio = tables.ratio_tables([r for r in joined if r["kind"] == "heuristic"])
    parts = ["<h2>Ratios</h2>", tables.html_tables(ratio) or "<p>No heuristic cells.</p>", "<h2>Bounds</h2>",
             tables.html_tables([tables.bound_table(instances)]) if instances else "<p>No cells with an objective.</p>"]
    specs = plots.figure_specs(view.runs, experiment)
    drawn_all = plots.draw_all(specs, joined, out, view.runs, view.members)
    if specs:
        parts += ["<h2>Figures</h2>", _statements(drawn_all)]
    for spec, drawn in drawn_all:
        data = base64.b64encode(drawn.png.read_bytes()).decode("ascii")
        caption = escape(spec.get("title", spec["name"]))
        links = ", ".join(f"<a href=\"{escape(p.name)}\">{escape(p.name)}</a>" for p in drawn.paths)
        parts.append(f"<figure><img src=\"data:image/png;base64,{data}\" alt=\"{caption}\">"
                     f"<figcaption>{caption} ({links})</figcaption></figure>" + _figure_numbers(drawn))
    return "".join(parts)


def _statements(drawn_all: list[tuple[dict, plots.Drawn]]) -> str:
    """The papers' statements about the figures, each with its verdict on the numbers drawn."""
    rows = [[f"<code>{escape(r['claim'])}</code>", escape(r["figure"]), escape(r["text"]),
             (f"<span class=\"error\">{r['verdict']}</span>" if r["verdict"] == "violated" else escape(r["verdict"])),
             escape(r["detail"])] for r in verdict_rows(drawn_all)]
    return _table(["claim", "figure", "the paper says", "verdict", "numbers read"], rows,
                  "The papers' statements about these figures, checked on the numbers drawn") if rows else ""


def _figure_numbers(drawn: plots.Drawn) -> str:
    """The numbers under a figure, folded: what is drawn, and its paired tests."""
    shown = _table(["series", "x", "n", "missing", "stat", "centre", "95% interval", "min", "max"],
                   [[escape(r["series"]), escape(r["x"]), str(r["n"]), str(r["missing"]), r["stat"],
                     _shown(r["centre"]), f"[{_shown(r['low'])}, {_shown(r['high'])}]", _shown(r["min"]),
                     _shown(r["max"])] for r in drawn.shown])
    tests = _table(["x", "A", "B", "pairs", "mean A - B", "t", "p"],
                   [[escape(r["x"]), escape(r["a"]), escape(r["b"]), str(r["pairs"]), _shown(r["mean_difference"]),
                     _shown(r["t"]), _shown(r["p"])] for r in drawn.tests],
                   "Paired t-tests") if drawn.tests else ""
    verdicts = "".join(f"<p class=\"note\">{escape(r['claim'])}: <b>{escape(r['verdict'])}</b> ({escape(r['detail'])})"
                       f"</p>" for r in drawn.statements)
    return f"{verdicts}<details><summary>numbers drawn</summary>{tests}{shown}</details>"


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


def _claims(rows: list[dict[str, Any]], out: Path) -> str:
    """The claims ledger: per claim, the instances tried and skipped, the
    violations, the worst ratio seen and each shrunk counterexample."""
    ledger = analysis.claims_ledger(rows)
    failed = [r for r in rows if r["kind"] == "claims" and r["status"] != "done"]
    if not ledger and not failed:
        return ""
    table = [[escape(c["family"]), f"<code>{escape(c['key'])}</code>", escape(c["source"] or "-"),
              escape(c["statement"]), str(c["tried"]),
              str(c["skipped"]), (f"<span class=\"error\">{c['violations']}</span>" if c["violations"] else "0"),
              "-" if c["worst"] is None else f"{float(c['worst']):.4f} ({escape(str(c['worst']))})",
              ", ".join(_download(name, instance, out) for name, instance in sorted(c["counterexamples"].items()))
              or "-"] for c in ledger]
    parts = ["<h2>Claims ledger</h2>",
             "<p class=\"note\">whose: <b>paper</b>, a statement the paper makes (a violation refutes it); "
             "<b>project</b>, a check this project adds (a paper's statement outside its setting, a variant, "
             "a sanity check).</p>",
             _table(["family", "claim", "whose", "statement", "tried", "skipped", "violations", "worst ratio",
                     "counterexamples"], table)]
    parts += [f"<p class=\"error\">claims ledger {escape(str(r['family']))} ended {escape(str(r['status']))}: "
              f"{escape(str(r['error']))}</p>" for r in failed]
    return "".join(parts)


def _failures(rows: list[dict[str, Any]]) -> str:
    """Cells that ended in error or with an invalid schedule, first ones shown."""
    failed = [r for r in rows if r["status"] in ("error", "invalid") and r["kind"] != "claims"]
    if not failed:
        return ""
    table = [[escape(str(r[k])) for k in ("family", "generator", "seed", "objective", "algorithm", "status")]
             + [f"<code>{escape(str(r['cell_id'])[:12])}</code>", escape(str(r["error"]))]
             for r in failed[:FAILED_SHOWN]]
    more = f"<p class=\"note\">... and {len(failed) - FAILED_SHOWN} more.</p>" if len(failed) > FAILED_SHOWN else ""
    return (f"<h2>Failed cells</h2><p class=\"error\">{len(failed)} cells ended in error or with an invalid "
            f"schedule.</p>" + _table(["family", "generator", "seed", "objective", "algorithm", "status", "cell",
                                       "error"], table) + more)
