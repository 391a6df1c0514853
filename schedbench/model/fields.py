"""Strict readers for JSON fields: the format reference's integer rules, no silent repair.

JSON booleans, floats and strings are not integers (``True`` is an ``int``
in Python, so it is rejected explicitly).
"""

from collections.abc import Iterable
from typing import Any, NamedTuple

from schedbench.errors import BeyondSchemaError, InstanceError

#: The largest length, time, reward, weight or capacity accepted (the format reference):
#: solvers work in 64-bit integers, and models multiply values by counts.
MAX_VALUE = 1 << 40
#: The largest number of machines, processors or cores: heuristics keep a
#: load per machine.
MAX_COUNT = 1 << 24
#: The largest total (work, rewards, weights) of one instance.
MAX_TOTAL = 1 << 50


class Size(NamedTuple):
    """An instance's size in the two counts every family has (``size`` of
    each family module says what they count there)."""
    jobs: int
    machines: int


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def integer(value: Any, field: str, minimum: int, maximum: int = MAX_VALUE) -> int:
    """Return ``value`` if it is a JSON integer in [``minimum``, ``maximum``], else raise."""
    if not is_int(value):
        raise InstanceError(field, f"must be an integer, got {value!r}")
    if value < minimum:
        raise InstanceError(field, f"must be >= {minimum}, got {value}")
    if value > maximum:
        raise InstanceError(field, f"must be <= {_power(maximum)}, the largest value accepted; got {value}")
    return value


def _power(value: int) -> str:
    return f"{power(value)} = {value}"


def power(value: int) -> str:
    """A power of two as people read it: 2^40 rather than 1099511627776."""
    return f"2^{value.bit_length() - 1}"


def total(values: Iterable[int], field: str, what: str = "total") -> int:
    """The sum of ``values``, refused beyond ``MAX_TOTAL`` naming ``field``."""
    out = sum(values)
    if out > MAX_TOTAL:
        raise BeyondSchemaError(field, f"the {what} must be <= {_power(MAX_TOTAL)}, the largest accepted; got {out}")
    return out


def json_object(value: Any, field: str) -> dict:
    if not isinstance(value, dict):
        raise InstanceError(field, f"must be a JSON object, got {type(value).__name__}")
    return value


def json_list(value: Any, field: str, non_empty: bool = True) -> list:
    if not isinstance(value, list):
        raise InstanceError(field, f"must be a JSON list, got {type(value).__name__}")
    if non_empty and not value:
        raise InstanceError(field, "must not be empty")
    return value


def required(obj: dict, key: str, field: str) -> Any:
    if key not in obj:
        raise InstanceError(f"{field}.{key}" if field else key, "is missing")
    return obj[key]


def document_header(family: str, name: str, meta: dict) -> dict:
    """The keys every instance file starts with (the format reference, general rules)."""
    out: dict = {"family": family, "format_version": 1}
    if name:
        out["name"] = name
    if meta:
        out["meta"] = meta
    return out


def meta(obj: dict) -> dict:
    """The optional ``meta`` object (the format reference: anything, but an object); absent or null is empty."""
    value = obj.get("meta")
    if value is None:
        return {}
    return dict(json_object(value, "meta"))
