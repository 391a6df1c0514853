"""schedbench: exact optima and heuristics for multi-user scheduling.

Data flows one way: instance JSON -> ``schedbench.model`` (immutable
instances) -> ``schedbench.heuristics`` / ``schedbench.solvers`` (schedules)
-> ``schedbench.validator`` (independent check) -> ``schedbench.metrics``
(exact fractions) -> ``schedbench.claims`` and ``bench``.
"""

__version__ = "0.1.0"
