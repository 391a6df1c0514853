"""Reading an instance or schedule file as strict JSON (RFC 8259).

Python's ``json`` is lenient where SPEC's one-line rule needs it not to
be: it takes NaN and Infinity, lets a repeated key silently overwrite the
first, and fails with a traceback, not a message, on text that is not
UTF-8, on nesting deeper than its recursion limit and on an integer too
long to convert (CPython's 4,300-digit guard). Each is refused here with
one message; an overlong integer is read as ``Oversized`` instead, so the
instance's own check names the field and the largest value accepted.
"""

import json
from pathlib import Path
from typing import Any


class Oversized(int):
    """A JSON integer too long for Python to convert: a value beyond every
    limit an instance has, shown by its length (never converted back)."""

    digits: int

    def __new__(cls, text: str) -> "Oversized":
        value = super().__new__(cls, -10 ** 100 if text.startswith("-") else 10 ** 100)
        value.digits = len(text.lstrip("-"))
        return value

    def __repr__(self) -> str:
        return f"{'minus ' if self < 0 else ''}an integer of {self.digits:,} digits"

    __str__ = __repr__


#: Integers up to this many digits are converted as they are; longer ones
#: are ``Oversized`` (CPython refuses past 4,300 unless told otherwise).
MAX_DIGITS = 4_000


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

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
            raise error(repeated, "appears twice in one JSON object")
        return out

    def not_json(name: str) -> None:
        raise error("", f"{path} is not valid JSON: {name} is not a JSON number")

    def integer(digits: str) -> int:
        return int(digits) if len(digits.lstrip("-")) <= MAX_DIGITS else Oversized(digits)

    def parse(**reading) -> Any:
        try:
            return json.loads(text, object_pairs_hook=unique_keys, parse_constant=not_json, **reading)
        except json.JSONDecodeError as exc:
            raise error("", f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        except RecursionError:
            raise error("", f"{path} nests JSON arrays or objects too deeply to read") from None

    try:
        return parse()
    except ValueError:  # an integer past CPython's digit limit: read again, keeping such integers Oversized
        return parse(parse_int=integer)
