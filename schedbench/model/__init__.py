"""Instances: loading, SPEC.md validation and the list of families.

A family is a module of this package with ``FAMILY``, ``OBJECTIVES`` (the
first is the default), ``parse``, ``to_json``, ``size`` (jobs and
machines, as the family counts them), ``schedule_to_json`` and
``schedule_from_json``; it is found by that convention (``schedbench.families``
says what the other folders hold), so adding one edits nothing here.
"""

import pkgutil
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from schedbench.errors import InstanceError, ScheduleFormatError
from schedbench.model import fields
from schedbench.model.strict_json import read_json
from schedbench.schedule import Schedule


def _discover() -> dict[str, ModuleType]:
    """Every module of this package that defines ``FAMILY``, by module name."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = import_module(f"{__name__}.{info.name}")
        if hasattr(module, "FAMILY"):
            found[module.FAMILY] = module
    return found


FAMILIES: dict[str, ModuleType] = _discover()


def family_module(name: str) -> ModuleType:
    if name not in FAMILIES:
        raise InstanceError("family", f"unknown family {name!r} (known: {', '.join(FAMILIES)})")
    return FAMILIES[name]


def parse_instance(obj: Any):
    """Build an immutable instance from parsed JSON, rejecting anything off-SPEC."""
    fields.json_object(obj, "instance")
    family = fields.required(obj, "family", "")
    if not isinstance(family, str):
        raise InstanceError("family", f"must be a string, got {family!r}")
    module = family_module(family)
    version = fields.required(obj, "format_version", "")
    if not fields.is_int(version) or version != 1:
        raise InstanceError("format_version", f"must be 1, got {version!r}")
    return module.parse(obj)


def load_instance(path: str | Path):
    return parse_instance(read_json(path, InstanceError))


def instance_to_json(instance) -> dict[str, Any]:
    return family_module(instance.family).to_json(instance)


def schedule_to_json(instance, schedule: Schedule) -> dict[str, Any]:
    return family_module(instance.family).schedule_to_json(instance, schedule)


def schedule_from_json(instance, obj: Any) -> Schedule:
    if isinstance(obj, dict) and isinstance(obj.get("schedule"), dict):
        obj = obj["schedule"]  # accept the whole output of `solve`/`heuristic --json`
    return family_module(instance.family).schedule_from_json(instance, obj)


def load_schedule(instance, path: str | Path) -> Schedule:
    return schedule_from_json(instance, read_json(path, ScheduleFormatError))
