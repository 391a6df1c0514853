"""Heuristics, one module per family; ``registry(family)`` lists them by name.

Every heuristic is ``name(instance, **options) -> Schedule`` and never calls
a solver.
"""


def registry(family: str) -> dict:
    from schedbench.heuristics import campaign, dssp, mosp, pcmax, workflow

    return {"pcmax": pcmax.HEURISTICS, "campaign": campaign.registry(), "mosp": mosp.HEURISTICS,
            "dssp": dssp.HEURISTICS, "workflow": workflow.HEURISTICS}.get(family, {})
