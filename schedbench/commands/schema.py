"""``schedbench schema``: the JSON Schema of each family's files."""

import json
from pathlib import Path

import click

from schedbench.commands import write_output
from schedbench.errors import UserInputError
from schedbench.model import FAMILIES, family_module, json_schema, key_table


def schema_text(family: str, schedule: bool) -> str:
    """The schema as the command prints it (and the docs show it)."""
    return json.dumps(json_schema(family, schedule), indent=2) + "\n"


@click.command()
@click.argument("family", required=False)
@click.option("--schedule", is_flag=True, help="The schema of the family's schedule files instead.")
@click.option("--all", "every", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write every family's instance and schedule schemas into DIR (FAMILY.json, FAMILY-schedule.json), "
                   "with their keys as Markdown tables (FAMILY.md, FAMILY-schedule.md): the format reference's.")
def schema(family: str | None, schedule: bool, every: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of FAMILY's instance files.

    It is made from the same declarations the readers check, so a file the
    schema refuses is refused by schedbench too; the readers also check
    what a schema cannot state (acyclic task graphs, 3-PARTITION's item
    bounds, totals within the solvers' limits, ...).
    """
    if every is not None:
        if family is not None or schedule:
            raise UserInputError("--all", "writes every schema: give it without FAMILY or --schedule")
        if not Path(every).is_dir():
            raise UserInputError("--all", f"{every} is not a directory")
        for name in FAMILIES:
            for of_schedule, suffix in ((False, ""), (True, "-schedule")):
                write_output(str(Path(every) / f"{name}{suffix}.json"), schema_text(name, of_schedule), "--all")
                write_output(str(Path(every) / f"{name}{suffix}.md"), key_table(name, of_schedule), "--all")
        return
    if family is None:
        raise UserInputError("FAMILY", f"name a family (known: {', '.join(FAMILIES)}) or give --all DIR")
    try:
        family_module(family)
    except UserInputError as exc:
        raise UserInputError("FAMILY", exc.message) from None
    click.echo(schema_text(family, schedule), nl=False)


COMMANDS = [schema]
