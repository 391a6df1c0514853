"""The harness commands (run, merge, export, certify, regress, table, plot,
report), the claims and the worst-case search, one module per group; each module lists its click commands in
``COMMANDS`` and ``register`` adds them all to the ``schedbench`` group."""

import copy
import pkgutil
from importlib import import_module
from pathlib import Path

import click

from schedbench.errors import UserInputError
from schedbench.solvers.exact.settings import seconds_problem


class RegistryCommand(click.Command):
    """A command whose help ends with what the family registry holds
    (``registry_help``, computed when help is asked for, not at import)."""

    def __init__(self, *args, registry_help=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.registry_help = registry_help

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        if self.registry_help:
            with formatter.section("From the family registry"):
                formatter.write_dl(self.registry_help())


class Seconds(click.ParamType):
    """A duration option: a finite number of seconds, > 0 (or >= 0 where
    ``zero`` is allowed). click's FloatRange lets nan and inf through, and
    an infinite --time-limit would break the promise it makes."""

    name = "seconds"

    def __init__(self, zero: bool = False):
        self.zero = zero

    def convert(self, value, param, ctx) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if seconds_problem(number, self.zero):  # judged on the number, shown as typed
            self.fail(seconds_problem(value, self.zero), param, ctx)
        return number


#: The type of every --time-limit and --budget option.
SECONDS = Seconds()


def require_directory(path: str | None, option: str) -> None:
    """Refuse, before any work, an output file whose directory does not exist."""
    if path is not None and not Path(path).resolve().parent.is_dir():
        raise UserInputError(option, f"cannot write {path}: its directory does not exist")


def write_output(path: str, text: str, option: str) -> None:
    """``text`` into the file an option names; a failure is that option's one line."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserInputError(option, f"cannot write {path}: {exc.strerror}") from None


def register(group: click.Group) -> None:
    for info in pkgutil.iter_modules(__path__):
        for command in import_module(f"{__name__}.{info.name}").COMMANDS:
            group.add_command(command)
    alias = copy.copy(group.commands["claims"])  # `bounds`: the same command, listed once in --help
    alias.hidden = True
    group.add_command(alias, name="bounds")
