"""Reading an instance or schedule file as strict JSON (RFC 8259).

Python's ``json`` is lenient where the format's one-line rule needs it not to
be: it takes NaN and Infinity (and reads 1e400 as infinity), lets a
repeated key silently overwrite the first, and fails with a traceback,
not a message, on text that is not UTF-8, on nesting deeper than its
recursion limit and on an integer too long to convert (CPython's
int_max_str_digits guard). Each is refused here with one message naming
where it is.
"""

import json
import math
import sys
from pathlib import Path
from typing import Any


class _TooLong(Exception):
    """An integer literal past Python's digit limit (its text in ``args[0]``)."""


def read_json(path: str | Path, error: type[Exception]) -> Any:
    """The JSON value in ``path``; ``error(field, message)`` for anything unreadable."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise error("", f"cannot read {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error("", f"{path} is not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x})") from None
    return parse_json(text, error, str(path))


def parse_json(text: str, error: type[Exception], path: str) -> Any:
    """The JSON value of ``text``, read from ``path`` (a file, or a line of
    one: what the messages name); ``error(field, message)`` for anything
    the format refuses."""

    def where(literal: str) -> str:
        offset = max(text.find(literal), 0)
        return f"line {text.count(chr(10), 0, offset) + 1} column {offset - text.rfind(chr(10), 0, offset)}"

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
            raise error(repeated, "appears twice in one JSON object")
        return out

    def not_json(name: str) -> None:
        raise error("", f"{path} is not valid JSON: {name} is not a JSON number")

    def finite(literal: str) -> float:
        number = float(literal)
        if not math.isfinite(number):
            raise error("", f"{path} {where(literal)}: {literal} is beyond every float")
        return number

    def integer(literal: str) -> int:
        if len(literal.lstrip("-")) > (sys.get_int_max_str_digits() or math.inf):
            raise _TooLong(literal)
        return int(literal)

    def parse(**reading) -> Any:
        try:
            return json.loads(text, object_pairs_hook=unique_keys, parse_constant=not_json, parse_float=finite,
                              **reading)
        except json.JSONDecodeError as exc:
            raise error("", f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        except RecursionError:
            raise error("", f"{path} nests JSON arrays or objects too deeply to read") from None

    try:
        return parse()
    except ValueError:  # past the digit limit: read again to say where
        try:
            return parse(parse_int=integer)
        except _TooLong as exc:
            literal = exc.args[0]
            raise error("", f"{path} {where(literal)}: an integer of {len(literal.lstrip('-')):,} digits, far "
                            f"beyond the largest value any field accepts (2^50)") from None
