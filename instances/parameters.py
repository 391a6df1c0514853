"""Checks of generator parameters shared by the generators: a parameter a
generator cannot honour is a ``ValueError`` (the command line reports it in
one line, exit 2).

``generator(function)`` makes a function callable with parameters as read
from a TOML file (``schedbench.families.generators``): each keyword
is checked against the function's annotation (``Count``, ``Range``,
``Fraction``, ``Literal[...]``, ...) and converted (an array becomes a
tuple, "6/5" a Fraction), so a bad value is a ``UserInputError`` naming
``params.NAME``, never a TypeError from deep inside.
"""

import functools
import inspect
import types
import typing
from collections.abc import Callable
from fractions import Fraction
from typing import Annotated, Any, Literal, get_args, get_origin

from schedbench.errors import UserInputError, unknown_key
from schedbench.model.fields import is_int
from schedbench.model.options import exact, integer

Count = Annotated[int, 1]                # an integer >= 1
Natural = Annotated[int, 0]              # an integer >= 0
Range = Annotated[tuple[int, int], 1]    # an inclusive integer range (a, b), 1 <= a <= b; TOML [a, b]
Range0 = Annotated[tuple[int, int], 0]   # the same with 0 <= a
Naturals = Annotated[tuple[int, ...], 0]  # a list of integers >= 0; TOML [0, 5, 9]
Integers = Annotated[tuple[int, ...], None]  # a list of integers, any sign (codes such as -1)
Paths = tuple[str, ...]                  # one file (a string) or several (a list of strings)


def integer_range(value: Any, name: str, low: int = 1) -> tuple[int, int]:
    """An inclusive integer range (a, b) with low <= a <= b."""
    try:
        a, b = value
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer range (a, b), got {value!r}") from None
    if not (is_int(a) and is_int(b)) or not low <= a <= b:
        raise ValueError(f"{name} must be an integer range (a, b) with {low} <= a <= b, got {value!r}")
    return a, b


def ordered(low: int, high: int) -> None:
    """Bounds of a uniform draw U[low, high]."""
    if low > high:
        raise ValueError(f"low must be at most high, got low = {low} > high = {high}")


def convert(value: Any, kind: Any, field: str) -> Any:
    """``value`` checked against the annotation ``kind`` (and converted to it)."""
    origin, args = get_origin(kind), get_args(kind)
    if origin in (types.UnionType, typing.Union):  # X | None: TOML has no null, so X
        return convert(value, next(a for a in args if a is not type(None)), field)
    if origin is Annotated:
        base, low = args
        if base is int:
            return integer(value, field, low)
        if base == tuple[int, ...]:
            return _integers(value, field, low)
        try:
            return integer_range(value, "", low)
        except ValueError:
            raise UserInputError(field, f"must be an integer range [a, b] with {low} <= a <= b, "
                                        f"got {value!r}") from None
    if origin is Literal:
        if value not in args or isinstance(value, bool):
            raise UserInputError(field, f"must be one of {', '.join(map(repr, args))}, got {value!r}")
        return value
    if kind == Paths:
        return _paths(value, field)
    if kind is int:
        return integer(value, field)
    if kind is Fraction:
        return exact(value, field)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UserInputError(field, f"must be a number, got {value!r}")
        return float(value)
    if kind in (bool, str):
        if not isinstance(value, kind):
            raise UserInputError(field, f"must be a {'boolean' if kind is bool else 'string'}, got {value!r}")
        return value
    raise TypeError(f"no conversion for the annotation {kind!r} of {field}")


def _integers(value: Any, field: str, low: int | None) -> tuple[int, ...]:
    """A non-empty list of integers, each at least ``low`` unless it is None
    (one integer alone is the list of it)."""
    if is_int(value):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise UserInputError(field, f"must be a non-empty list of integers such as [0, 5], got {value!r}")
    return tuple(integer(item, f"{field}[{index}]", low) for index, item in enumerate(value))


def _paths(value: Any, field: str) -> tuple[str, ...]:
    """One path, or a non-empty list of them."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items or not all(isinstance(item, str) for item in items):
        raise UserInputError(field, f"must be a file or a non-empty list of files, got {value!r}")
    return tuple(items)


def generator(function: Callable) -> Callable:
    """``function`` called with keyword parameters only, each checked and
    converted by its annotation; unknown or missing names and values the
    generator refuses (its ValueError) are ``UserInputError``s."""
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function, include_extras=True)

    @functools.wraps(function)
    def call(**params: Any):
        for name in params:
            if name not in signature.parameters:
                raise unknown_key(UserInputError, "params", name, signature.parameters, what="parameter")
        for name, parameter in signature.parameters.items():
            if parameter.default is parameter.empty and name not in params:
                raise UserInputError(f"params.{name}", "is required")
        converted = {name: convert(value, hints[name], f"params.{name}") for name, value in params.items()}
        try:
            return function(**converted)
        except ValueError as exc:
            raise UserInputError("params", str(exc)) from None
    return call
