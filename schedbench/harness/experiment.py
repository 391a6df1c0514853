"""Experiments as data: a TOML file expanded into cells.

A cell is one (instance, objective, algorithm) triple, a pure function of
its key, so it can be cached, resumed, run on any machine and merged later
(benchopt's design). The cells of one instance travel together as a
``Task``: the worker builds the instance once and runs them all.
The file format is in docs/experiments.md.
"""

import functools
import glob
import hashlib
import inspect
import itertools
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import schedbench.instances
from schedbench import families
from schedbench.harness.plots import check_figure
from schedbench.harness.store import canonical
from schedbench.errors import UserInputError
from schedbench.model import FAMILIES, load_instance
from schedbench.model.shape import keys_of
from schedbench.solvers.exact.settings import DEFAULT_TIME_LIMIT, seconds_problem

GRID_KEYS = {"family", "generator", "instances", "params", "vary", "seeds", "objectives", "heuristics",
             "heuristic_options", "reference_time_limit", "solvers", "metrics", "keep_schedules", "quick"}
CLAIMS_KEYS = {"family", "instances", "seed", "solver", "time_limit", "quick"}
TOP_KEYS = {"name", "title", "grid", "claims", "figure"}
SOLVER_KEYS = {"name", "time_limit", "workers"}


@dataclass(frozen=True)
class InstanceSpec:
    """How to build one instance: a generator call, or a file (by content hash)."""

    family: str
    generator: str               # a families.generators() name, "file" or "claims"
    params: dict = field(hash=False)
    seed: int | None = None
    file_hash: str | None = None

    @property
    def size(self) -> dict:
        """What tables group by: every generator parameter (fixed and varied:
        two grids may fix different ones), a file's name, a ledger's instance count."""
        if self.generator == "file":
            return {"file": Path(self.params["file"]).name}
        if self.generator == "claims":
            return {"instances": self.params["instances"]}
        return self.params

    def key(self) -> dict:
        if self.generator == "file":
            return {"family": self.family, "file_hash": self.file_hash}
        return {"family": self.family, "generator": self.generator, "params": self.params, "seed": self.seed}

    @functools.cached_property
    def text(self) -> str:
        """The key's canonical JSON, encoded once: a grid of millions of cells
        spends most of its loading time in JSON otherwise."""
        return canonical(self.key())


@dataclass(frozen=True, slots=True)   # millions of them in a full-scale grid
class Cell:
    cell_id: str
    instance: InstanceSpec
    objective: str | None
    kind: str                    # heuristic, solver or claims
    algorithm: str
    options: dict = field(hash=False)
    time_limit: float | None = None
    metrics: tuple[str, ...] = ()
    keep_schedule: bool = True


@dataclass(frozen=True)
class Task:
    """The cells of one instance: the unit sent to a worker."""

    experiment: str
    instance: InstanceSpec
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Source:
    """A grid's (or claims table's) instances and what it asks of each; the
    cells are built per instance, for the instances a run (or batch) runs."""

    experiment: str
    specs: list[InstanceSpec]
    asked: list[tuple[str, str | None, str, str, dict, float | None]]  # key, objective, kind, name, options, limit
    metrics: tuple[str, ...]
    keep_schedule: bool

    def task(self, spec: InstanceSpec) -> Task:
        return Task(self.experiment, spec, tuple(
            Cell(cell_id(spec, key), spec, objective, kind, name, options, limit, self.metrics, self.keep_schedule)
            for key, objective, kind, name, options, limit in self.asked))


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    text: str                    # the TOML as read, stored with every run (provenance, figures)
    quick: bool
    sources: tuple[Source, ...]
    batch: tuple[int, int] | None = None   # (K, N): batch K of N only (``select_batch``)

    @functools.cached_property
    def tasks(self) -> tuple[Task, ...]:
        """The tasks the run (or its batch) runs, built when first asked:
        counting the cells of a grid of millions builds none of them."""
        return select_batch(self.sources, self.batch)

    @property
    def cells(self) -> int:
        """The cells of ``tasks``: per instance, the distinct questions its
        sources ask (a cell's id is its instance and its question)."""
        return sum(len({asked[0] for source in askers for asked in source.asked})
                   for _, askers in _askers(self.sources, self.batch))


def algorithm_key(objective: str | None, kind: str, algorithm: str, options: dict, time_limit: float | None,
                  metrics: tuple[str, ...] = (), keep_schedule: bool = False) -> str:
    """What a cell asks of its instance, as canonical JSON: another metric or
    keeping the schedule makes another cell, so a changed grid never reuses a
    row that lacks them."""
    return canonical({"objective": objective, "kind": kind, "algorithm": algorithm, "options": options,
                      "time_limit": time_limit, "metrics": sorted(metrics), "keep_schedule": keep_schedule})


def cell_id(instance: InstanceSpec, asked: str) -> str:
    """The hash of everything a cell's row depends on: its instance and ``algorithm_key``."""
    return hashlib.sha256(f"{instance.text}\n{asked}".encode()).hexdigest()


def load(path: str | Path, quick: bool = False, batch: tuple[int, int] | None = None) -> Experiment:
    """Read and check an experiment file; every mistake names its field.
    With ``batch`` (K, N) its tasks are batch K of N only (``select_batch``)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise UserInputError("EXPERIMENT", f"cannot read {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserInputError("EXPERIMENT", f"{path} is not valid TOML: {exc}") from None
    return parse(data, text, path.parent, quick, default_name=path.stem, batch=batch)


def parse(data: dict, text: str, base: Path, quick: bool, default_name: str,
          batch: tuple[int, int] | None = None) -> Experiment:
    _known(data, TOP_KEYS, "")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise UserInputError("name", f"must be a non-empty string, got {name!r}")
    grids, claims = data.get("grid", []), data.get("claims", [])
    if not isinstance(grids, list) or not isinstance(claims, list):
        raise UserInputError("grid" if not isinstance(grids, list) else "claims", "must be an array of tables ([[...]])")
    if not grids and not claims:
        raise UserInputError("grid", "an experiment needs at least one [[grid]] or [[claims]] table")
    figures = data.get("figure", [])
    if not isinstance(figures, list):
        raise UserInputError("figure", "must be an array of tables ([[figure]])")
    for index, spec in enumerate(figures):
        check_figure(spec, f"figure[{index}]")
    _distinct([spec["name"] for spec in figures], "figure", "the figure name")
    sources = _sources(name, grids, claims, base, quick)
    variants = [(sources, quick)]
    if not quick and any(isinstance(table, dict) and "quick" in table for table in grids + claims):
        # the quick variant is checked too (it is small): a bad override fails now, not on --quick
        variants.append((_sources(name, grids, claims, base, True), True))
    for variant, is_quick in variants:
        computed = {metric for source in variant for metric in source.metrics}
        for index, spec in enumerate(figures):
            _drawable(spec, computed, f"figure[{index}]", is_quick)
    return Experiment(name, str(data.get("title", name)), text, quick, tuple(sources), batch)


def _drawable(spec: dict, computed: set[str], where: str, quick: bool) -> None:
    """Refuse a figure reading a metric no grid computes: it would be drawn empty."""
    fields = [(key, spec[key]) for key in ("x", "y", "series") if key in spec]
    fields += [(f"where.{key}", key) for key in spec.get("where", {})]
    for key, value in fields:
        if isinstance(value, str) and value.startswith("metrics.") and value.removeprefix("metrics.") not in computed:
            raise UserInputError(f"{where}.{key}", f"no grid computes the metric {value.removeprefix('metrics.')!r}"
                                                   f"{' with --quick' if quick else ''} "
                                                   f"(computed: {', '.join(sorted(computed)) or 'none'})")


def _known(table: Any, allowed: set[str], where: str) -> None:
    if not isinstance(table, dict):
        raise UserInputError(where or "experiment", "must be a table")
    keys_of(table, allowed, where)


def _sources(name: str, grids: list, claims: list, base: Path, quick: bool) -> list[Source]:
    """The instances and cells of every grid and claims table, in the variant asked for."""
    sources: list[Source] = []
    for index, grid in enumerate(grids):
        where = f"grid[{index}]"
        sources.append(_variant(lambda table: _grid_source(name, table, base, where), grid, quick, where, GRID_KEYS))
    for index, entry in enumerate(claims):
        where = f"claims[{index}]"
        sources.append(_variant(lambda table: _claims_source(name, table, where), entry, quick, where, CLAIMS_KEYS))
    return sources


def _variant(build: Callable[[dict], Any], table: Any, quick: bool, where: str, allowed: set[str]) -> Any:
    """``build`` of the table, with its ``quick`` overrides applied when
    ``quick``. An error in an overridden key is named ``where.quick.KEY``,
    where it was written; one the overrides cause elsewhere says so; one the
    table has without them is raised as the table's own."""
    _known(table, allowed, where)
    table = dict(table)
    overrides = table.pop("quick", {})
    _known(overrides, allowed - {"quick"}, f"{where}.quick")
    if not quick or not overrides:
        return build(table)
    try:
        return build({**table, **overrides})
    except UserInputError as exc:
        key = exc.field.removeprefix(f"{where}.").split(".")[0].split("[")[0]
        if key in overrides and exc.field.startswith(f"{where}."):
            raise UserInputError(f"{where}.quick.{exc.field.removeprefix(f'{where}.')}", exc.message) from None
        build(table)  # raises the table's own error, if it is one
        raise UserInputError(exc.field, f"{exc.message} (with the {where}.quick overrides)") from None


def _grid_source(experiment: str, grid: dict, base: Path, where: str) -> Source:
    family = grid.get("family")
    if family not in FAMILIES:
        raise UserInputError(f"{where}.family", f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
    specs = list(_instance_specs(family, grid, base, where))
    objectives = _objectives(family, grid.get("objectives"), f"{where}.objectives")
    metrics = _metrics(family, grid.get("metrics", []), f"{where}.metrics")
    keep = grid.get("keep_schedules", True)
    if not isinstance(keep, bool):
        raise UserInputError(f"{where}.keep_schedules", f"must be true or false, got {keep!r}")
    algorithms = (_heuristics(family, grid, where)
                  + _solvers(grid.get("solvers", []), f"{where}.solvers", family, objectives))
    if not algorithms:
        raise UserInputError(f"{where}.heuristics", "a grid needs heuristics or solvers to run")
    _probe(family, specs, [(name, options) for kind, name, options, _ in algorithms if kind == "heuristic"], where,
           set(grid.get("vary", {})))
    asked = [(algorithm_key(objective, kind, name, options, limit, metrics, keep), objective, kind, name, options, limit)
             for objective in objectives for kind, name, options, limit in algorithms]
    return Source(experiment, specs, asked, metrics, keep)


def _instance_specs(family: str, grid: dict, base: Path, where: str):
    if "instances" in grid:
        if "generator" in grid:
            raise UserInputError(f"{where}.instances", "give a generator or instance files, not both")
        for key in ("params", "vary", "seeds"):
            if key in grid:
                raise UserInputError(f"{where}.{key}", "sets a generator's instances; instance files take none")
        pattern = grid["instances"]
        if not isinstance(pattern, str):
            raise UserInputError(f"{where}.instances", f"must be a glob pattern string, got {pattern!r}")
        paths = sorted(glob.glob(str(base / pattern), recursive=True))
        if not paths:
            raise UserInputError(f"{where}.instances", f"no file matches {pattern!r} (relative to {base})")
        for path in paths:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            yield InstanceSpec(family, "file", {"file": _portable(path)}, file_hash=digest)
        return
    generator = grid.get("generator")
    known = families.generators()
    if generator not in known:
        raise UserInputError(f"{where}.generator", f"unknown generator {generator!r} (known: {', '.join(sorted(known))})")
    params, vary = grid.get("params", {}), grid.get("vary", {})
    _table(params, f"{where}.params")
    _table(vary, f"{where}.vary")
    if "seed" in params or "seed" in vary:
        raise UserInputError(f"{where}.{'params' if 'seed' in params else 'vary'}.seed",
                             "the seed of each instance comes from seeds")
    for key, values in vary.items():
        if not isinstance(values, list) or not values:
            raise UserInputError(f"{where}.vary.{key}", f"must be a non-empty array of values, got {values!r}")
        _distinct(values, f"{where}.vary.{key}", "the value")
        if key in params:
            raise UserInputError(f"{where}.vary.{key}", "is also a fixed parameter in params")
    seeds = _seeds(grid.get("seeds", 1), f"{where}.seeds")
    axes = list(vary)
    for values in itertools.product(*(vary[a] for a in axes)):
        point = {**params, **dict(zip(axes, values))}
        for seed in seeds:   # one dict per point, shared by its seeds' specs
            yield InstanceSpec(family, generator, point, seed)


def _portable(path: str) -> str:
    """A file instance's path as stored: relative to the working directory when inside it."""
    resolved = Path(path).resolve()
    try:
        return str(resolved.relative_to(Path.cwd()))
    except ValueError:
        return str(resolved)


def _table(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise UserInputError(where, f"must be a table, got {value!r}")


def _distinct(values: list, where: str, what: str) -> None:
    """Refuse a value given twice: it would be dropped or run twice, never asked for."""
    texts: set[str] = set()  # TOML values may be tables and arrays (unhashable): compared by their JSON text
    for value in values:
        text = json.dumps(value, sort_keys=True, default=str)
        if text in texts:
            raise UserInputError(where, f"repeats {what} {value!r}")
        texts.add(text)


#: The most seeds a grid (or instances a claims table) asks for, and the
#: seed bound a store holds (SQLite's INTEGER): beyond, one clear refusal.
MAX_COUNT = 1_000_000
SEED_LIMIT = 2 ** 63


def _seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_COUNT:
        return list(range(value))
    if isinstance(value, list) and value and all(_seed(s) for s in value):
        _distinct(value, where, "the seed")
        return value
    raise UserInputError(where, f"must be a count from 1 to {MAX_COUNT:,} or a non-empty array of integer seeds "
                                f"from 0 to 2^63 - 1, got {value!r}")


def _seed(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < SEED_LIMIT


def _objectives(family: str, value: Any, where: str) -> list[str]:
    known = families.objectives(family)
    if value is None:
        return [known[0]]
    if not isinstance(value, list) or not value:
        raise UserInputError(where, f"must be a non-empty array of objective names, got {value!r}")
    for name in value:
        if name not in known:
            raise UserInputError(where, f"{name!r} is not an objective of {family} (known: {', '.join(known)})")
    _distinct(value, where, "the objective")
    return value


def _metrics(family: str, value: Any, where: str) -> tuple[str, ...]:
    known = families.metrics(family)
    if not isinstance(value, list):
        raise UserInputError(where, f"must be an array of metric names, got {value!r}")
    for name in value:
        if name not in known:
            raise UserInputError(where, f"{name!r} is not a metric of {family} (known: {', '.join(known) or 'none'})")
    _distinct(value, where, "the metric")
    return tuple(value)


def _heuristics(family: str, grid: dict, where: str) -> list[tuple[str, str, dict, float | None]]:
    """(kind, name, options, time limit) of every heuristic with every combination
    of its option axes; the time limit is what the exact references of its
    objective and metrics may take (``reference_time_limit``; None: the
    default limit, and the cell keys of files that do not set it)."""
    known = families.heuristics(family)
    names = grid.get("heuristics", [])
    if names == "all":
        names = list(known)
    if not isinstance(names, list):
        raise UserInputError(f"{where}.heuristics", f"must be \"all\" or an array of names, got {names!r}")
    for index, name in enumerate(names):
        if not isinstance(name, str) or name not in known:
            raise UserInputError(f"{where}.heuristics[{index}]", f"unknown {family} heuristic {name!r} "
                                                                 f"(known: {', '.join(known) or 'none'})")
    _distinct(names, f"{where}.heuristics", "the heuristic")
    axes = grid.get("heuristic_options", {})
    _table(axes, f"{where}.heuristic_options")
    for key, values in axes.items():
        if not isinstance(values, list) or not values:
            raise UserInputError(f"{where}.heuristic_options.{key}", f"must be a non-empty array, got {values!r}")
        _distinct(values, f"{where}.heuristic_options.{key}", "the value")
    keys = list(axes)
    combos = [dict(zip(keys, values)) for values in itertools.product(*(axes[k] for k in keys))]
    limit = _reference_limit(grid, bool(names), where)
    return [("heuristic", name, options, limit) for name in names for options in combos]


def _reference_limit(grid: dict, heuristics: bool, where: str) -> float | None:
    """The grid's ``reference_time_limit`` (None: the default, whose cells
    keep the keys they had before the key existed, written out or not)."""
    if "reference_time_limit" not in grid:
        return None
    if not heuristics:
        raise UserInputError(f"{where}.reference_time_limit", "sets what a heuristic cell's exact references may "
                                                               "take, and this grid runs no heuristic")
    limit = _seconds(grid["reference_time_limit"], f"{where}.reference_time_limit")
    return None if limit == DEFAULT_TIME_LIMIT else limit


def _solvers(entries: Any, where: str, family: str, objectives: list[str]) -> list[tuple[str, str, dict, float | None]]:
    if not isinstance(entries, list):
        raise UserInputError(where, "must be an array of tables such as { name = \"cpsat\", time_limit = 10 }")
    out = []
    for index, entry in enumerate(entries):
        place = f"{where}[{index}]"
        _known(entry, SOLVER_KEYS, place)
        name = entry.get("name")
        known = families.backends(family)
        if name not in known:
            raise UserInputError(f"{place}.name", f"{family} takes the solvers {', '.join(known)}, not {name!r}")
        if name == "portfolio" and family != "pcmax" and objectives != ["unconstrained-makespan"]:
            raise UserInputError(f"{place}.name", "the portfolio solves P||Cmax problems only (pcmax, or mosp's "
                                                  "unconstrained-makespan); other models take cpsat or milp")
        limit = _seconds(entry.get("time_limit", DEFAULT_TIME_LIMIT), f"{place}.time_limit")
        workers = entry.get("workers", 1)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise UserInputError(f"{place}.workers", f"must be an integer >= 1, got {workers!r}")
        out.append(("solver", name, {"workers": workers}, limit))
    _distinct([{"name": name, "time_limit": limit, **options} for _, name, options, limit in out], where, "the solver")
    return out


def _seconds(value: Any, where: str) -> float:
    """A time limit (TOML has nan and inf)."""
    problem = seconds_problem(value)
    if problem:
        raise UserInputError(where, problem)
    return float(value)


def _claims_source(experiment: str, entry: dict, where: str) -> Source:
    family = entry.get("family")
    if family not in families.names() or families.ledger(family) is None:
        known = [f for f in families.names() if families.ledger(f)]
        raise UserInputError(f"{where}.family", f"no claims ledger for {family!r} (known: {', '.join(known)})")
    options = {"instances": entry.get("instances", 100), "seed": entry.get("seed", 0),
               "solver": entry.get("solver", "cpsat")}
    limit = entry.get("time_limit", 20.0)
    for key, value, most in (("instances", options["instances"], MAX_COUNT), ("seed", options["seed"], SEED_LIMIT - 1)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise UserInputError(f"{where}.{key}", f"must be an integer from 0 to {most:,}, got {value!r}")
    if options["solver"] not in families.model_backends():
        raise UserInputError(f"{where}.solver", f"must be one of {', '.join(families.model_backends())}, "
                                                f"got {options['solver']!r}")
    _seconds(limit, f"{where}.time_limit")
    spec = InstanceSpec(family, "claims", options, options["seed"])
    return Source(experiment, [spec], [(algorithm_key(None, "claims", family, {}, float(limit)), None, "claims", family,
                                        {}, float(limit))], (), False)


def build_instance(spec: InstanceSpec):
    """The instance of ``spec``: its generator called with its parameters and seed, or its file loaded."""
    if spec.generator == "file":
        return load_instance(_locate(spec.params["file"]))
    generator = families.generators()[spec.generator]
    seed = {"seed": spec.seed} if spec.seed is not None and _takes_seed(generator) else {}
    return generator(**spec.params, **seed)


def rebuild_instance(row: dict[str, Any]):
    """The instance of a stored cell, built again from its generator call or file."""
    if row["generator"] == "claims":
        raise UserInputError("--cell", "a claims cell has no single instance")
    return build_instance(InstanceSpec(row["family"], row["generator"], json.loads(row["params"]), row["seed"]))


def _locate(path: str) -> Path:
    """A stored instance path: as written, else inside the installed corpus."""
    candidate = Path(path)
    if candidate.exists():
        return candidate
    packaged = Path(schedbench.instances.__file__).parent / candidate
    return packaged if packaged.exists() else candidate


@functools.cache
def _takes_seed(generator) -> bool:
    return "seed" in inspect.signature(generator).parameters


def _within(where: str, exc: UserInputError) -> UserInputError:
    """``exc`` with its field placed inside the experiment file's ``where``."""
    return UserInputError(f"{where}.{exc.field}" if exc.field else where, exc.message)


def _probe(family: str, specs: list[InstanceSpec], heuristics: list[tuple[str, dict]], where: str,
           varied: set[str]) -> None:
    """Build the first instance of every parameter combination (each file) and
    convert each heuristic's options on it, so that a generator of another
    family, a parameter it does not take, a value it refuses or an option a
    heuristic does not take is one line naming the field now (``vary.X``
    for a parameter of ``varied``, else ``params.X``), not a grid of error
    cells."""
    probed: set[str] = set()
    for spec in specs:
        key = repr(spec.params)
        if key in probed:
            continue
        probed.add(key)
        place = f"{where}.instances" if spec.generator == "file" else where
        try:
            instance = build_instance(spec)
        except UserInputError as exc:
            name = exc.field.removeprefix("params.")
            if name in varied and exc.field == f"params.{name}":
                exc = UserInputError(f"vary.{name}", exc.message)
            raise _within(place, exc) from None
        except Exception as exc:  # a generator failing outright on these parameters
            raise UserInputError(f"{where}.params", f"the generator fails: {type(exc).__name__}: {exc}") from None
        if instance.family != family:
            what = spec.params["file"] if spec.generator == "file" else repr(spec.generator)
            raise UserInputError(f"{where}.generator" if spec.generator != "file" else place,
                                 f"{what} is a {instance.family} instance, not {family}")
        if len(probed) == 1:
            for name, options in heuristics:
                try:
                    families.heuristic_arguments(family, name, instance, options)
                except UserInputError as exc:
                    raise UserInputError(f"{where}.heuristic_{exc.field}",
                                         exc.message) from None


def select_batch(sources: tuple[Source, ...], batch: tuple[int, int] | None) -> tuple[Task, ...]:
    """The tasks of batch K of N (1-based; every task without a batch): one
    per instance, with the cells every source asks of it (two grids may
    overlap). A batch builds only its own cells: a batch of a grid of
    millions of cells costs its share of them."""
    return tuple(_task(spec, askers) for spec, askers in _askers(sources, batch))


def _askers(sources: tuple[Source, ...], batch: tuple[int, int] | None) -> list[tuple[InstanceSpec, list[Source]]]:
    """Batch K of N's instances, each with the sources that ask for it: the
    instances dealt round-robin in the order of their keys, a fixed order
    whatever the file's (every instance without a batch, in the file's order)."""
    askers: dict[str, tuple[InstanceSpec, list[Source]]] = {}
    for source in sources:
        for spec in source.specs:
            askers.setdefault(spec.text, (spec, []))[1].append(source)
    keys = list(askers) if batch is None else sorted(askers)[batch[0] - 1::batch[1]]
    return [askers[key] for key in keys]


def _task(spec: InstanceSpec, askers: list[Source]) -> Task:
    """The instance's task: the cells of every source that asks for it, each
    once, in the order first asked (a cell's id covers every field it has)."""
    cells = {cell.cell_id: cell for source in askers for cell in source.task(spec).cells}
    return Task(askers[0].experiment, spec, tuple(cells.values()))


def parse_batch(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    k, slash, n = text.partition("/")
    if slash and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n):
        return int(k), int(n)
    raise UserInputError("--batch", f"must be K/N with 1 <= K <= N, e.g. 2/8, got {text!r}")
