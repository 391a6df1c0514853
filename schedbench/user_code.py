"""A user's Python code, loaded as the command line takes it: a file
(``path/to/file.py``) or an importable module, and a function in it
(``...:FUNCTION``). Whatever goes wrong while loading is the user's input:
one line naming the option, never a traceback."""

import importlib.util
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from types import ModuleType

from schedbench.errors import UserInputError


def import_file(path: str | Path, field: str) -> ModuleType:
    """The module of a Python file, registered in ``sys.modules`` (dataclasses
    and postponed annotations look their module up there)."""
    path = Path(path)
    if not path.is_file():
        raise UserInputError(field, f"no file {path}")
    if path.suffix != ".py":
        raise UserInputError(field, f"{path} is not a Python file (.py)")
    name = f"schedbench_user_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # the user's code: one line, not a traceback nor its exit
        del sys.modules[name]
        raise UserInputError(field, f"cannot load {path}: {type(exc).__name__}: {exc}") from None
    return module


def load_function(spec: str, field: str = "--heuristic") -> Callable:
    """``module:function`` (importable) or ``path/to/file.py:function``."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise UserInputError(field, f"expected MODULE:FUNCTION or path/to/file.py:FUNCTION, got {spec!r}")
    if where.endswith(".py"):
        module = import_file(where, field)
    else:
        try:
            module = import_module(where)
        except (Exception, SystemExit) as exc:  # the user's module failed to import
            raise UserInputError(field, f"cannot load {where}: {type(exc).__name__}: {exc}") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise UserInputError(field, f"{where} has no function {name!r}")
    return function
