"""``schedbench table``, ``plot`` and ``report``: a results store into tables,
figures and an HTML page."""

from pathlib import Path

import click

from schedbench.commands import require_directory, write_output
from schedbench.errors import UserInputError
from schedbench.model import load_instance, load_schedule, schedule_from_json

# Commands import the harness and the family registry inside themselves: `schedbench --help`
# takes 0.15 s, and 0.6 s with them at the top (measured).

STORE = click.argument("store", type=click.Path(dir_okay=False))
EXPERIMENT = click.option("--experiment", default=None, metavar="NAME",
                          help="Only this experiment's cells (default: every cell in the store).")


@click.command()
@STORE
@EXPERIMENT
@click.option("--format", "form", default="markdown", show_default=True,
              help="text, markdown, latex (booktabs), csv or html.")
@click.option("--kind", default="ratios", show_default=True,
              help="ratios (heuristic / optimum and / best bound) or bounds (optima proven, gaps left open).")
@click.option("--precision", default=3, show_default=True, type=click.IntRange(0, 12),
              help="Decimals shown (CSV always gives full precision).")
@click.option("--fractions", is_flag=True, help="Exact fractions instead of decimals (an interval stays decimal).")
@click.option("--out", default=None, type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
def table(store, experiment, form, kind, precision, fractions, out) -> None:
    """Print the ratio or bound table of STORE.

    ratios: per family, size, objective and algorithm, n and the mean (with
    its 95% Student t confidence interval), worst and 95th percentile of
    heuristic / proven optimum and heuristic / best bound; for maximized
    objectives worst is the minimum and the percentile the 5th. Ratios are
    exact; CSV gives full-precision floats and num/den columns.
    """
    from schedbench.harness.analysis import read_store
    from schedbench.harness.tables import render, store_tables

    tables = store_tables(read_store(store, experiment).rows, kind)
    text = render(tables, form, precision, fractions)
    if out:
        write_output(out, text, "--out")
        click.echo(f"{out}: {sum(len(t.rows) for t in tables)} rows")
    elif tables:
        click.echo(text, nl=False)
    else:
        click.echo(f"{store}: no cells to tabulate", err=True)


class _FiguresByDefault(click.Group):
    """``plot STORE ...`` means ``plot figures STORE ...``: figures are the common case."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["figures", *args]
        return super().parse_args(ctx, args)


STYLE = click.option("--style", default="screen", show_default=True, type=click.Choice(["screen", "paper"]),
                     help="screen: PNG and PDF for the report; paper: 3.5 in a panel (one column of a two-column "
                          "paper; a two-panel profile spans both), 8 pt, vector PDF and SVG beside a 300 dpi PNG.")


@click.group(cls=_FiguresByDefault)
def plot() -> None:
    """Draw figures: an experiment's [[figure]] tables, performance profiles, or one schedule's Gantt chart.

    \b
    schedbench plot STORE [--experiment NAME] --out DIR   (= plot figures ...)
    schedbench plot profile STORE --out DIR   (profiles, ECDFs, time to proof; --corpus too)
    schedbench plot gantt INSTANCE_FILE SCHEDULE_FILE --out F.png
    schedbench plot gantt STORE --cell CELL_ID --out F.png
    """


@plot.command()
@STORE
@EXPERIMENT
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for NAME.png, NAME.pdf and NAME.csv.")
@click.option("--statements", "statements_file", type=click.Path(dir_okay=False), default=None,
              help="Also write every figure statement with its verdict as a Markdown table to this file.")
@STYLE
def figures(store, experiment, out, statements_file, style) -> None:
    """Draw every [[figure]] of the experiments run into STORE (their TOML
    as stored with each run) as PNG and PDF (--style paper: PDF, SVG and PNG) into --out, with the numbers
    drawn (and any paired tests) as CSV; means carry 95% CI error bars.
    Each file line is followed by the verdicts of the figure's statements
    (the paper's readings of it). This is what "plot STORE" runs."""
    from schedbench.harness.analysis import read_store
    from schedbench.harness.plots import draw_all, figure_rows, figure_specs
    from schedbench.harness.statements import verdict_rows
    from schedbench.harness.style import figure_style

    require_directory(statements_file, "--statements")
    view = read_store(store, experiment)
    specs = figure_specs(view.runs, experiment)
    if not specs:
        raise UserInputError("STORE", "no [[figure]] table in the experiments run into this store"
                                      + (f" (experiment {experiment})" if experiment else ""))
    drawn_all = draw_all(specs, figure_rows(view.rows), Path(out), view.runs, view.members, figure_style(style))
    for _, drawn in drawn_all:
        click.echo(" ".join(str(p) for p in drawn.paths))
        for statement in drawn.statements:
            click.echo(f"  {statement['claim']}: {statement['verdict']} ({statement['detail']})")
    if statements_file:
        table = ["| figure | claim | the paper says | verdict | numbers read |", "|---|---|---|---|---|"]
        table += [f"| {r['figure']} | {r['claim']} | {r['text']} | {r['verdict']} | {r['detail']} |"
                  for r in verdict_rows(drawn_all)]
        write_output(statements_file, "\n".join(table) + "\n", "--statements")


@plot.command()
@click.argument("store", required=False, type=click.Path(dir_okay=False))
@EXPERIMENT
@click.option("--corpus", "corpus", is_flag=False, flag_value="", default=None, metavar="[TABLE]",
              help="Also profile every heuristic on the certified corpus (the shipped table, or TABLE).")
@click.option("--results", "logs", multiple=True, type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="Also each backend's time to proof in a frontier or stress log (bench/logs/*.jsonl); repeatable.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for the figures and their CSV.")
@STYLE
def profile(store, experiment, corpus, logs, out, style) -> None:
    """Performance profiles of STORE: per family and objective, the ECDF of
    heuristic / optimum and the Dolan-Moré profile (within tau of the best
    heuristic), over every cell with a proven optimum; per family, each
    exact backend's time to proof. With --corpus, the heuristics on the
    certified corpus too (as `regress` runs them), drawn as corpus-*; with
    --results, the time to proof of a frontier or stress benchmark's log
    per frontier line (or family), drawn as results-*."""
    from schedbench.harness.analysis import read_store
    from schedbench.harness.corpus import default_table
    from schedbench.harness.profiles import (corpus_points, draw_panels, draw_profiles, draw_proof_times, logged_solves,
                                             ratio_panels, store_points)
    from schedbench.harness.style import figure_style

    if store is None and corpus is None and not logs:
        raise UserInputError("STORE", "give a results store, --corpus or --results")
    if len({Path(log).stem for log in logs}) < len(logs):
        raise UserInputError("--results", "two logs of the same name would write the same figures: rename one")
    chosen, written = figure_style(style), []
    if store is not None:
        rows = read_store(store, experiment).rows
        written += draw_profiles(rows, store_points(rows), Path(out), chosen)
    if corpus is not None:
        if corpus and not Path(corpus).is_file():
            raise UserInputError("--corpus", f"no corpus table {corpus}")
        points = corpus_points(corpus or default_table())
        written += [draw_panels(panels, Path(out), f"corpus-{family}-{objective}", chosen)
                    for (family, objective), panels in ratio_panels(points).items()]
    for log in logs:
        written += draw_proof_times(logged_solves(log), Path(out), f"results-{Path(log).stem}", chosen)
    if not written:
        raise UserInputError("STORE", "nothing to profile: no heuristic cell with a proven optimum and no solve cell")
    for paths in written:
        click.echo(" ".join(str(p) for p in paths))


@plot.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("schedule_file", required=False, type=click.Path(dir_okay=False))
@click.option("--cell", default=None, metavar="CELL_ID", help="SOURCE is a store: draw this cell's schedule "
                                                                "(a unique prefix of its id will do).")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The chart, .png or .pdf.")
def gantt(source, schedule_file, cell, out) -> None:
    """Draw a Gantt chart of one schedule: one lane per machine, one colour
    per user / organization / job.

    \b
    plot gantt INSTANCE_FILE SCHEDULE_FILE --out F.png
    plot gantt STORE --cell CELL_ID --out F.png
    The second rebuilds the cell's instance from its generator call and
    draws the schedule stored with it. A schedule the validator rejects
    (the format's rules, as `validate` checks them; a cell's: its objective's,
    and a heuristic's own references, as the run checked it) is drawn
    under its first violation, with a warning.
    """
    require_directory(out, "--out")
    if cell is None:
        if schedule_file is None:
            raise UserInputError("SCHEDULE_FILE", "give INSTANCE_FILE SCHEDULE_FILE, or STORE --cell CELL_ID")
        instance = load_instance(source)
        _draw(instance, load_schedule(instance, schedule_file), "", None, None, Path(out))
        return
    if schedule_file is not None:
        raise UserInputError("SCHEDULE_FILE", "with --cell, give only the STORE")
    _draw(*_stored_schedule(source, cell), Path(out))


def _draw(instance, schedule, title: str, objective: str | None, heuristic: str | None, out: Path) -> None:
    """Draw the chart; a schedule the validator rejects is still drawn (that
    is how one debugs it), but its first violation heads the chart and is
    said on stderr: never shown as if it were a schedule."""
    from schedbench.harness.plots import gantt_of
    from schedbench.families import violations

    broken = violations(instance, schedule, objective, heuristic)
    if broken:
        click.echo(f"schedbench: warning: the schedule is invalid ({len(broken)} violations): {broken[0]}", err=True)
    click.echo(gantt_of(instance, schedule, out, title, f"INVALID: {str(broken[0])[:100]}" if broken else ""))


def _stored_schedule(store: str, cell: str):
    """(instance, schedule, title, objective, heuristic) of a stored cell
    (heuristic: the algorithm of a heuristic's cell, else None), checking the
    rebuilt instance is the one that ran."""
    import json
    import re

    from schedbench.harness.cells import instance_hash
    from schedbench.harness.experiment import rebuild_instance
    from schedbench.harness.store import Store

    if not re.fullmatch(r"[0-9a-f]+", cell):
        raise UserInputError("--cell", f"a cell id is hexadecimal, got {cell!r}")
    with Store(store, create=False) as db:
        found = list(db.rows("cell_id LIKE ?", (cell + "%",)))
    if len(found) != 1:
        more = " (give more of the id)" if found else ""
        raise UserInputError("--cell", f"{len(found)} cells match {cell!r}{more}")
    row = found[0]
    if row["schedule"] is None:
        raise UserInputError("--cell", f"cell {row['cell_id'][:12]} has no stored schedule (status {row['status']}; "
                                       "or its grid has keep_schedules = false)")
    instance = rebuild_instance(row)
    if row["instance_hash"] and instance_hash(instance) != row["instance_hash"]:
        raise UserInputError("--cell", "its generator now builds a different instance than the one stored "
                                       "(the code changed since the run)")
    title = f"{row['algorithm']} on {row['instance_name'] or row['generator']} (seed {row['seed']}), {row['objective']}"
    if row["status"] not in ("optimal", "feasible"):  # relaxed: valid against its own references only
        title += f" [{row['status']}]"
    try:
        stored = json.loads(row["schedule"])
    except (TypeError, ValueError, RecursionError):
        raise UserInputError("--cell", f"cell {row['cell_id'][:12]}'s stored schedule is not JSON "
                                       "(not as a run writes it: was the store edited?)") from None
    heuristic = row["algorithm"] if row["kind"] == "heuristic" else None
    return instance, schedule_from_json(instance, stored), title, row["objective"], heuristic


@click.command()
@STORE
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for index.html and the figures.")
@EXPERIMENT
def report(store, out, experiment) -> None:
    """Write a self-contained HTML report of STORE to --out/index.html:
    provenance of every run, the ratio and bound tables, the figures (also
    as PNG/PDF files beside it) and the claims ledger with downloadable
    counterexamples."""
    from schedbench.harness.html_report import write_report

    click.echo(write_report(store, out, experiment))


COMMANDS = [table, plot, report]
