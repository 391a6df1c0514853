"""schedbench: exact optima, heuristics and claim checks for multi-user and
multi-organization scheduling.

The Python front door (``schedbench.api``, documented in the Python API
tutorial)::

    import schedbench as sb

    instance = sb.load("instance.json")          # or sb.generate(name, seed=..., **params)
    solution = sb.solve(instance, time_limit=10)  # status, objective, bound, proof, schedule
    schedule = sb.heuristic("lpt", instance)
    sb.validate(instance, schedule)               # [] when valid
    sb.metrics(instance, schedule)                # exact values
    sb.gantt(instance, schedule)                  # a matplotlib Figure

The instance classes (``sb.PcmaxInstance``, ``sb.MospInstance``, ...) are
those of ``schedbench.model``; how the package is layered is in
docs/architecture.md.
"""

from importlib import import_module, metadata
from types import ModuleType

import schedbench.metrics as _metrics_layer

__version__ = metadata.version("schedbench")


class _MeasuringPackage(ModuleType):
    """``schedbench.metrics`` is both the metrics layer (a package) and the
    front door's ``sb.metrics(instance, schedule)``: Python binds a
    subpackage as its parent's attribute, so the name can only be both if
    the package itself can be called."""

    def __call__(self, instance, schedule):
        from schedbench.api import metrics

        return metrics(instance, schedule)


_metrics_layer.__class__ = _MeasuringPackage

#: The names ``schedbench`` exports, by the module that defines them.
_EXPORTS = {
    **dict.fromkeys(("load", "generate", "solve", "heuristic", "validate", "gantt", "Solution",
                     "Status", "Schedule", "Violation"), "schedbench.api"),
    "UserInputError": "schedbench.errors",
    "PcmaxInstance": "schedbench.model.pcmax", "CampaignInstance": "schedbench.model.campaign",
    "MospInstance": "schedbench.model.mosp", "ThreePartitionInstance": "schedbench.model.three_partition",
    "DsspInstance": "schedbench.model.dssp", "KnapsackInstance": "schedbench.model.knapsack",
    "WorkflowInstance": "schedbench.model.workflow",
}
__all__ = sorted([*_EXPORTS, "metrics"])


def __getattr__(name: str):
    """The exports, imported when first used: ``import schedbench`` (and so
    every command's start, ``schedbench --help`` included) does not load the
    solvers (0.15 s instead of 0.6 s, measured)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'schedbench' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
