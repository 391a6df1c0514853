"""Field declarations: every key a file may hold, its type, bound and default.

One declaration per family (``INSTANCE`` and ``SCHEDULE`` in its model
module) is the single statement of its format. ``check`` reads a parsed
JSON value against it: an unknown key, a missing one, a wrong type or a
value out of bounds is one ``UserInputError`` naming the field's path, so
the family's ``parse`` only builds the instance and checks what a
declaration cannot state (an acyclic DAG, 3-PARTITION's item bounds, a
kind some cluster offers). ``json_schema`` turns the same declaration into
a JSON Schema (draft 2020-12): the schema and the reader cannot drift apart.
"""

import difflib
import json
from collections.abc import Mapping as AbstractMapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from schedbench.errors import CLOSE, BeyondSchemaError, InstanceError, UserInputError, unknown_key
from schedbench.model import fields

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class Shape:
    """A declared value: ``validate`` raises ``InstanceError`` naming ``where``."""

    def validate(self, value: Any, where: str) -> None:
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def describe(self) -> str:
        """The type in a few words, for the format reference's tables."""
        raise NotImplementedError


@dataclass(frozen=True)
class Integer(Shape):
    """A JSON integer (not a boolean, not a float) in [minimum, maximum]."""

    minimum: int
    maximum: int = fields.MAX_VALUE

    def validate(self, value: Any, where: str) -> None:
        fields.integer(value, where, self.minimum, self.maximum)

    def schema(self) -> dict[str, Any]:
        return {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}

    def describe(self) -> str:
        return f"integer in [{_number(self.minimum)}, {_number(self.maximum)}]"


@dataclass(frozen=True)
class AnyInteger(Shape):
    """Any JSON integer: a schedule's machine or start, whose range is the
    validator's question (a violation, not a format error)."""

    def validate(self, value: Any, where: str) -> None:
        if not fields.is_int(value):
            raise InstanceError(where, f"must be an integer, got {value!r}")

    def schema(self) -> dict[str, Any]:
        return {"type": "integer"}

    def describe(self) -> str:
        return "integer"


@dataclass(frozen=True)
class Const(Shape):
    """Exactly ``value`` (``format_version``)."""

    value: int

    def validate(self, value: Any, where: str) -> None:
        if not fields.is_int(value) or value != self.value:
            raise InstanceError(where, f"must be {self.value}, got {value!r}")

    def schema(self) -> dict[str, Any]:
        return {"const": self.value}

    def describe(self) -> str:
        return f"`{self.value}`"


#: A job or task length: [1, 2^40].
LENGTH = Integer(1)
#: A release, think time, deadline, capacity, weight or reward: [0, 2^40].
NONNEGATIVE = Integer(0)
#: A number of machines, processors or cores: [1, 2^24].
COUNT = Integer(1, fields.MAX_COUNT)


@dataclass(frozen=True)
class Boolean(Shape):
    def validate(self, value: Any, where: str) -> None:
        if not isinstance(value, bool):
            raise InstanceError(where, f"must be true or false, got {value!r}")

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}

    def describe(self) -> str:
        return "boolean"


@dataclass(frozen=True)
class Text(Shape):
    """A string: one of ``choices`` when given, else non-empty if ``non_empty``."""

    choices: tuple[str, ...] = ()
    non_empty: bool = True

    def validate(self, value: Any, where: str) -> None:
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise InstanceError(where, f"must be one of {', '.join(self.choices)}, got {value!r}")
        elif not isinstance(value, str) or (self.non_empty and not value):
            raise InstanceError(where, f"must be a {'non-empty ' if self.non_empty else ''}string, got {value!r}")

    def schema(self) -> dict[str, Any]:
        if self.choices:
            return {"enum": list(self.choices)}
        return {"type": "string", **({"minLength": 1} if self.non_empty else {})}

    def describe(self) -> str:
        if self.choices:
            return " or ".join(f"`{json.dumps(choice)}`" for choice in self.choices)
        return "non-empty string" if self.non_empty else "string"


@dataclass(frozen=True)
class List(Shape):
    """A JSON list of ``items``, of ``min_items`` to ``max_items`` entries."""

    items: Shape
    min_items: int = 0
    max_items: int | None = None

    def validate(self, value: Any, where: str) -> None:
        fields.json_list(value, where, non_empty=self.min_items > 0)
        if len(value) < self.min_items or (self.max_items is not None and len(value) > self.max_items):
            exact = self.min_items == self.max_items
            raise InstanceError(where, f"must hold {'exactly' if exact else 'at least'} {self.min_items} "
                                       f"entries, got {len(value)}")
        for i, item in enumerate(value):
            self.items.validate(item, f"{where}[{i}]")

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array", "items": self.items.schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        if self.max_items is not None:
            out["maxItems"] = self.max_items
        return out

    def describe(self) -> str:
        if self.min_items == self.max_items:
            count = f"{self.min_items} "
        else:
            count = "non-empty " if self.min_items else ""
        return f"{count}list of {self.items.describe()}"


@dataclass(frozen=True)
class Key:
    """One key of a ``Record``: its shape, whether it must be present, and
    what an absent key means (``default``, for the docs and the schema)."""

    name: str
    shape: Shape
    required: bool = True
    default: Any = None
    doc: str = ""


@dataclass(frozen=True)
class Record(Shape):
    """A JSON object with exactly the declared ``keys``: any other is an
    error naming its path and the nearest known key."""

    keys: tuple[Key, ...]

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The declared key names, computed once: every object of a file
        (each of a trace's tasks) is checked against them."""
        return tuple(key.name for key in self.keys)

    def validate(self, value: Any, where: str) -> None:
        fields.json_object(value, where)
        for name in value:
            if name not in self.names:
                raise _Stray(where, name, self.names)
        for key in self.keys:
            if key.name in value:
                key.shape.validate(value[key.name], f"{where}.{key.name}" if where else key.name)
            elif key.required:
                fields.required(value, key.name, where)

    def value(self, obj: dict, name: str) -> Any:
        """``obj[name]``, or the declared default when the key is absent or null."""
        found = obj.get(name)
        if found is not None:
            return found
        return self.keys[self.names.index(name)].default

    def schema(self) -> dict[str, Any]:
        properties = {}
        for key in self.keys:
            entry = key.shape.schema()
            if key.doc:
                entry = {"description": key.doc, **entry}
            if not key.required and key.default not in (None, ""):
                entry["default"] = key.default
            properties[key.name] = entry
        return {"type": "object", "properties": properties,
                "required": [key.name for key in self.keys if key.required], "additionalProperties": False}

    def describe(self) -> str:
        return "object"


@dataclass(frozen=True)
class Mapping(Shape):
    """A JSON object whose keys are free names (a workflow's ``shares``)
    and whose values are all ``values``."""

    values: Shape

    def validate(self, value: Any, where: str) -> None:
        fields.json_object(value, where)
        for name, item in value.items():
            self.values.validate(item, f"{where}.{name}")

    def schema(self) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": self.values.schema()}

    def describe(self) -> str:
        return f"object: any name -> {self.values.describe()}"


@dataclass(frozen=True)
class Free(Shape):
    """Any JSON object, unchecked: ``meta``, where a file keeps what it likes."""

    def validate(self, value: Any, where: str) -> None:
        fields.json_object(value, where)

    def schema(self) -> dict[str, Any]:
        return {"type": "object"}

    def describe(self) -> str:
        return "object, anything inside"


@dataclass(frozen=True)
class Nullable(Shape):
    """``shape`` or null (null meaning what an absent key means, or, in a
    DSSP schedule, a job or task that does not run)."""

    shape: Shape

    def validate(self, value: Any, where: str) -> None:
        if value is not None:
            self.shape.validate(value, where)

    def schema(self) -> dict[str, Any]:
        return {"anyOf": [{"type": "null"}, self.shape.schema()]}

    def describe(self) -> str:
        return f"{self.shape.describe()} or null"


@dataclass(frozen=True)
class Tree(Shape):
    """Nested non-empty lists whose leaves are ``leaf`` (a router tree), at
    most ``depth`` levels deep. The schema names itself: ``$defs.tree``."""

    leaf: Shape
    depth: int

    def validate(self, value: Any, where: str, level: int = 0) -> None:
        if level > self.depth:  # JSON Schema has no depth limit
            raise BeyondSchemaError(where, f"the tree is deeper than {self.depth} levels")
        if not isinstance(value, list):
            self.leaf.validate(value, where)
            return
        fields.json_list(value, where)
        for i, child in enumerate(value):
            self.validate(child, f"{where}[{i}]", level + 1)

    def schema(self) -> dict[str, Any]:
        return {"$ref": "#/$defs/tree"}

    def describe(self) -> str:
        return f"nested non-empty lists of {self.leaf.describe()}"

    def definitions(self) -> dict[str, Any]:
        return {"tree": {"type": "array", "minItems": 1,
                         "items": {"anyOf": [self.leaf.schema(), {"$ref": "#/$defs/tree"}]}}}


class _Stray(InstanceError):
    """A key its object does not declare; ``check`` words the message, since
    the nearest known key may belong to another object of the document."""

    def __init__(self, where: str, key: str, known: tuple[str, ...]):
        super().__init__(f"{where}.{key}" if where else str(key), "unknown key")
        self.where, self.key, self.known = where, str(key), known


def check(shape: Shape, value: Any, error: type[UserInputError] = InstanceError, what: str = "instance") -> None:
    """``value`` read against ``shape``; a mismatch is ``error`` naming its
    path (``what`` names the whole value when it is not even an object)."""
    try:
        if isinstance(shape, Record):
            fields.json_object(value, what)
        shape.validate(value, "")
    except _Stray as stray:
        raise _stray_error(shape, stray, error) from None
    except InstanceError as exc:
        if error is InstanceError:
            raise
        raise error(exc.field, exc.message) from None


def _stray_error(shape: Shape, stray: _Stray, error: type[UserInputError]) -> UserInputError:
    """The nearest key of the stray key's own object; else the nearest key
    declared anywhere in ``shape``, saying where it belongs (``selfish``
    written inside an organization); else the object's keys."""
    if difflib.get_close_matches(stray.key, stray.known, n=1, cutoff=CLOSE):
        return unknown_key(error, stray.where, stray.key, stray.known)
    places = {key.name: path or "the top level" for path, node in _walk(shape) if isinstance(node, Record)
              for key in node.keys}
    close = difflib.get_close_matches(stray.key, places, n=1, cutoff=CLOSE)
    if close:
        return error(stray.field, f'unknown key (did you mean "{close[0]}"? it is a key of {places[close[0]]})')
    return unknown_key(error, stray.where, stray.key, stray.known)


def header(family: str, body: tuple[Key, ...]) -> Record:
    """An instance file's declaration: the keys every family shares, then ``body``."""
    return Record((
        Key("family", Text((family,)), doc="The family's name."),
        Key("format_version", Const(1), doc="Always 1."),
        Key("name", Text(non_empty=False), required=False, default="", doc="A free label."),
        Key("meta", Nullable(Free()), required=False,
            doc="Anything: generator, parameters, seed, where the data came from."),
        *body,
    ))


def json_schema(shape: Shape, title: str, identifier: str) -> dict[str, Any]:
    """``shape`` as a standalone JSON Schema document (draft 2020-12)."""
    out: dict[str, Any] = {"$schema": SCHEMA_DIALECT, "$id": identifier, "title": title, **shape.schema()}
    trees = [node for _, node in _walk(shape) if isinstance(node, Tree)]
    if trees:
        out["$defs"] = trees[0].definitions()
    return out


def _walk(shape: Shape, path: str = ""):
    """(path, shape) of every shape nested in ``shape``, itself included;
    a list's entries are ``path[i]``, a map's ``path.NAME``."""
    yield path, shape
    if isinstance(shape, Record):
        for key in shape.keys:
            yield from _walk(key.shape, f"{path}.{key.name}" if path else key.name)
    elif isinstance(shape, List):
        yield from _walk(shape.items, f"{path}[]")
    elif isinstance(shape, Mapping):
        yield from _walk(shape.values, f"{path}.NAME")
    elif isinstance(shape, (Nullable, Tree)):
        yield from _walk(shape.shape if isinstance(shape, Nullable) else shape.leaf, path)


def key_table(shape: Shape) -> str:
    """Every key ``shape`` declares as a Markdown table (path, type, when
    absent, meaning): the format reference's tables, made from the
    declarations like the schemas."""
    rows = ["| key | type | if absent | meaning |", "|---|---|---|---|"]
    for path, node in _walk(shape):
        if isinstance(node, Record):
            for key in node.keys:
                absent = "required" if key.required else json.dumps(key.default) if key.default is not None else "none"
                name = f"{path}.{key.name}" if path else key.name
                rows.append(f"| `{name}` | {key.shape.describe()} | {absent} | {key.doc} |")
    return "\n".join(rows) + "\n"


def _number(value: int) -> str:
    """A bound as people read it: 2^40 rather than 1099511627776."""
    return fields.power(value) if value > 1024 and value & (value - 1) == 0 else str(value)


def keys_of(value: AbstractMapping[str, Any], known: AbstractMapping[str, Any] | set[str], where: str,
            error: type[UserInputError] = UserInputError) -> None:
    """Refuse a key of ``value`` outside ``known`` (tables and options that
    have no ``Record``: experiment files, ``-o KEY=VALUE``)."""
    for name in value:
        if name not in known:
            raise unknown_key(error, where, name, known)
