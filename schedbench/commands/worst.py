"""``schedbench worst``: the adversarial search for a heuristic's worst ratio."""

import json
import math
from pathlib import Path

import click

from schedbench.commands import SECONDS, RegistryCommand
from schedbench.errors import UserInputError
from schedbench.search import STRATEGIES, Limits

# The command imports the family registry and schedbench.worst inside itself: `schedbench --help`
# takes 0.15 s, and 0.6 s with them at the top (measured).


def machine_range(text: str | None) -> tuple[int, int] | None:
    """``M`` (exactly M) or ``A-B`` -> (low, high)."""
    if text is None:
        return None
    match = [part.strip() for part in text.split("-")]
    if len(match) > 2 or not all(part.isdigit() for part in match):
        raise UserInputError("--machines", f"must be M or A-B (integers), got {text!r}")
    low, high = int(match[0]), int(match[-1])
    if not 1 <= low <= high:
        raise UserInputError("--machines", f"must satisfy 1 <= A <= B, got {text!r}")
    return low, high


def _heuristics_help() -> list[tuple[str, str]]:
    from schedbench import families

    return [(f, ", ".join(families.heuristics(f))) for f in families.names() if families.heuristics(f)]


@click.command(cls=RegistryCommand, registry_help=_heuristics_help)
@click.argument("heuristic")
@click.option("--family", required=True, help="The family whose instances are searched.")
@click.option("--objective", help="Default: the family's first.")
@click.option("--machines", help="M (exactly M machines) or A-B; default: the family's start draws them.")
@click.option("--max-jobs", type=click.IntRange(min=1), default=12, show_default=True,
              help="At most this many jobs (tasks in dssp and workflow).")
@click.option("--max-value", type=click.IntRange(min=1), default=20, show_default=True,
              help="The largest integer a move writes (lengths, times, counts).")
@click.option("--budget", type=SECONDS, default=None,
              help="Seconds for the search and the shrinking of its best instance (three quarters and one); "
                   "a solve running at the end may add up to --time-limit. Default: 60, or none with --evaluations.")
@click.option("--evaluations", type=click.IntRange(min=1), default=None,
              help="Stop after this many proven instances: a result that does not depend on the machine's speed.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="anneal", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--chains", type=click.IntRange(min=1), default=1, show_default=True,
              help="Independent searches (seeds derived from --seed), the best kept; each has the whole budget.")
@click.option("--workers", type=click.IntRange(min=1, max=1024), default=1, show_default=True,
              help="Processes running the chains.")
@click.option("--cluster", help="Run the chains on the Dask scheduler at this address instead.")
@click.option("--time-limit", type=SECONDS, default=5.0, show_default=True,
              help="Seconds per exact solve; an instance not proven within it is skipped.")
@click.option("--out", type=click.Path(file_okay=False), help="Save the instance and the search's trajectory here.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def worst(heuristic, family, objective, machines, max_jobs, max_value, budget, evaluations, strategy, seed,
          chains, workers, cluster, time_limit, out, as_json) -> None:
    """Search for the instance of largest HEURISTIC / OPT (OPT / HEURISTIC
    where the objective is maximised), using proven optima only; the best
    one is shrunk to a smallest instance with the same ratio. HEURISTIC is
    a registered heuristic (below) or your own path/to/file.py:FUNCTION.

    Moves change one integer or drop, duplicate or swap one element of a
    list of the instance's JSON; deterministic for a seed and a number of
    --evaluations.
    """
    from schedbench.worst import as_json as result_json, resolve_objective, start_of, worst as run

    start_of(family)
    objective = resolve_objective(family, objective)
    limits = Limits(machine_range(machines), max_jobs, max_value)
    budget = budget if budget is not None or evaluations is not None else 60.0
    found = run(heuristic, family, objective, limits, seed, strategy, budget, evaluations, time_limit, chains, workers,
                cluster)
    result = result_json(found, heuristic, family, objective)
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"worst-{family}-{Path(heuristic.split(':')[-1]).name}-{objective}-s{seed}"
        if found.data is not None:
            instance = {**found.data, "name": stem,
                        "meta": {"worst_of": heuristic, "objective": objective, "ratio": result["ratio"]}}
            (folder / f"{stem}.json").write_text(json.dumps(instance, indent=1) + "\n")
        (folder / f"{stem}.search.json").write_text(json.dumps(result, indent=1) + "\n")
    if as_json:
        click.echo(json.dumps(result))
        return
    if found.scored is None:
        click.echo(f"{heuristic} on {family}/{objective}: no instance proven ({found.skipped} skipped)")
        return
    shown = "unbounded" if found.scored.ratio == math.inf else \
        f"{found.scored.ratio} ({float(found.scored.ratio):.4f})"
    click.echo(f"{heuristic} on {family}/{objective}: worst ratio {shown} after {found.evaluated} proven instances "
               f"({found.skipped} skipped)")
    click.echo(json.dumps(found.data))


COMMANDS = [worst]
