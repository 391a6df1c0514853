"""3-PARTITION "metrics": a decision problem, whose only value is its answer."""

from fractions import Fraction

from schedbench.metrics import Bar


def objective(instance, certificate, name: str, references: dict) -> Fraction:
    """``decision``: 1, the answer yes, which a (validated) certificate proves."""
    if name != "decision":
        raise ValueError(f"unknown three_partition objective {name!r}")
    return Fraction(1)


def lower_bound(instance, name: str) -> None:
    """No cheap bound on a yes-or-no answer."""
    return None


METRICS: dict = {}


def gantt_bars(instance, certificate) -> list[Bar]:
    """A certificate has no time axis."""
    return []
