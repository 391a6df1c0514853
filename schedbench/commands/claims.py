"""``schedbench claims``: the built-in ledgers (``claims FAMILY``) and a
user's claim file (``claims check FILE.py``)."""

import json
import sys
from pathlib import Path

import click

from schedbench.claims import table
from schedbench.commands import SECONDS, RegistryCommand, Seconds
from schedbench.commands.worst import machine_range
from schedbench.errors import UserInputError
from schedbench.search import Limits

# Commands import the family registry and the claim-file loader inside themselves: `schedbench --help`
# takes 0.15 s, and 0.6 s with them at the top (measured).


class _LedgerByDefault(click.Group):
    """``claims FAMILY ...`` is ``claims ledger FAMILY ...``: the command
    kept its first form when ``check`` joined it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["ledger", *args]
        return super().parse_args(ctx, args)


def _progress(total: int, description: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="inst", file=sys.stderr, disable=None)


@click.group(cls=_LedgerByDefault)
def claims() -> None:
    """Check claims against exact optima: a family's built-in ledger
    (claims FAMILY, the papers' claims) or your own (claims check FILE.py).
    ("bounds" is the same command.)"""


def _ledgers_help() -> list[tuple[str, str]]:
    from schedbench import families

    return [("ledgers", ", ".join(f for f in families.names() if families.ledger(f)))]


@claims.command(cls=RegistryCommand, registry_help=_ledgers_help)
@click.argument("family")
@click.option("--instances", "count", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Random small instances (the papers' constructions are added; mosp: and Theorem 2's reductions).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--solver", default="cpsat", show_default=True, help="An exact backend every family takes (cpsat, milp).")
@click.option("--time-limit", type=SECONDS, default=20.0, show_default=True, help="Seconds per exact solve.")
@click.option("--out", type=click.Path(file_okay=False), default="counterexamples", show_default=True,
              help="Where shrunk counterexamples are saved.")
def ledger(family, count, seed, solver, time_limit, out) -> None:
    """Check every claim of FAMILY's papers against exact optima; print the ledger.

    Each violation is shrunk to a smallest instance that still violates and
    saved as an instance file under --out.
    """
    from schedbench import families

    if solver not in families.model_backends():
        raise UserInputError("--solver", f"must be one of {', '.join(families.model_backends())}, got {solver!r}")
    module = families.ledger(family)
    if module is None:
        with_ledger = [f for f in families.names() if families.ledger(f)]
        raise UserInputError("FAMILY", f"no claims ledger for {family!r} (known: {', '.join(with_ledger)})")
    items = list(module.instances(count, seed))
    with _progress(len(items), "instances") as bar:
        tallies = module.run(items, solver, time_limit, Path(out), progress=bar.update)
    click.echo(module.report(tallies))
    _counterexamples(tallies)


@claims.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--instances", "count", type=click.IntRange(min=0), default=200, show_default=True,
              help="Random instances (the file's own instances(count, seed), else the family's search start).")
@click.option("--search", "search_seconds", type=Seconds(zero=True), default=0.0, show_default=True,
              help="Seconds of adversarial search after them, shared among the claims it can reach "
                   "(from starts the claim covers; a claim about one construction is not searched).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--machines", help="M or A-B: the machines of random and searched instances.")
@click.option("--max-jobs", type=click.IntRange(min=1), default=12, show_default=True)
@click.option("--max-value", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--time-limit", type=SECONDS, default=10.0, show_default=True,
              help="Seconds per exact solve; an instance not proven within it is skipped.")
@click.option("--out", type=click.Path(file_okay=False), default="counterexamples", show_default=True,
              help="Where shrunk counterexamples are saved.")
@click.option("--json", "as_json", is_flag=True, help="Print the ledger as JSON (ratios as [num, den]).")
def check(file, count, search_seconds, seed, machines, max_jobs, max_value, time_limit, out, as_json) -> None:
    """Check the claims of a Python FILE (FAMILY, CLAIMS; see the docs'
    tutorial) on random and adversarial instances; print the ledger.

    Exit 1 when a claim is violated (on an instance or by the search), so a
    CI job can run it; 0 when every claim held; 2 on bad input.
    """
    from schedbench.claim_files import check_file, load

    claim_file = load(file)
    limits = Limits(machine_range(machines), max_jobs, max_value)
    with _progress(count, "instances") as bar:
        tallies, searched = check_file(claim_file, count, seed, limits, search_seconds, time_limit, Path(out),
                                       progress=bar.update)
    if as_json:
        click.echo(json.dumps(_ledger_json(tallies, searched)))
    else:
        _print_ledger(tallies, searched)
    if any(t.violations for t in tallies) or any(seen.violated for seen in searched.values()):
        sys.exit(1)


def _fraction(value) -> list[int] | None:
    return None if value is None else [value.numerator, value.denominator]


def _ledger_json(tallies, searched) -> dict:
    return {"claims": [{"key": t.claim.key, "statement": t.claim.statement, "source": t.claim.source,
                        "tried": t.tried, "skipped": t.skipped, "violations": t.violations,
                        "worst": _fraction(t.worst), "counterexamples": [str(path) for path in t.counterexamples]}
                       for t in tallies],
            "search": {key: {"reached": seen.reached, "evaluated": seen.evaluated, "violated": seen.violated,
                             "worst": _fraction(seen.worst)} for key, seen in searched.items()}}


def _print_ledger(tallies, searched) -> None:
    click.echo(table(tallies))
    for key, seen in searched.items():
        if not seen.reached:
            click.echo(f"{key}: not searched: no instance the search reaches is covered by the claim")
            continue
        if seen.evaluated == 0:
            click.echo(f"{key}: the search proved no instance the claim covers")
            continue
        worst = ("violated" if seen.violated else "held") if seen.worst is None else f"{float(seen.worst):.4f}"
        click.echo(f"{key}: search saw {seen.evaluated} proven instances, worst observed/bound {worst}")
    _counterexamples(tallies)


def _counterexamples(tallies) -> None:
    for t in tallies:
        for path in t.counterexamples[:3]:
            click.echo(f"{t.claim.key}: counterexample {path}")


COMMANDS = [claims]
