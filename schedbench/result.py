"""What every exact solve returns (the format reference, ``schedbench solve``)."""

from dataclasses import dataclass, field
from fractions import Fraction

from schedbench.schedule import Schedule

OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN = "optimal", "feasible", "infeasible", "unknown"


@dataclass
class Result:
    """``objective`` is the exact value of ``schedule`` (recomputed by
    ``schedbench.metrics``, never taken from a solver's float), ``bound`` the
    proven bound; ``status`` is ``optimal`` only when they are proven equal.
    ``proof`` names the methods behind ``bound``: one checkable computation,
    or two independent methods that refuted anything better
    (``solvers.exact.certificate``)."""

    status: str
    objective: Fraction | None
    bound: Fraction | None
    schedule: Schedule | None
    solver: str
    method: str = ""
    wall_time: float = 0.0
    details: dict = field(default_factory=dict)
    proof: tuple[str, ...] = ()
