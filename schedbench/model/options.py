"""Option values as written in an experiment file or on the command line
(``-o KEY=VALUE``): integers and exact rationals, each refused with one
error naming its field. Low in the layers, so that heuristics (their
options), generators (their parameters) and the command line share them.
"""

import math
from fractions import Fraction
from typing import Any

from schedbench.errors import UserInputError
from schedbench.model.fields import is_int


def integer(value: Any, field: str, low: int | None = None) -> int:
    """An integer (not a bool, not a float) >= ``low``, else an error naming ``field``."""
    if not is_int(value):
        raise UserInputError(field, f"must be an integer, got {value!r}")
    if low is not None and value < low:
        raise UserInputError(field, f"must be an integer >= {low}, got {value}")
    return value


EXACT = "must be a rational number: an integer, a decimal such as 0.2 or a fraction such as \"1/5\""


def exact(value: Any, field: str) -> Fraction:
    """A rational number: an integer, a Fraction, a string such as "6/5" or
    "0.86", or a float taken as the decimal it is written as (0.86 -> 43/50)."""
    if isinstance(value, float) and math.isfinite(value):
        value = repr(value)
    if isinstance(value, bool) or not isinstance(value, (int, Fraction, str)):
        raise UserInputError(field, f"{EXACT}, got {value!r}")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise UserInputError(field, f"{EXACT}, got {value!r}") from None
