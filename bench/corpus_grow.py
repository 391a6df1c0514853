"""Growing the certified corpus along the frontier lines.

    python -m bench.corpus_grow --family campaign [--steps 8] [--seeds 10]
        [--line NAME] [--first-step 0] [--time-limit 10] [--workers 2 | --cluster ADDRESS]
    python -m bench.corpus_grow --open 24 [--family mosp ...] [--workers 2]
    python -m bench.corpus_grow --summary docs/results/corpus.md

The instances are the frontier benchmark's (``bench/frontiers.toml``): for
each line of the family that runs the default models (no ``options``), the
first ``--steps`` steps and ``--seeds`` seeds of each, so the corpus spreads
over the sizes the frontier table says the backends prove (``--line``: only
the stream of that line; ``--first-step``: from that step on, to add seeds
just beyond the frontier without rewriting the smaller steps). Lines of one
generator and parameters share their instances; each file is written once
under ``instances/corpus/<family>/`` with the generator call that remakes
it (``meta.corpus``), then ``certify`` solves it for the objectives of
those lines, with both backends, on the process pool or a Dask cluster.
Files already there are not written again, and pairs already settled
(``opt``, ``infeasible``) are not solved again, so a stopped run resumes. With local workers, each runs CP-SAT on one thread (two solves
on two cores, as the frontier measures).

``--open N`` tries N unsettled entries again at ``OPEN_AFTER`` (600) s per
backend: those with the largest relative gap between value and bound, taken
in turn from each family (or from the ``--family`` ones), that have not had
that long yet. What resists is
an open instance, a challenge just beyond the frontier (value and bound
recorded); what is proven joins the certified ones.
"""

import argparse
import hashlib
import json
import sys
from collections.abc import Collection
from fractions import Fraction
from itertools import chain, zip_longest
from pathlib import Path

from schedbench import families
from schedbench.harness.corpus import (OPEN_AFTER, SETTLED, STATUSES, Entry, certify, corpus_dir, default_table,
                                     has_gap, is_open, load, read_table, status_counts)
from bench.frontier import instance, lines, params_at, seed_at
from bench.results_log import write_generated
from schedbench.errors import UserInputError
from schedbench.model import instance_to_json
from schedbench.solvers.exact import settings

#: Seconds per backend per pair when growing (the frontier's limit).
GROW_LIMIT = 10.0
#: The options of growing a family, and their defaults: left out (None) they
#: take these, and given with --open or --summary they are refused.
GROWTH_DEFAULTS = {"--steps": 8, "--seeds": 10, "--line": None, "--first-step": 0}


def streams(family: str) -> dict[tuple[str, str], dict]:
    """The family's default-model lines grouped by (generator, parameters):
    one stream of instances each, with the objectives and names of its lines."""
    out: dict[tuple[str, str], dict] = {}
    for line in lines():
        if "options" in line or instance(line, 0, 0).family != family:
            continue
        key = (line["generator"], json.dumps([line["params"], line["grow"], line["steps"]], sort_keys=True))
        stream = out.setdefault(key, {**line, "objectives": [], "lines": []})
        stream["objectives"].append(line["objective"])
        stream["lines"].append(line["name"])
    return out


def file_name(line: dict, step: int, seed: int) -> str:
    """``<generator>-<parameters' digest>-<grown parameter><its value>-s<seed>.json``,
    e.g. ``small-5d41a2-jobs4_5-s3004.json``: two streams of one generator differ by the digest."""
    value = line["steps"][step]
    shown = "_".join(map(str, value)) if isinstance(value, list) else str(value)
    digest = hashlib.sha256(json.dumps(line["params"], sort_keys=True).encode()).hexdigest()[:6]
    return f"{line['generator']}-{digest}-{line['grow']}{shown}-s{seed}.json"


def write_stream(line: dict, steps: int, seeds: int, folder: Path, first_step: int = 0) -> list[Path]:
    """The stream's instances of steps ``first_step`` to ``steps`` - 1 as
    corpus files (the frontier's seeds: 1000 x step + i)."""
    paths = []
    for step in range(first_step, min(steps, len(line["steps"]))):
        for index in range(seeds):
            path = folder / file_name(line, step, seed_at(step, index))
            if not path.exists():
                document = instance_to_json(instance(line, step, index))
                recipe = {**params_at(line, step), "seed": seed_at(step, index)}
                document["meta"] = {**document.get("meta", {}),
                                    "corpus": {"generator": line["generator"], "params": recipe}}
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(document) + "\n")
            paths.append(path)
    return paths


def open_candidates(count: int, time_limit: float = OPEN_AFTER, chosen: Collection[str] | None = None) -> list[Entry]:
    """The ``count`` entries with a gap not yet tried for ``time_limit``
    seconds, the largest relative gap first (no value or bound: the
    largest), taken in turn from each family so that every family with
    one gets its share (from the ``chosen`` families only, if given)."""
    per_family: dict[str, list[Entry]] = {}
    for entry in read_table(default_table()).values():
        if has_gap(entry) and entry.time_limit < time_limit and (chosen is None or entry.family in chosen):
            per_family.setdefault(entry.family, []).append(entry)
    for entries in per_family.values():
        entries.sort(key=lambda e: (-_gap(e), e.instance, e.objective))
    turns = chain.from_iterable(zip_longest(*(per_family[f] for f in sorted(per_family))))
    return [e for e in turns if e is not None][:count]


def _gap(entry: Entry) -> Fraction:
    """|value - bound| relative to the larger of the two (at least 1); 2 when either is missing (above any gap)."""
    if entry.value is None or entry.bound is None:
        return Fraction(2)
    return abs(entry.value - entry.bound) / max(abs(entry.value), abs(entry.bound), Fraction(1))


def try_open(count: int, time_limit: float, workers: int, cluster: str | None,
             only_families: Collection[str] | None) -> None:
    """Solve ``open_candidates`` again at ``time_limit`` s per backend, in their order."""
    chosen = open_candidates(count, time_limit, only_families)
    paths = list(dict.fromkeys(default_table().parent / e.instance for e in chosen))
    report = certify(paths, (), time_limit, default_table(), workers=workers, cluster=cluster, again=False,
                     only={e.key for e in chosen})
    for refused in report.refused:
        print(f"refused {refused}", file=sys.stderr)


def summary() -> str:
    """Per family: instance files, entries by status, and the instances
    certified (an ``opt`` or ``infeasible`` entry) with their sizes (jobs)."""
    table = read_table(default_table())
    counted = status_counts(table)
    rows = ["| family | instances | " + " | ".join(f"{s} entries" for s in STATUSES)
            + f" | open (unsettled after {OPEN_AFTER:g} s) | instances certified (opt or infeasible) | their jobs (min-max) |",
            "|---|" + "---:|" * (len(STATUSES) + 4)]
    for folder in sorted(p for p in corpus_dir().iterdir() if p.is_dir()):
        entries = [e for e in table.values() if e.family == folder.name]
        counts = counted.get(folder.name, {})
        certified = {e.instance: e for e in entries if e.status in SETTLED}
        jobs = [families.size(load(default_table(), e)).jobs for e in certified.values()]
        span = f"{min(jobs)}-{max(jobs)}" if jobs else "-"
        rows.append(f"| {folder.name} | {len(list(folder.glob('*.json')))} | "
                    + " | ".join(str(counts.get(s, 0)) for s in STATUSES)
                    + f" | {sum(map(is_open, entries))} | {len(certified)} | {span} |")
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = _parser()
    args = parser.parse_args()
    _check_mode(parser, args)
    if args.summary:
        write_generated(args.summary, "python -m bench.corpus_grow --summary docs/results/corpus.md",
                        summary())
        return
    settings.use_cpsat_workers(1)
    if args.open is not None:
        _open(parser, args)
        return
    _grow(parser, args)


def _parser() -> argparse.ArgumentParser:
    """The command line of the module's docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", action="append",
                        help="grow this family along its frontier lines (with --open: try its entries only; repeatable)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--open", type=int, metavar="N", help=f"try N entries with a gap at {OPEN_AFTER:g} s (see above)")
    mode.add_argument("--summary", type=Path, help="only write the corpus summary table (Markdown) to this file")
    parser.add_argument("--steps", type=int, help="the first STEPS steps of each line (growing; default 8)")
    parser.add_argument("--seeds", type=int, help="instances per step (growing; default 10)")
    parser.add_argument("--line", help="only the stream of this frontier line (growing)")
    parser.add_argument("--first-step", type=int, help="grow from this step on (growing; default 0)")
    parser.add_argument("--time-limit", type=float, help=f"seconds per backend per pair (default {GROW_LIMIT:g}; "
                                                        f"with --open {OPEN_AFTER:g}, at least that)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", default=None, help="a Dask scheduler address instead of local workers")
    return parser


def _check_mode(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exactly one mode (grow, --open, --summary), and the growing options
    only when growing, set to their defaults where left out."""
    if not (args.family or args.open is not None or args.summary):
        parser.error("one of --family, --open and --summary is required")
    if args.summary and args.family:
        parser.error("--summary covers every family: drop --family")
    for option, default in GROWTH_DEFAULTS.items():
        name = option[2:].replace("-", "_")
        if getattr(args, name) is None:
            setattr(args, name, default)
        elif args.open is not None or args.summary:
            parser.error(f"{option}: only when growing a family (--family without --open or --summary)")


def _open(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--open: ``try_open`` with the options checked, then the count of open instances."""
    limit = OPEN_AFTER if args.time_limit is None else args.time_limit
    if args.open < 1:
        parser.error(f"--open: the number of entries to try must be at least 1, got {args.open}")
    if limit < OPEN_AFTER:
        parser.error(f"--time-limit: an open instance resists {OPEN_AFTER:g} s per backend; got {limit:g}")
    known = sorted(folder.name for folder in corpus_dir().iterdir() if folder.is_dir())
    for name in args.family or ():
        if name not in known:
            parser.error(f"--family: the corpus has {', '.join(known)}, not {name!r}")
    try_open(args.open, limit, args.workers, args.cluster, args.family)
    print(f"open: {sum(map(is_open, read_table(default_table()).values()))} instances")


def _grow(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--family: write and certify the streams of one family, then its entries by status."""
    if len(args.family) > 1:
        parser.error(f"--family: grow one family at a time, got {', '.join(args.family)}")
    (family,) = args.family
    try:
        found = _chosen_streams(family, args.line)
        if not 0 <= args.first_step < args.steps:
            raise UserInputError("--first-step", f"must be >= 0 and below --steps ({args.steps}), "
                                                 f"got {args.first_step}")
        for line in found.values():
            paths = write_stream(line, args.steps, args.seeds, corpus_dir() / family, args.first_step)
            report = certify(paths, line["objectives"], GROW_LIMIT if args.time_limit is None else args.time_limit,
                             default_table(), workers=args.workers, cluster=args.cluster, again=False)
            for refused in report.refused:
                print(f"refused {refused}", file=sys.stderr)
    except UserInputError as exc:
        parser.error(str(exc))
    counts = status_counts(read_table(default_table())).get(family, {})
    print(f"{family}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))


def _chosen_streams(family: str, line: str | None) -> dict[tuple[str, str], dict]:
    """``streams(family)``, only the one of the frontier line ``line`` if
    given; a UserInputError where there is none."""
    found = streams(family)
    if not found:
        raise UserInputError("--family", f"no line of bench/frontiers.toml draws {family!r} instances")
    if line is not None:
        found = {key: stream for key, stream in found.items() if line in stream["lines"]}
        if not found:
            named = ", ".join(name for stream in streams(family).values() for name in stream["lines"])
            raise UserInputError("--line", f"no {family} stream is {line!r} (they are: {named})")
    return found


if __name__ == "__main__":
    main()
