"""Instances: loading, validation against the format and the list of families.

A family is a module of this package with ``FAMILY``, ``OBJECTIVES`` (the
first is the default), ``INSTANCE`` and ``SCHEDULE`` (the declarations of
its files, ``schedbench.model.shape``), ``parse``, ``to_json``, ``size``
(jobs and machines, as the family counts them), ``schedule_to_json`` and
``schedule_from_json``; it is found by that convention (``schedbench.families``
says what the other folders hold), so adding one edits nothing here.
A document is checked against its declaration before ``parse`` or
``schedule_from_json`` sees it: they build, and check only what a
declaration cannot state.
"""

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from schedbench.errors import InstanceError, ScheduleFormatError
from schedbench.model import fields, shape
from schedbench.model.discovery import family_modules
from schedbench.model.strict_json import read_json
from schedbench.schedule import Schedule


FAMILIES: dict[str, ModuleType] = family_modules(sys.modules[__name__])


def family_module(name: str) -> ModuleType:
    if name not in FAMILIES:
        raise InstanceError("family", f"unknown family {name!r} (known: {', '.join(FAMILIES)})")
    return FAMILIES[name]


#: The keys of a ``solve`` or ``heuristic --json`` output around its
#: ``"schedule"``, which ``validate`` takes as a schedule file too.
RESULT_KEYS = frozenset({"status", "objective", "bound", "solver", "wall_time", "schedule", "objective_name",
                         "method", "proof", "objective_fraction", "bound_fraction", "details", "certificate",
                         "selected", "heuristic", "family", "metrics"})


def family_of(obj: Any) -> ModuleType:
    """The family module a document names in its ``family``."""
    fields.json_object(obj, "instance")
    family = fields.required(obj, "family", "")
    if not isinstance(family, str):
        raise InstanceError("family", f"must be a string, got {family!r}")
    return family_module(family)


def parse_instance(obj: Any):
    """Build an immutable instance from parsed JSON, rejecting anything off
    its family's declaration (an unknown key included) with the field named."""
    module = family_of(obj)
    shape.check(module.INSTANCE, obj)
    return module.parse(obj)


def load_instance(path: str | Path):
    return parse_instance(read_json(path, InstanceError))


def instance_to_json(instance) -> dict[str, Any]:
    return family_module(instance.family).to_json(instance)


def schedule_to_json(instance, schedule: Schedule) -> dict[str, Any]:
    return family_module(instance.family).schedule_to_json(instance, schedule)


def schedule_from_json(instance, obj: Any) -> Schedule:
    """A schedule of ``instance`` from a schedule document, or from the whole
    output of ``solve``/``heuristic --json``; a key neither knows is an error."""
    where = ""
    if isinstance(obj, dict) and isinstance(obj.get("schedule"), dict):
        shape.keys_of(obj, RESULT_KEYS, "", ScheduleFormatError)
        obj, where = obj["schedule"], "schedule"
    module = family_module(instance.family)
    try:
        shape.check(module.SCHEDULE, obj, ScheduleFormatError, "schedule")
    except ScheduleFormatError as exc:
        if not where:
            raise
        raise ScheduleFormatError(f"{where}.{exc.field}", exc.message) from None
    return module.schedule_from_json(instance, obj)


def load_schedule(instance, path: str | Path) -> Schedule:
    return schedule_from_json(instance, read_json(path, ScheduleFormatError))


def json_schema(family: str, schedule: bool = False) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``family``'s instance files, or of
    its schedule files, made from the declarations the readers check: what
    a schema cannot state is left to them (``BeyondSchemaError``)."""
    module = family_module(family)
    what = "schedule" if schedule else "instance"
    return shape.json_schema(module.SCHEDULE if schedule else module.INSTANCE,
                             f"schedbench {family} {what}", f"urn:schedbench:{what}:{family}")


def key_table(family: str, schedule: bool = False) -> str:
    """The keys of ``family``'s instance (or schedule) files as a Markdown table."""
    module = family_module(family)
    return shape.key_table(module.SCHEDULE if schedule else module.INSTANCE)
