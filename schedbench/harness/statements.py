"""The papers' statements about their figures, checked on what the figure shows.

A paper's experimental claims are read off its curves ("a local minimum at
about D/2", "P-SLR has the lowest worst-case SLR up to 1000 %", "not
statistically significant"). A ``[[figure]]`` table states them in
``statements``; each is checked on the figure's own numbers
(``plots.statistics``: the exact mean or median per series and x, and
``plots.comparisons``: the paired tests), so a verdict is read from exactly
what is drawn, never from a second computation. The tests:

- ``local-minimum``: each series in ``series`` has a strict interior local
  minimum (below both neighbours) at one of the x values in ``at``;
- ``no-local-minimum``: no series in ``series`` has one anywhere;
- ``below`` / ``above``: the first series of ``series`` is below (above)
  every series in ``than`` (a list, or ``"others"``) at every x in ``at``;
- ``significant`` / ``not-significant``: the figure's paired test
  (``compare = [A, B]``) has p < 0.05 (p >= 0.05) at every x in ``at``;
  ``significant`` with ``direction = "below"`` or ``"above"`` also needs A's
  mean to be below (above) B's there.

``series`` defaults to every series and ``at`` to every x. A verdict is
``holds``, ``violated``, or ``no data`` when the figure lacks a series or x
the statement names (a quick run, a missing cell): never a guess.
"""

from typing import Any

from schedbench.harness.analysis import sort_key
from schedbench.errors import UserInputError
from schedbench.model.shape import keys_of

TESTS = ("local-minimum", "no-local-minimum", "below", "above", "significant", "not-significant")
KEYS = {"claim", "text", "test", "series", "than", "at", "direction"}
LEVEL = 0.05
HOLDS, VIOLATED, NO_DATA = "holds", "violated", "no data"


def check_statements(spec: dict, where: str) -> None:
    """Reject a malformed ``statements`` array of a figure, naming the field."""
    statements = spec.get("statements", [])
    if not isinstance(statements, list):
        raise UserInputError(f"{where}.statements", "must be an array of tables")
    for index, statement in enumerate(statements):
        at = f"{where}.statements[{index}]"
        if not isinstance(statement, dict):
            raise UserInputError(at, "must be a table")
        keys_of(statement, KEYS, at)
        for key in ("claim", "text"):
            if not isinstance(statement.get(key), str) or not statement[key]:
                raise UserInputError(f"{at}.{key}", "is required: a non-empty string")
        if statement.get("test") not in TESTS:
            raise UserInputError(f"{at}.test", f"must be one of {', '.join(TESTS)}, got {statement.get('test')!r}")
        for key in ("series", "at"):
            if key in statement and not _strings(statement[key]):
                raise UserInputError(f"{at}.{key}", f"must be a list of labels as the figure's CSV shows them, "
                                                    f"got {statement[key]!r}")
        test = statement["test"]
        if test in ("below", "above"):
            than = statement.get("than")
            if not (than == "others" or _strings(than)):
                raise UserInputError(f"{at}.than", f"a {test} statement needs than = [series, ...] or \"others\"")
            if not statement.get("series"):
                raise UserInputError(f"{at}.series", f"a {test} statement names its series first: series = [A]")
        if test in ("significant", "not-significant") and "compare" not in spec:
            raise UserInputError(f"{at}.test", f"{test} reads the figure's paired test: set compare = [A, B]")
        if "direction" in statement and (test != "significant" or statement["direction"] not in ("below", "above")):
            raise UserInputError(f"{at}.direction", "only a significant statement has one: \"below\" or \"above\"")


def _strings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def verdicts(spec: dict, shown: list[dict[str, Any]], tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each statement of the figure with its verdict and the numbers it read."""
    curves: dict[str, dict[str, Any]] = {}
    order: dict[str, Any] = {}
    for row in shown:
        if row["n"]:
            curves.setdefault(row["series"], {})[row["x"]] = row["exact"]
            order[row["x"]] = row["at"]
    xs = sorted(order, key=lambda x: sort_key(order[x]))
    return [{"claim": s["claim"], "text": s["text"], "test": s["test"],
             **CHECKS[s["test"]](s, curves, xs, {r["x"]: r for r in tests})} for s in spec.get("statements", [])]


def verdict_rows(drawn_figures) -> list[dict[str, Any]]:
    """Every statement of the drawn figures (``plots.Drawn``, as ``(spec, drawn)``
    pairs), with the figure it reads: the rows of the report's and ``plot
    --statements``'s tables."""
    return [{"figure": drawn.csv.stem, **r} for _, drawn in drawn_figures for r in drawn.statements]


def _verdict(ok: bool, detail: str) -> dict[str, str]:
    return {"verdict": HOLDS if ok else VIOLATED, "detail": detail}


def _no_data(what: str) -> dict[str, str]:
    return {"verdict": NO_DATA, "detail": f"the figure has no {what}"}


def _series(statement: dict, curves: dict) -> list[str] | None:
    named = statement.get("series", sorted(curves, key=sort_key))
    return named if all(name in curves for name in named) else None


def _minima(curve: dict, xs: list[str]) -> list[str]:
    """The x of every strict interior local minimum of a curve (over the x it has)."""
    present = [x for x in xs if x in curve]
    return [b for a, b, c in zip(present, present[1:], present[2:]) if curve[b] < curve[a] and curve[b] < curve[c]]


def _local_minimum(statement: dict, curves: dict, xs: list[str], _tests: dict) -> dict[str, str]:
    names = _series(statement, curves)
    if names is None:
        return _no_data(f"series {statement.get('series')}")
    wanted = statement.get("at", xs)
    if not set(wanted) & set(xs):
        return _no_data(f"x in {wanted}")
    found = {name: _minima(curves[name], xs) for name in names}
    ok = all(set(minima) & set(wanted) for minima in found.values())
    return _verdict(ok, "; ".join(f"{name}: minima at {minima or 'none'}" for name, minima in found.items()))


def _no_local_minimum(statement: dict, curves: dict, xs: list[str], _tests: dict) -> dict[str, str]:
    names = _series(statement, curves)
    if names is None:
        return _no_data(f"series {statement.get('series')}")
    found = {name: _minima(curves[name], xs) for name in names}
    return _verdict(not any(found.values()),
                    "; ".join(f"{name}: minima at {minima or 'none'}" for name, minima in found.items()))


def _ordered(statement: dict, curves: dict, xs: list[str], _tests: dict) -> dict[str, str]:
    first = statement["series"][0]
    than = [s for s in curves if s != first] if statement["than"] == "others" else statement["than"]
    if first not in curves or not than or any(s not in curves for s in than):
        return _no_data(f"series {[first, *statement['than']] if statement['than'] != 'others' else first}")
    points = [x for x in statement.get("at", xs) if x in curves[first] and all(x in curves[s] for s in than)]
    if not points:
        return _no_data(f"x in {statement.get('at', xs)} on every series named")
    below = statement["test"] == "below"
    failed = [(x, s) for x in points for s in than
              if not (curves[first][x] < curves[s][x] if below else curves[first][x] > curves[s][x])]
    detail = (f"{first} {statement['test']} {', '.join(than)} at every x of {points}" if not failed else
              "; ".join(f"at {x}: {first} {float(curves[first][x]):.4g} vs {s} {float(curves[s][x]):.4g}"
                        for x, s in failed))
    return _verdict(not failed, detail)


def _significance(statement: dict, _curves: dict, xs: list[str], tests: dict) -> dict[str, str]:
    points = [x for x in statement.get("at", xs) if x in tests and tests[x]["p"] is not None]
    if not points:
        return _no_data(f"paired test at x in {statement.get('at', xs)}")
    wanted = statement["test"] == "significant"
    direction = statement.get("direction")
    failed = []
    for x in points:
        test = tests[x]
        ok = (test["p"] < LEVEL) == wanted
        if ok and direction is not None:
            ok = test["mean_difference"] < 0 if direction == "below" else test["mean_difference"] > 0
        if not ok:
            failed.append(f"at {x}: p = {test['p']:.3g}, mean A - B = {test['mean_difference']:.4g}")
    first = tests[points[0]]
    detail = "; ".join(failed) or (f"{first['a']} vs {first['b']}: p {'<' if wanted else '>='} {LEVEL} at every x "
                                   f"of {points}")
    return _verdict(not failed, detail)


CHECKS = {"local-minimum": _local_minimum, "no-local-minimum": _no_local_minimum, "below": _ordered,
          "above": _ordered, "significant": _significance, "not-significant": _significance}
