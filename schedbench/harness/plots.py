"""Figures from a results store, following an experiment's ``[[figure]]``
tables (docs/experiments.md), and Gantt charts of single schedules.

Each figure is written as NAME.png, NAME.pdf and NAME.csv: the numbers
drawn, so that every statistic a figure shows can be read and cited. Line
and bar figures show a mean with its 95% Student t confidence interval, or
(``stat = "median"``, as the P-SLR paper reports heavy-tailed worst-case
SLRs) a median with its distribution-free 95% interval from order
statistics. A metric that is a list (one value per campaign, per user, per
job) contributes each element as a sample: its distribution; a metric that
is a table ``{key: value}`` is drawn against its keys with ``x = "key"``.
``compare = [A, B]`` adds, at each x, a paired t-test of series A against
series B over the instances both ran (the P-SLR paper's test of P-SLR
against SRTF). ``statements`` are the paper's readings of the figure,
checked on these numbers (``bench.statements``). Drawing uses matplotlib's object interface (``Figure``,
rendered by Agg), never pyplot's global state.
"""

import re
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from gmpy2 import mpq

from schedbench.harness.analysis import (check_field, experiment_cells, field, half_width, median_interval, paired_t,
                                       percentile, ratio_rows, rational_mean, sort_key)
from schedbench.harness.statements import check_statements, verdicts
from schedbench.harness.style import STYLES, FigureStyle, font_context, new_figure, series_style
from schedbench.errors import UserInputError
from schedbench.families import gantt_bars
from schedbench.model.shape import keys_of

KINDS = ("line", "hist", "ecdf", "bar", "box")
FIGURE_KEYS = {"name", "title", "kind", "where", "x", "y", "series", "xlabel", "ylabel", "bins", "stat", "yscale",
               "xscale", "compare", "statements"}
#: ``x = "key"``: the keys of a table-valued metric.
KEY = "key"
STATS = ("mean", "median")
SCALES = ("linear", "log")
GANTT_LEGEND_MAX = 12
TICKS_MAX = 12      # a line figure labels each x value when there are at most this many
LEGEND_INSIDE_MAX = 6   # more series than this: the legend goes beside the axes


def check_figure(spec: Any, where: str) -> None:
    """Reject a malformed ``[[figure]]`` table, naming the field (call it when an experiment is loaded)."""
    if not isinstance(spec, dict):
        raise UserInputError(where, "must be a table")
    keys_of(spec, FIGURE_KEYS, where)
    name = spec.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise UserInputError(f"{where}.name", f"must be a file name of letters, digits, '_', '.', '-', got {name!r}")
    if spec.get("kind") not in KINDS:
        raise UserInputError(f"{where}.kind", f"must be one of {', '.join(KINDS)}, got {spec.get('kind')!r}")
    if "y" not in spec:
        raise UserInputError(f"{where}.y", "is required (value, ratio_to_optimum, ratio_to_bound, metrics.NAME, ...)")
    if spec["kind"] == "line" and "x" not in spec:
        raise UserInputError(f"{where}.x", "a line figure needs x")
    for key in ("x", "y", "series"):
        if key in spec and not (key == "x" and spec[key] == KEY):
            check_field(spec[key], f"{where}.{key}")
    compare = spec.get("compare")
    if compare is not None and not (isinstance(compare, list) and len(compare) == 2 and "series" in spec
                                    and all(isinstance(c, str) for c in compare)):
        raise UserInputError(f"{where}.compare", f"must be two series names [A, B] of a figure with series, "
                                                 f"got {compare!r}")
    filters = spec.get("where", {})
    if not isinstance(filters, dict):
        raise UserInputError(f"{where}.where", "must be a table of field = value")
    for key in filters:
        check_field(key, f"{where}.where.{key}")
    for key, allowed in (("stat", STATS), ("yscale", SCALES), ("xscale", SCALES)):
        if spec.get(key, allowed[0]) not in allowed:
            raise UserInputError(f"{where}.{key}", f"must be one of {', '.join(allowed)}, got {spec[key]!r}")
    bins = spec.get("bins", 20)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise UserInputError(f"{where}.bins", f"must be an integer >= 1, got {bins!r}")
    check_statements(spec, where)


def figure_specs(runs: list[dict[str, Any]], experiment: str | None = None) -> list[tuple[str, dict]]:
    """(experiment, figure table) of every figure of the experiments run into
    the store (each as of its latest run), or of the one named."""
    texts: dict[str, str] = {}
    for run in runs:
        if experiment is None or run["experiment"] == experiment:
            texts[run["experiment"]] = run["experiment_text"] or ""
    specs = []
    for name, text in sorted(texts.items()):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise UserInputError("STORE", f"the stored text of experiment {name!r} is not valid TOML: {exc}") from None
        figures = data.get("figure", [])
        if not isinstance(figures, list):
            raise UserInputError(f"{name}: figure", "must be an array of tables ([[figure]])")
        for index, spec in enumerate(figures):
            check_figure(spec, f"{name}: figure[{index}]")
            specs.append((name, spec))
    return specs


def figure_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row, heuristic rows with their ratios (what figures select from)."""
    return ratio_rows(rows) + [r for r in rows if r["kind"] != "heuristic"]


def _matches(row: dict[str, Any], filters: dict[str, Any]) -> bool:
    """Every filter holds; a filter value that is an array means "one of",
    or that array itself (a list-valued field such as workflow-small's jobs)."""
    for name, wanted in filters.items():
        value = field(row, name)
        if not (value == wanted or (isinstance(wanted, list) and value in wanted)):
            return False
    return True


def _points(spec: dict, rows: list[dict[str, Any]]) -> dict[Any, list[tuple[Any, Any, tuple]]]:
    """series value -> [(x, y, pair)] of the selected rows; a list y gives
    one point per element, a table y (with ``x = "key"``) one per key, a
    row without y (a cell that failed, or whose reference was not proven)
    one point with y None: counted as missing, never drawn. ``pair`` names
    the instance, so two series can be paired."""
    out: dict[Any, list[tuple[Any, Any, tuple]]] = {}
    for row in rows:
        if not _matches(row, spec.get("where", {})):
            continue
        y = field(row, spec["y"])
        series = _axis(spec, "series", row) if "series" in spec else None
        pair = (row.get("params"), row.get("seed"), row.get("instance_hash"))
        if y is None:
            samples = [(_axis(spec, "x", row) if spec.get("x", KEY) != KEY else None, None)]
        elif isinstance(y, dict):
            if spec.get("x") != KEY:
                raise UserInputError(f"figure {spec['name']}.x", f"{spec['y']} is a table: draw it with x = \"key\"")
            samples = [(_key(k), _number(spec, v)) for k, v in y.items()]
        else:
            x = _axis(spec, "x", row) if "x" in spec else None
            samples = [(x, _number(spec, v)) for v in (y if isinstance(y, list) else [y])]
        out.setdefault(series, []).extend((x, v, pair) for x, v in samples)
    return dict(sorted(out.items(), key=lambda item: sort_key(item[0])))


def _key(text: str) -> Any:
    """A table metric's key: a number when it reads as one."""
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return text


def _number(spec: dict, value: Any) -> Fraction | float | int:
    if isinstance(value, str):
        value = _key(value)
    if isinstance(value, (str, bool)) or value is None:
        raise UserInputError(f"figure {spec['name']}.y", f"{spec['y']} is not numeric (got {value!r})")
    return value


def statistics(spec: dict, points: dict) -> list[dict[str, Any]]:
    """What a figure shows, per series and x: n and the centre with its 95%
    interval (line, bar: the figure's ``stat``; hist, box: the median and
    the extremes). These are the CSV's rows and the report's table."""
    stat = spec.get("stat", "mean") if spec["kind"] in ("line", "bar") else "median"
    out = []
    for series, triples in points.items():
        by_x: dict[Any, list] = {}
        for x, y, _ in triples:
            by_x.setdefault(x, []).append(y)
        for x in sorted(by_x, key=sort_key):
            values = [y for y in by_x[x] if y is not None]
            row = {"series": _label(series), "x": _label(x), "n": len(values), "missing": len(by_x[x]) - len(values),
                   "stat": stat, "centre": None, "low": None, "high": None, "min": None, "max": None,
                   "exact": None,           # the exact centre, which statements read
                   "of": series, "at": x}   # the raw series and x, for drawing
            if values:
                exact, down, up = _centre(values, stat)
                centre = float(exact)
                row.update(centre=centre, low=centre - down, high=centre + up, min=float(min(values)),
                           max=float(max(values)), exact=exact)
            out.append(row)
    return out


def comparisons(spec: dict, points: dict) -> list[dict[str, Any]]:
    """``compare = [A, B]``: at each x, the paired t-test of A's y against
    B's over the instances both have (one value each; a distribution metric
    is not paired)."""
    if "compare" not in spec:
        return []
    a, b = spec["compare"]
    by_name = {_label(series): triples for series, triples in points.items()}
    samples = [{(x, pair): y for x, y, pair in by_name.get(name, []) if y is not None} for name in (a, b)]
    out = []
    for x in sorted({x for x, _ in samples[0]} & {x for x, _ in samples[1]}, key=sort_key):
        paired = [(y, samples[1][(x2, pair)]) for (x2, pair), y in samples[0].items()
                  if x2 == x and (x2, pair) in samples[1]]
        test = paired_t([y for y, _ in paired], [z for _, z in paired])
        out.append({"x": _label(x), "a": a, "b": b, "pairs": len(paired), **test})
    return out


def _axis(spec: dict, key: str, row: dict[str, Any]) -> Any:
    """A row's x or series value as a key: a list (a varied parameter such
    as workflow-small's jobs = [2, 3]) as a tuple; a table is refused."""
    value = field(row, spec[key])
    if isinstance(value, dict):
        raise UserInputError(f"figure {spec['name']}.{key}", f"{spec[key]} is a table: draw it as y, with x = \"key\"")
    return _hashable(value)


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def _label(value: Any) -> str:
    if isinstance(value, tuple):  # a list made hashable, shown as written
        return "[" + ", ".join(_label(v) for v in value) + "]"
    return "" if value is None else str(value)


def _numeric(values: list[Any]) -> bool:
    return all(sort_key(v)[0] == 0 for v in values)


def _position(value: Any) -> float:
    return float(sort_key(value)[1])


def _centre(values: list, stat: str) -> tuple[Fraction | mpq, float, float]:
    """(exact centre, distance down, distance up) of the 95% interval, the
    distances floats for drawing: the mean and its t interval (nothing for
    one value), or the median and its order-statistic interval."""
    if stat == "median":
        middle = percentile(values, Fraction(1, 2))
        low, high, _ = median_interval(values)
        return middle, float(middle - low), float(high - middle)
    width = half_width(values) or 0.0
    return rational_mean(values), width, width


@dataclass(frozen=True)
class Drawn:
    """A figure as written: its files and the numbers it shows."""

    images: tuple[Path, ...]           # one per suffix of the style: PNG and PDF on screen, PDF, SVG and PNG for papers
    csv: Path
    shown: list[dict[str, Any]]
    tests: list[dict[str, Any]]
    statements: list[dict[str, Any]]   # the paper's readings of the figure, with verdicts

    @property
    def png(self) -> Path:
        return next(path for path in self.images if path.suffix == ".png")

    @property
    def paths(self) -> tuple[Path, ...]:
        return (*self.images, self.csv)


def save(figure: Any, out_dir: Path, stem: str, style: FigureStyle) -> tuple[Path, ...]:
    """``figure`` written as STEM.SUFFIX for each of the style's suffixes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = tuple(out_dir / f"{stem}.{suffix}" for suffix in style.suffixes)
    for path in paths:
        figure.savefig(path, dpi=style.dpi)
    return paths


def draw(spec: dict, rows: list[dict[str, Any]], out_dir: Path, stem: str | None = None,
         style: FigureStyle = STYLES["screen"]) -> Drawn:
    """Draw one figure from ``figure_rows`` output and write its numbers (CSV)."""
    with font_context(style):
        return _draw(spec, rows, out_dir, stem or spec["name"], style)


def _draw(spec: dict, rows: list[dict[str, Any]], out_dir: Path, stem: str, style: FigureStyle) -> Drawn:
    triples = _points(spec, rows)
    points = {series: drawn for series, values in triples.items()
              if (drawn := [(x, y) for x, y, _ in values if y is not None])}
    figure = new_figure(style)
    ax = figure.add_subplot()
    shown, tests = statistics(spec, triples), comparisons(spec, triples)
    if points:
        DRAWERS[spec["kind"]](ax, points, [r for r in shown if r["n"]], spec)
        if len(points) > 1 or None not in points:
            if len(points) > LEGEND_INSIDE_MAX:  # beside the axes, in columns that fit the figure's height
                ax.legend(title=spec.get("series"), fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1),
                          ncols=1 + len(points) // 16)
            else:
                ax.legend(title=spec.get("series"), fontsize="small")
    else:
        ax.text(0.5, 0.5, "no rows match this figure", ha="center", va="center", transform=ax.transAxes)
    missing = sum(r["missing"] for r in shown)
    if missing:
        ax.text(0.01, 0.01, f"{missing} selected cells without a value (not drawn; see the CSV)", fontsize="small",
                color="darkred", transform=ax.transAxes)
    ax.set_yscale(spec.get("yscale", "linear"))
    if spec["kind"] == "line" and spec.get("xscale") == "log":
        ax.set_xscale("log")   # a histogram sets its own, with its bins
    ax.set_title(spec.get("title", spec["name"]))
    distribution = spec["kind"] in ("hist", "ecdf")
    ax.set_xlabel(spec.get("xlabel", spec.get("x", spec["y"] if distribution else "")))
    ax.set_ylabel(spec.get("ylabel", {"hist": "count", "ecdf": "fraction of values <= x"}.get(spec["kind"], spec["y"])))
    ax.grid(True, alpha=0.3)
    images = save(figure, out_dir, stem, style)
    table = out_dir / f"{stem}.csv"
    statements = verdicts(spec, shown, tests)
    _write_numbers(table, shown, tests, statements)
    return Drawn(images, table, shown, tests, statements)


def _write_numbers(path: Path, shown: list[dict[str, Any]], tests: list[dict[str, Any]],
                   statements: list[dict[str, Any]]) -> None:
    """The figure's statistics, then its paired tests and the verdicts of its statements, as one CSV."""
    import csv

    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        columns = ("series", "x", "n", "missing", "stat", "centre", "low", "high", "min", "max")
        writer.writerow(columns)
        writer.writerows([r[k] for k in columns] for r in shown)
        if tests:
            writer.writerow([])
            writer.writerow(["x", "a", "b", "pairs", "mean_difference", "t", "p"])
            writer.writerows([r[k] for k in ("x", "a", "b", "pairs", "mean_difference", "t", "p")] for r in tests)
        if statements:
            writer.writerow([])
            writer.writerow(["claim", "test", "verdict", "detail", "text"])
            writer.writerows([r[k] for k in ("claim", "test", "verdict", "detail", "text")] for r in statements)


def _styled(series: Any) -> dict[str, Any]:
    """The series' label and colour (each drawer adds its marker, line style or hatch)."""
    return {"label": _label(series), "color": series_style(_label(series)).colour}


def _line(ax, points: dict, shown: list[dict[str, Any]], spec: dict) -> None:
    """The centre of y per x (``statistics``), one line per series, with its 95% interval."""
    xs = sorted({r["at"] for r in shown}, key=sort_key)
    numeric = _numeric(xs)
    for series in points:
        rows = [r for r in shown if r["of"] == series]
        positions = [_position(r["at"]) if numeric else xs.index(r["at"]) for r in rows]
        slot = series_style(_label(series))
        ax.errorbar(positions, [r["centre"] for r in rows], yerr=_errors(rows), capsize=3, marker=slot.marker,
                    linestyle=slot.linestyle, **_styled(series))
    if not numeric:
        ax.set_xticks(range(len(xs)), [_label(x) for x in xs])
    elif len(xs) <= TICKS_MAX:
        ax.set_xticks([_position(x) for x in xs], [_label(x) for x in xs])


def _errors(rows: list[dict[str, Any]]) -> list[list[float]]:
    """matplotlib's two-row yerr from ``statistics`` rows."""
    return [[r["centre"] - r["low"] for r in rows], [r["high"] - r["centre"] for r in rows]]


def _hist(ax, points: dict, shown: list[dict[str, Any]], spec: dict) -> None:
    """Histograms of y per series on shared bins."""
    import numpy

    values = {s: [float(y) for _, y in pairs] for s, pairs in points.items()}
    every = [v for vs in values.values() for v in vs]
    if spec.get("xscale") == "log" and min(every) > 0:   # log-spaced bins, for values over several decades
        edges = numpy.geomspace(min(every), max(every), spec.get("bins", 20) + 1)
        ax.set_xscale("log")
    else:
        edges = numpy.histogram_bin_edges(every, bins=spec.get("bins", 20))
    for series, vs in values.items():
        ax.hist(vs, bins=edges, alpha=0.6 if len(values) > 1 else 0.9, hatch=series_style(_label(series)).hatch,
                **_styled(series))


def _ecdf(ax, points: dict, shown: list[dict[str, Any]], spec: dict) -> None:
    """The empirical distribution of y per series as steps, one over another
    without hiding each other (where overlaid histograms would)."""
    for series, pairs in points.items():
        slot = series_style(_label(series))
        ax.ecdf([float(y) for _, y in pairs], linestyle=slot.linestyle, marker=slot.marker,
                markevery=max(1, len(pairs) // 8), **_styled(series))
    if spec.get("xscale") == "log":
        ax.set_xscale("log")
    ax.set_ylim(0, 1.02)


def _grouped(points: dict) -> tuple[list, list, dict]:
    """Categories (x values, or one) on the axis, series side by side within each."""
    categories = sorted({x for pairs in points.values() for x, _ in pairs}, key=sort_key)
    cells: dict[tuple, list] = {}
    for series, pairs in points.items():
        for x, y in pairs:
            cells.setdefault((x, series), []).append(y)
    return categories, list(points), cells


def _offsets(count: int) -> tuple[list[float], float]:
    width = 0.8 / count
    return [(i - (count - 1) / 2) * width for i in range(count)], width


def _bar(ax, points: dict, shown: list[dict[str, Any]], spec: dict) -> None:
    """The centre of y per category and series (``statistics``), with its 95% interval."""
    categories = sorted({r["at"] for r in shown}, key=sort_key)
    offsets, width = _offsets(len(points))
    for offset, series in zip(offsets, points):
        rows = [r for r in shown if r["of"] == series]
        ax.bar([categories.index(r["at"]) + offset for r in rows], [r["centre"] for r in rows], width,
               yerr=_errors(rows), capsize=3, hatch=series_style(_label(series)).hatch, **_styled(series))
    _category_ticks(ax, categories)


def _box(ax, points: dict, shown: list[dict[str, Any]], spec: dict) -> None:
    """Distribution of y per category and series."""
    categories, series_list, cells = _grouped(points)
    offsets, width = _offsets(len(series_list))
    for offset, series in zip(offsets, series_list):
        present = [(i, cells[(x, series)]) for i, x in enumerate(categories) if (x, series) in cells]
        parts = ax.boxplot([[float(v) for v in values] for _, values in present],
                           positions=[i + offset for i, _ in present], widths=width * 0.9, patch_artist=True,
                           manage_ticks=False, medianprops={"color": "black"})
        for box in parts["boxes"]:
            box.set_facecolor(series_style(_label(series)).colour)
            box.set_hatch(series_style(_label(series)).hatch)
        parts["boxes"][0].set_label(_label(series))
    _category_ticks(ax, categories)


def _category_ticks(ax, categories: list) -> None:
    ax.set_xticks(range(len(categories)), [_label(x) for x in categories])


DRAWERS = {"line": _line, "hist": _hist, "ecdf": _ecdf, "bar": _bar, "box": _box}


def draw_all(specs: list[tuple[str, dict]], rows: list[dict[str, Any]], out_dir: Path, runs: list[dict[str, Any]],
             members: dict[tuple[str, int], set[str]], style: FigureStyle = STYLES["screen"]) -> list[tuple[dict, Drawn]]:
    """Every figure, each from its own experiment's cells among ``figure_rows``
    output; a name taken by an earlier experiment's figure becomes EXPERIMENT-NAME."""
    taken: set[str] = set()
    drawn = []
    for experiment, spec in specs:
        stem = spec["name"] if spec["name"] not in taken else f"{experiment}-{spec['name']}"
        taken.add(stem)
        cells = experiment_cells(experiment, runs, members)
        drawn.append((spec, draw(spec, [r for r in rows if r["cell_id"] in cells], out_dir, stem, style)))
    return drawn


def _natural(text: str) -> tuple:
    """'m10' after 'm9': digit runs compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


#: The files a Gantt chart is written as, by suffix.
GANTT_FORMATS = (".png", ".svg", ".pdf")


def gantt(bars: list, out: Path, title: str = "") -> Path:
    """``gantt_figure`` written as PNG, SVG or PDF by ``out``'s suffix."""
    out = Path(out)
    if out.suffix not in GANTT_FORMATS:
        raise UserInputError("--out", f"a Gantt chart is written as {', '.join(GANTT_FORMATS)}, not {out.name!r}")
    figure = gantt_figure(bars, title)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=120)
    return out


def gantt_figure(bars: list, title: str = ""):
    """A Gantt chart as a matplotlib ``Figure``: one lane per row (natural
    order, top down), one colour per group, a legend when there are few groups."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    lanes = sorted({b.row for b in bars}, key=_natural)
    group_names = sorted({b.group for b in bars}, key=_natural)
    palette = colormaps["tab10" if len(group_names) <= 10 else "tab20"]
    colours = {g: palette(i % palette.N) for i, g in enumerate(group_names)}
    figure = Figure(figsize=(9, 1.2 + 0.45 * max(len(lanes), 1)), layout="constrained")
    ax = figure.add_subplot()
    lane = {name: i for i, name in enumerate(lanes)}
    for bar in bars:
        ax.barh(lane[bar.row], bar.length, left=bar.start, height=0.8, color=colours[bar.group],
                edgecolor="black", linewidth=0.5)
    ax.set_yticks(range(len(lanes)), lanes)
    ax.invert_yaxis()
    ax.set_xlabel("time")
    ax.set_title(title)
    if not bars:
        ax.text(0.5, 0.5, "no jobs", ha="center", va="center", transform=ax.transAxes)
    if 0 < len(group_names) <= GANTT_LEGEND_MAX:
        ax.legend(handles=[Patch(color=colours[g], label=g) for g in group_names], fontsize="small",
                  loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def gantt_of(instance, schedule, out: Path, title: str = "", warning: str = "") -> Path:
    """The Gantt chart of a schedule of an instance (bars from the family
    door); ``warning`` (an invalid schedule's violation) heads the title."""
    title = title or getattr(instance, "name", "") or instance.family
    return gantt(gantt_bars(instance, schedule), out, f"{warning}\n{title}" if warning else title)
