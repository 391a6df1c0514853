"""Checks of generator parameters shared by the generators: a parameter a
generator cannot honour is a ``ValueError`` (the command line reports it in
one line, exit 2)."""

from typing import Any

from schedbench.model.fields import is_int


def integer_range(value: Any, name: str, low: int = 1) -> tuple[int, int]:
    """An inclusive integer range (a, b) with low <= a <= b."""
    try:
        a, b = value
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer range (a, b), got {value!r}") from None
    if not (is_int(a) and is_int(b)) or not low <= a <= b:
        raise ValueError(f"{name} must be an integer range (a, b) with {low} <= a <= b, got {value!r}")
    return a, b
