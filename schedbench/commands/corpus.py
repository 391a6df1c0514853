"""``schedbench certify`` and ``regress``: the certified corpus and the
heuristics' regression test against it."""

import json
import sys
import time
from pathlib import Path

import click

from schedbench.commands import SECONDS
from schedbench.errors import UserInputError
from schedbench.model import FAMILIES
from schedbench.user_code import load_function

# Commands import the certified corpus and its regression test inside themselves: `schedbench --help`
# takes 0.15 s, and 0.6 s with them at the top (measured).


def _bar(description: str, unit: str):
    """A progress wrapper for an iterable of ``total`` items: tqdm on stderr."""
    from tqdm import tqdm

    return lambda items, total=None: tqdm(items, total=total, desc=description, unit=unit, file=sys.stderr,
                                          disable=None)


def _table_path(table):
    from schedbench.harness.corpus import default_table

    return table or default_table()


@click.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--objective", "objectives", multiple=True,
              help="Objective to certify (repeatable); default: every objective of the instance's family.")
@click.option("--time-limit", type=SECONDS, default=10.0, show_default=True,
              help="Seconds per backend per (instance, objective).")
@click.option("--table", type=click.Path(dir_okay=False), default=None,
              help="Known-values table; default: the shipped instances/corpus/known_values.csv.")
@click.option("--workers", type=click.IntRange(min=1, max=1024), default=1, show_default=True,
              help="Local worker processes (each solves one pair with both backends).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Solve on the Dask distributed scheduler at ADDRESS instead; this process writes the table.")
def certify(files, objectives, time_limit, table, workers, cluster) -> None:
    """Certify FILES (default: every corpus instance not yet opt or
    infeasible) with both backends and merge what is proven into the table.

    opt needs CP-SAT and MILP to prove the same optimum, or one proof equal
    to the family's cheap bound; infeasible needs both. A file outside the
    table's folder is copied in as <family>/<file name>. Entries never get
    worse. Exit 1, naming them, when proofs contradict each other (those
    entries are not written).
    """
    from schedbench.harness.corpus import read_table, same_verdict, status_counts
    from schedbench.harness.corpus import certify as run_certify

    path = _table_path(table)
    report = run_certify(files, objectives, time_limit, path, _bar("certify", "entry"), workers, cluster)
    changed = undecided = 0
    for old, new, instance, objective in report.changes:
        if new is None:
            undecided += 1
            click.echo(f"{instance} {objective}: undecided in {time_limit:g} s")
        elif old is not None and same_verdict(old, new):
            if new.time_limit > old.time_limit:  # nothing learnt but how long it resisted
                click.echo(f"{instance} {objective}: still {new.status} after {new.time_limit:g} s")
        else:
            changed += 1
            value = "" if new.value is None else f" value {new.value}"
            bound = "" if new.bound is None else f" bound {new.bound}"
            was = f"was {old.status}" if old else "new"
            click.echo(f"{instance} {objective}: {new.status}{value}{bound} ({new.solvers}; {was})")
    tried = len(report.changes) + len(report.refused)
    click.echo(f"{tried} entries tried: {changed} changed, {tried - changed - undecided - len(report.refused)} "
               f"unchanged, {undecided} undecided, {len(report.refused)} refused")
    click.echo(f"{path}:")
    for family, counts in sorted(status_counts(read_table(path)).items()):
        click.echo(f"  {family:16} " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    if report.refused:
        for line in report.refused:
            click.echo(f"schedbench: refused {line}", err=True)
        sys.exit(1)


@click.command()
@click.option("--update", is_flag=True,
              help="Record new and improved ratios in the baseline, drop stale rows (worse ones still fail).")
@click.option("--family", default=None, help="Only this family's entries (required with --heuristic).")
@click.option("--heuristic", "spec", default=None, metavar="MODULE:FUNCTION",
              help="Instead: the ratio table of your function f(instance) -> schedule "
                   "(importable module, or path/to/file.py:function) on --family's certified optima.")
@click.option("--table", type=click.Path(dir_okay=False), default=None,
              help="Known-values table; default: the shipped instances/corpus/known_values.csv.")
@click.option("--baseline", type=click.Path(dir_okay=False), default=None,
              help="Ratio baseline; default: heuristic_ratios.csv beside the table.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the outcome as JSON (ratios as [num, den]) instead of the tables.")
def regress(update, family, spec, table, baseline, as_json) -> None:
    """Replay every heuristic on every certified optimum and compare each
    exact ratio value / optimum with the baseline.

    Exit 1, listing each, when a ratio got worse (higher; lower for a
    maximised objective), a schedule stopped validating or a heuristic
    crashed or stopped applying. Improvements and new heuristics are
    reported; --update records them.
    """
    if family is not None and family not in FAMILIES:
        raise UserInputError("--family", f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
    path = _table_path(table)
    if not Path(path).is_file():  # nothing to replay: refused, not an empty pass
        raise UserInputError("--table", f"no file {path}")
    if spec is not None:
        if family is None:
            raise UserInputError("--family", "--heuristic needs the family its function schedules")
        if update:
            raise UserInputError("--update", "records the registered heuristics; it does not take --heuristic")
        _user_table(spec, family, path, as_json)
        return
    from schedbench.harness import regress as reg

    began = time.perf_counter()
    outcomes, expected = reg.replay(path, family, _bar("regress", "instance"))
    baseline_path = baseline or reg.default_baseline(path)
    if baseline is not None and not update and not Path(baseline).is_file():  # every ratio "new": a pass that checks nothing
        raise UserInputError("--baseline", f"no file {baseline} (--update writes a new baseline)")
    stored, others = reg.split(reg.read_baseline(baseline_path), path, family)
    found = reg.compare(outcomes, expected, stored)
    if update:
        reg.write_baseline(baseline_path, others | reg.updated(stored, outcomes, expected))
    if as_json:
        click.echo(json.dumps({"regressions": found.regressions, "better": found.improvements, "new": found.new,
                               "stale": found.stale, "summary": _summary_json(reg.ratio_summary(outcomes))}))
    else:
        _print_comparison(found, outcomes, reg.ratio_summary(outcomes), baseline_path if update else None,
                          time.perf_counter() - began)
    if found.regressions:
        sys.exit(1)


def _print_comparison(found, outcomes, rows, written: str | None, seconds: float) -> None:
    for title, lines in (("new", found.new), ("stale", found.stale), ("better", found.improvements),
                         ("REGRESSION", found.regressions)):
        for line in lines:
            click.echo(f"{title}: {line}")
    if written:
        click.echo(f"baseline written: {written}")
    _summary(rows)
    relaxed = sum(o.ratio is None and not o.problem for o in outcomes)
    click.echo(f"{len(outcomes) - relaxed} ratios ({relaxed} relaxed schedules without one): "
               f"{len(found.regressions)} regressions, {len(found.improvements)} better, "
               f"{len(found.new)} new, {len(found.stale)} stale, {seconds:.1f} s")


def _summary_json(rows) -> list[dict]:
    return [{"family": family, "objective": objective, "heuristic": heuristic, "runs": stats.n,
             "mean": _fraction(stats.mean), "worst": _fraction(stats.worst)}
            for family, objective, heuristic, stats in rows]


def _fraction(value) -> list[int] | None:
    return None if value is None else [value.numerator, value.denominator]


def _print_user_table(outcomes, rows) -> None:
    for o in outcomes:
        shown = o.problem or f"value {o.value}, optimum {o.entry.value}, ratio {float(o.ratio):.4f}"
        click.echo(f"{o.entry.instance} {o.entry.objective}: {shown}")
    for _, objective, _, stats in rows:
        click.echo(f"{objective}: mean ratio {float(stats.mean):.4f}, worst {float(stats.worst):.4f} "
                   f"over {stats.n} instances")


def _summary(rows) -> None:
    click.echo(f"{'family':16} {'objective':22} {'heuristic':20} {'runs':>4} {'mean':>8} {'worst':>8}")
    for family, objective, heuristic, stats in rows:
        click.echo(f"{family:16} {objective:22} {heuristic:20} {stats.n:4} {float(stats.mean):8.4f} "
                   f"{float(stats.worst):8.4f}")


def _user_table(spec: str, family: str, path, as_json: bool) -> None:
    """The user's heuristic: one line per entry, then mean and worst ratio per
    objective, as decimals (exact, as [num, den], with --json)."""
    from schedbench.harness import regress as reg

    function = load_function(spec)
    outcomes = reg.user_outcomes(function, family, path, _bar(spec, "instance"))
    if as_json:
        click.echo(json.dumps({"entries": [{"instance": o.entry.instance, "objective": o.entry.objective,
                                            "value": _fraction(o.value), "optimum": _fraction(o.entry.value),
                                            "ratio": _fraction(o.ratio), "problem": o.problem or None}
                                           for o in outcomes],
                               "summary": _summary_json(reg.ratio_summary(outcomes))}))
    else:
        _print_user_table(outcomes, reg.ratio_summary(outcomes))
    failed = [o for o in outcomes if o.problem]
    if failed:
        click.echo(f"schedbench: {len(failed)} schedules invalid or failed", err=True)
        sys.exit(1)


COMMANDS = [certify, regress]
