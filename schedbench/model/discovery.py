"""How a layer finds its family modules without a list to edit: every
module of its package that defines ``FAMILY`` (the model, the validator
and the solvers each scan their own package this way; every other caller
goes through the registry)."""

import pkgutil
from importlib import import_module
from types import ModuleType


def family_modules(package: ModuleType) -> dict[str, ModuleType]:
    """The modules and subpackages of ``package`` that define ``FAMILY``, by family, in name order."""
    found = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "FAMILY"):
            found[module.FAMILY] = module
    return found
