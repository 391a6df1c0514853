"""Strict readers for JSON fields: SPEC.md's integer rules, no silent repair.

JSON booleans, floats and strings are not integers (``True`` is an ``int``
in Python, so it is rejected explicitly).
"""

from typing import Any

from schedbench.errors import InstanceError


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def integer(value: Any, field: str, minimum: int) -> int:
    """Return ``value`` if it is a JSON integer >= ``minimum``, else raise."""
    if not is_int(value):
        raise InstanceError(field, f"must be an integer, got {value!r}")
    if value < minimum:
        raise InstanceError(field, f"must be >= {minimum}, got {value}")
    return value


def length(value: Any, field: str) -> int:
    """A job or task length: integer >= 1."""
    return integer(value, field, 1)


def nonnegative(value: Any, field: str) -> int:
    """A release, think time, deadline, capacity, weight or reward: integer >= 0."""
    return integer(value, field, 0)


def count(value: Any, field: str) -> int:
    """A number of machines, processors or cores: integer >= 1."""
    return integer(value, field, 1)


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
    """The keys every instance file starts with (SPEC.md, general rules)."""
    out: dict = {"family": family, "format_version": 1}
    if name:
        out["name"] = name
    if meta:
        out["meta"] = meta
    return out


def meta(obj: dict) -> dict:
    """The optional ``meta`` object (SPEC.md: anything, but an object); absent or null is empty."""
    value = obj.get("meta")
    if value is None:
        return {}
    return dict(json_object(value, "meta"))
