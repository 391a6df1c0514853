"""The ``schedbench`` command (docs/reference/formats.md and commands.md).

Bad input (instance, schedule, option) prints one line on stderr and exits
with code 2; it never shows a traceback.
"""

import inspect
import itertools
import json
import sys
import time
import typing
from pathlib import Path

import click

from schedbench.commands import SECONDS, RegistryCommand, register, require_directory, write_output
from schedbench.errors import UserInputError
from schedbench.instances.parameters import convert
from schedbench.model.shape import keys_of
from schedbench.model import (family_module, instance_to_json, load_instance, load_schedule, parse_instance,
                              schedule_to_json)
from schedbench.solvers import solve as run_solve, solve_options
from schedbench.validator import validate as check


#: When the command began (this module's import): ``solve`` counts its start-up against --time-limit.
STARTED = time.monotonic()

# Commands import the family registry and the report inside themselves: `schedbench --help`
# takes 0.15 s, and 0.6 s with them at the top (measured).

EXIT_BAD_INPUT = 2


def _emit(obj) -> None:
    click.echo(json.dumps(obj, sort_keys=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="schedbench", prog_name="schedbench")
def cli() -> None:
    """Exact optima, heuristics and claim checks for multi-user scheduling.

    Instances are JSON files of the formats in docs/reference/formats.md
    (`schedbench schema FAMILY` prints each one's JSON Schema: pcmax, campaign,
    mosp, three_partition, dssp, knapsack, workflow). Every schedule printed
    passes the independent validator. Experiments (run, merge, export,
    table, plot, report) and certified ground truth (certify, regress)
    work on a results store.
    """


def _solve_help() -> list[str]:
    from schedbench import families

    return [(f, f"objectives {', '.join(families.objectives(f))}; solvers {', '.join(families.backends(f))}"
             + (f"; options {', '.join(solve_options(f))}" if solve_options(f) else "")) for f in families.names()]


def _heuristic_help() -> list[str]:
    from schedbench import families

    return [(f, ", ".join(families.heuristics(f))) for f in families.names() if families.heuristics(f)]


def _generate_help() -> list[str]:
    import inspect

    from schedbench import families

    out = []
    for name, function in families.generators().items():
        parameters = inspect.signature(function.__wrapped__).parameters.values()
        shown = " ".join(f"--{p.name.replace('_', '-')}"
                         + ("" if p.default in (p.empty, None) else f"={_default(p.default)}") for p in parameters)
        out.append((name, shown))
    return out


def _default(value) -> str:
    return "[" + ",".join(map(str, value)) + "]" if isinstance(value, tuple) else str(value)


def _value(text: str):
    """A value written on the command line, read as TOML reads it (5, 0.2,
    [1, 3], true); anything else is the string itself ("6/5", "lpt", a path)."""
    import tomllib

    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def _key_values(pairs: tuple[str, ...]) -> dict:
    """``KEY=VALUE`` pairs (``-o``) as a dict of values."""
    out = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or not key:
            raise UserInputError("--option", f"must be KEY=VALUE, got {pair!r}")
        out[key.strip().replace("-", "_")] = _value(text.strip())
    return out


OPTION = click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
                      help="An option, repeatable; values as in experiment files (5, 0.2, \"6/5\", lpt).")
SCHEDULE_OUT = click.option("--schedule-out", type=click.Path(dir_okay=False, writable=True), default=None,
                            help="Write the schedule JSON to this file; the output names the file instead.")
NO_SCHEDULE = click.option("--no-schedule", is_flag=True,
                           help="Leave the schedule out (\"schedule\": null): metrics of a trace-sized run "
                                "without a JSON string of every job.")


SCHEDULE_CSV = click.option("--schedule-csv", type=click.Path(dir_okay=False), default=None,
                            help="Also write the schedule as CSV: job, machine, start, end.")
GANTT = click.option("--gantt", type=click.Path(dir_okay=False), default=None,
                     help="Also draw the schedule's Gantt chart into this .png, .svg or .pdf file.")


def _schedule_options(path: str | None, omit: bool, csv_path: str | None = None, gantt: str | None = None) -> None:
    """Refused before any work: both schedule options, an output file in no
    directory, a Gantt chart in another format than PNG, SVG or PDF."""
    if path is not None and omit:
        raise UserInputError("--no-schedule", "leaves the schedule out; --schedule-out writes it: give one of them")
    for option, target in (("--schedule-out", path), ("--schedule-csv", csv_path), ("--gantt", gantt)):
        require_directory(target, option)
    if gantt is not None:
        from schedbench.harness.plots import GANTT_FORMATS

        if Path(gantt).suffix not in GANTT_FORMATS:
            raise UserInputError("--gantt", f"a Gantt chart is written as {', '.join(GANTT_FORMATS)}, "
                                            f"not {Path(gantt).name!r}")


def _exportable(instance, csv_path: str | None, gantt: str | None) -> None:
    """Refused before any work: a schedule's CSV or Gantt chart for a family
    whose solutions are no schedules (a selection, a certificate)."""
    if (csv_path or gantt) and not hasattr(instance, "lengths"):
        raise UserInputError("--schedule-csv" if csv_path else "--gantt",
                             f"a {instance.family} solution is not a schedule of jobs on machines")


def _export(instance, schedule, csv_path: str | None, gantt: str | None) -> None:
    """The schedule as CSV and as a Gantt chart, where asked."""
    if csv_path:
        from schedbench.report import schedule_csv

        write_output(csv_path, schedule_csv(instance, schedule), "--schedule-csv")
    if gantt:
        from schedbench.harness.plots import gantt_of

        gantt_of(instance, schedule, Path(gantt))  # its suffix checked before any work


def _schedule_field(build, path: str | None, omit: bool):
    """What the output's "schedule" holds: the schedule JSON (``build()``),
    the file it was written to, or null; ``build`` runs only for a schedule kept."""
    if omit:
        return None
    data = build()
    if path is None:
        return data
    write_output(path, json.dumps(data), "--schedule-out")
    return path


@cli.command(cls=RegistryCommand, registry_help=_solve_help)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--objective", help="Objective name; default: the family's first.")
@click.option("--solver", default=None, help="Exact backend; default: the family's strongest measured (listed first below).")
@click.option("--time-limit", type=SECONDS, default=None,
              help="Seconds for the whole command (default 60); it returns within that plus 2 s.")
@OPTION
@SCHEDULE_OUT
@NO_SCHEDULE
@SCHEDULE_CSV
@GANTT
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result object (status, objective, bound, proof, schedule).")
def solve(file, objective, solver, time_limit, options, schedule_out, no_schedule, schedule_csv, gantt,
          as_json) -> None:
    """Solve FILE exactly (or return the best schedule and certified bound on a time limit).

    The status is "optimal" only when proven, by a checkable bound or by a
    refutation a second independent method repeats ("proof" names the
    methods); the objective is recomputed exactly from the returned
    schedule; ratio objectives also give objective_fraction [num, den].
    """
    from schedbench import families
    from schedbench.report import result_json

    _schedule_options(schedule_out, no_schedule, schedule_csv, gantt)
    instance = load_instance(file)
    _exportable(instance, schedule_csv, gantt)
    known = solve_options(instance.family)
    given = _key_values(options)
    keys_of(given, known, "options")  # before the call: a name such as "started" would meet solve's own keywords
    # typed here from the solver's signature
    result = run_solve(instance, objective, solver, time_limit, started=STARTED,
                       **{name: convert(value, known[name], f"options.{name}") for name, value in given.items()})
    objective = _default_objective(instance) if objective is None else objective
    if result.schedule is not None:
        violations = families.violations(instance, result.schedule, objective)
        if violations:
            raise AssertionError(f"solver produced an invalid schedule: {violations[0]}")
    out = result_json(instance, result, objective)
    out["schedule"] = _schedule_field(lambda: out["schedule"], schedule_out, no_schedule)
    if result.schedule is not None:
        _export(instance, result.schedule, schedule_csv, gantt)
    if as_json:
        _emit(out)
    else:
        click.echo(f"{out['status']}: {objective} = {_show(result.objective)} (bound {_show(result.bound)}), "
                   f"{result.solver} {result.method}, {result.wall_time:.3f} s")


@cli.command(cls=RegistryCommand, registry_help=_heuristic_help)
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False))
@OPTION
@click.option("--time-limit", type=SECONDS, default=10.0, show_default=True,
              help="Seconds for each exact reference a metric needs (campaign F_u*, MOSP Stretch's C_alone).")
@SCHEDULE_OUT
@NO_SCHEDULE
@SCHEDULE_CSV
@GANTT
@click.option("--json", "as_json", is_flag=True, help="Print the schedule and its metrics as JSON.")
def heuristic(name, file, options, time_limit, schedule_out, no_schedule, schedule_csv, gantt, as_json) -> None:
    """Run heuristic NAME on FILE and print the schedule with its exact metrics.

    Options (-o KEY=VALUE) are the ones experiment files take: campaign
    inner=lpt|spt|list|mlpt; dssp r=0.86 or lambda=1/5, seed=N (RANDOM); workflow seed=N,
    estimate=normal:N|log:M, ccr=0.2, network_exponent=P. A metric that
    needs an optimum not proven within --time-limit is null, with the
    reason. A MOSP heuristic keeps the local constraints of its own local
    schedule; any breach of the format's reference (ref_k) is reported, not hidden.
    """
    from schedbench import families

    _schedule_options(schedule_out, no_schedule, schedule_csv, gantt)
    instance = load_instance(file)
    _exportable(instance, schedule_csv, gantt)
    known = families.heuristics(instance.family)
    if name not in known:
        raise UserInputError("NAME", f"unknown {instance.family} heuristic {name!r} "
                                     f"(known: {', '.join(known) or 'none for this family'})")
    arguments = families.heuristic_arguments(instance.family, name, instance, _key_values(options))
    schedule = known[name](instance, **arguments)
    verdict, why = families.heuristic_verdict(instance, schedule, None, name)
    if verdict == "invalid":
        raise AssertionError(f"heuristic produced an invalid schedule: {why}")
    _export(instance, schedule, schedule_csv, gantt)
    out = {"heuristic": name, "family": instance.family,
           "metrics": families.summary(instance, schedule, name, time_limit),
           "schedule": _schedule_field(lambda: schedule_to_json(instance, schedule), schedule_out, no_schedule)}
    if as_json:
        _emit(out)
    else:
        click.echo(json.dumps(out["metrics"], indent=1))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("schedule", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print {valid, violations} as JSON.")
def validate(file, schedule, as_json) -> None:
    """Check SCHEDULE against FILE, independently of the code that made it.

    SCHEDULE is a schedule object or the whole output of solve/heuristic
    --json. Exit 0 if valid, 1 if not, 2 on unreadable input. The references
    a rule needs (MOSP's optimal ref_k) are proven first, by the solvers;
    the validator itself uses nothing but the instance, the schedule and them.
    """
    from schedbench import families

    instance = load_instance(file)
    violations = check(instance, load_schedule(instance, schedule), references=families.rule_references(instance))
    if as_json:
        _emit({"valid": not violations, "violations": [vars(v) for v in violations]})
    elif violations:
        for v in violations:
            click.echo(str(v))
    else:
        click.echo("valid")
    sys.exit(1 if violations else 0)


@cli.command(cls=RegistryCommand, registry_help=_generate_help,
             context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("generator")
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.pass_context
def generate(ctx, generator, out) -> None:
    """Write a seeded, reproducible instance (same arguments, same bytes).

    Every registered generator, with its parameters as --name value (the
    ones experiment files take; ranges as [a,b], fractions as 6/5, a flag
    alone is true and --no-flag false); --seed defaults to 0, --from FILE
    is --source FILE.
    """
    from schedbench import families

    known = families.generators()
    if generator not in known:
        raise UserInputError("GENERATOR", f"unknown generator {generator!r} (known: {', '.join(known)})")
    require_directory(out, "--out")
    params = _generator_parameters(ctx.args)
    if "seed" in inspect.signature(known[generator].__wrapped__).parameters:
        params.setdefault("seed", 0)
    _write_made(known[generator], params, generator, out)


def _convert_help() -> list[str]:
    from schedbench import families

    return [(name, ", ".join(f"--{p.replace('_', '-')}" for p in list(inspect.signature(make.__wrapped__).parameters)[1:])
             or "no options") for name, make in families.converters().items()]


@cli.command("convert", cls=RegistryCommand, registry_help=_convert_help,
             context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--from", "source_format", required=True, metavar="FORMAT", help="The file's format (listed below).")
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.argument("words", nargs=-1, type=click.UNPROCESSED, metavar="FILE... [--OPTION VALUE]...")
def convert_file(source_format, out, words) -> None:
    """Convert FILE from a community format into an instance (docs:
    "Bringing your data"), with the format's options as --name value; the
    conversion (format, file, options) is recorded in the instance's meta,
    and the instance is read back as any instance file is. A format that
    reads several files (stg) takes them all before the options."""
    from schedbench import families

    known = families.converters()
    if source_format not in known:
        raise UserInputError("--from", f"unknown format {source_format!r} (known: {', '.join(known)})")
    require_directory(out, "--out")
    files = list(itertools.takewhile(lambda word: not word.startswith("--"), words))
    if not files:
        raise UserInputError("FILE", "missing: the file to convert (files come before the format's options)")
    for file in files:
        if not Path(file).is_file():
            raise UserInputError("FILE", f"no file {file}")
    if len(files) > 1 and typing.get_type_hints(known[source_format].__wrapped__)["file"] is str:
        raise UserInputError("FILE", f"the {source_format} format reads one file, got {len(files)}")
    params = {**_generator_parameters(list(words[len(files):])), "file": files[0] if len(files) == 1 else files}
    _write_made(known[source_format], params, source_format, out)


def _write_made(make, params: dict, name: str, out: str | None) -> None:
    """``make(**params)`` as instance JSON, read back as any instance file
    (a maker's slip is refused like a user's), into ``out`` or to stdout; a
    parameter's error names it as the user wrote it (--name)."""
    try:
        document = instance_to_json(make(**params))
        parse_instance(document)
    except UserInputError as exc:  # params.NAME -> --name
        field = exc.field
        if field.startswith("params."):
            field = "--" + field.removeprefix("params.").replace("_", "-")
        raise UserInputError(field if field not in ("params", "") else name, exc.message) from None
    text = json.dumps(document) + "\n"
    if out:
        write_output(out, text, "--out")
    else:
        click.echo(text, nl=False)


def _generator_parameters(args: list[str]) -> dict:
    """``--name value`` pairs (``--flag`` alone: true, ``--no-flag``: false)."""
    out: dict = {}
    index = 0
    while index < len(args):
        token = args[index]
        if not token.startswith("--") or len(token) == 2:
            raise UserInputError(token, "expected a parameter as --name value")
        name, equals, text = token[2:].partition("=")
        name = {"from": "source"}.get(name, name).replace("-", "_")
        if equals:
            out[name] = _value(text)
        elif index + 1 < len(args) and not args[index + 1].startswith("--"):
            out[name] = _value(args[index + 1])
            index += 1
        elif name.startswith("no_"):
            out[name[3:]] = False
        else:
            out[name] = True
        index += 1
    return out


def _default_objective(instance) -> str:
    return family_module(instance.family).OBJECTIVES[0]


def _show(value) -> str:
    return "-" if value is None else str(value)


def _register_harness() -> None:
    register(cli)


_register_harness()


def main() -> None:
    """Entry point: click's errors and ``UserInputError`` become one line and exit 2."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("schedbench: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        message = exc.format_message().replace("\n", " ")
        click.echo(f"schedbench: {message}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except UserInputError as exc:
        click.echo(f"schedbench: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
