"""The harness commands (run, merge, export, certify, regress, table, plot,
report), the claims and the worst-case search, one module per group; each module lists its click commands in
``COMMANDS`` and ``register`` adds them all to the ``schedbench`` group."""

import pkgutil
from importlib import import_module

import click


def register(group: click.Group) -> None:
    for module in pkgutil.iter_modules(__path__):
        for command in import_module(f"{__name__}.{module.name}").COMMANDS:
            group.add_command(command)
    group.add_command(group.commands["claims"], name="bounds")
