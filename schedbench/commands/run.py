"""``schedbench run``, ``merge`` and ``export``: experiments into a results store."""

import os
import sys
from importlib.resources import files
from pathlib import Path

import click

from schedbench.errors import UserInputError

# Commands import the harness inside themselves: `schedbench --help`
# takes 0.15 s, and 0.6 s with it at the top (measured).

DEFAULT_STORE = "schedbench-results.sqlite"


def shipped_experiments() -> list[Path]:
    """The paper experiments shipped under bench/experiments/ (the package
    ``schedbench.experiments``, inside the wheel too)."""
    return sorted(Path(str(files("schedbench.experiments"))).glob("*.toml"))


@click.command()
@click.argument("experiments", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--quick", is_flag=True, help="Use each grid's quick overrides (the README's main command).")
@click.option("--store", default=DEFAULT_STORE, show_default=True, type=click.Path(dir_okay=False),
              help="SQLite results store; cells already in it are skipped (resume).")
@click.option("--workers", type=click.IntRange(min=1, max=1024), default=None,
              help="Local worker processes (default: the CPU count; 1 runs in this process).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Run on the Dask distributed scheduler at ADDRESS (e.g. tcp://host:8786) instead.")
@click.option("--batch", default=None, metavar="K/N", help="Run only batch K of N (job arrays); merge the stores later.")
@click.option("--report", "report_dir", default=None, type=click.Path(file_okay=False),
              help="Then write the HTML report (tables, figures, claims ledger) of the store to this folder.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar on stderr.")
def run(experiments, quick, store, workers, cluster, batch, report_dir, progress) -> None:
    """Run EXPERIMENTS (TOML files; default: every paper experiment shipped
    under bench/experiments/) cell by cell into --store.

    A killed run loses at most the cells in flight; run it again to finish.
    Exit 1 if any cell ended in error or produced an invalid schedule.
    """
    from tqdm import tqdm

    from schedbench.harness.experiment import load, parse_batch
    from schedbench.harness.runner import pending_tasks, run_experiment
    from schedbench.harness.store import Store

    span = parse_batch(batch)
    chosen = [load(p, quick, span) for p in (experiments or shipped_experiments())]
    names = [e.name for e in chosen]
    if len(set(names)) != len(names):
        raise UserInputError("EXPERIMENTS", f"two experiments share a name: {names}")
    failed = 0
    with Store(store) as db:
        pending = len({c.cell_id for e in chosen for t in pending_tasks(e, db)[0] for c in t.cells})
        with tqdm(total=pending, unit="cell", file=sys.stderr, disable=not progress, smoothing=0.1) as bar:
            for experiment in chosen:
                bar.set_description(experiment.name)
                summary = run_experiment(experiment, db, workers or os.cpu_count() or 1, cluster,
                                         " ".join(sys.argv), bar.update)
                statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.statuses.items())) or "nothing new"
                bar.write(f"{summary.experiment}: {summary.cells} cells, {summary.skipped} already stored, "
                          f"ran {summary.ran} ({statuses})")
                failed += summary.statuses.get("error", 0) + summary.statuses.get("invalid", 0)
    if report_dir:
        from schedbench.harness.html_report import write_report

        click.echo(f"report: {write_report(store, report_dir)}")
    if failed:
        click.echo(f"schedbench: {failed} cells ended in error or an invalid schedule (status error/invalid "
                   f"in {store})", err=True)
        sys.exit(1)


@click.command()
@click.argument("out", type=click.Path(dir_okay=False))
@click.argument("stores", nargs=-1, required=True, type=click.Path(dir_okay=False))
def merge(out, stores) -> None:
    """Join STORES (e.g. batches run on other machines) into OUT without duplicates.

    A cell already in OUT is kept; cells whose stored values differ between
    stores (a time-limited solve, say) are listed.
    """
    from schedbench.harness.store import Store

    for path in stores:  # every source is checked before OUT is touched: no half merge, no empty OUT left
        if Path(path).resolve() == Path(out).resolve():
            raise UserInputError("STORES", f"{path} is the output store itself")
        with Store(path, create=False) as source:  # a run or cell edited by hand is refused here, not halfway
            source.runs()
            for _ in source.rows():
                pass
    with Store(out) as db:
        for path in stores:
            added, differ = db.merge(path)
            click.echo(f"{path}: {added} cells added" + (f", {len(differ)} differ from the stored ones" if differ
                                                          else ""))
            for cell_id in differ:
                click.echo(f"  differs: {cell_id}")
        click.echo(f"{out}: {db.count()} cells")


@click.command()
@click.argument("store", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="A .csv or .parquet file.")
def export(store, out) -> None:
    """Write every cell of STORE to a CSV or Parquet file (exact values as num/den text)."""
    from schedbench.harness.store import Store

    with Store(store, create=False) as db:
        click.echo(f"{out}: {db.export(out)} cells")


COMMANDS = [run, merge, export]
