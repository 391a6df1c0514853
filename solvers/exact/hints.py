"""Hints that lie inside the models they are given to.

The models break symmetry by ordering the starts of interchangeable jobs
(equal jobs of one campaign, identical tasks of one DSSP stage). A valid
schedule may order them otherwise; swapping interchangeable jobs keeps it
valid and of the same value, so each group's starts are handed out in index
order before the schedule becomes a hint.
"""

from collections.abc import Iterable, Sequence


def ordered_within(starts: Sequence[int | None], groups: Iterable[Sequence[int]]) -> list[int | None]:
    """``starts`` with each group of interchangeable jobs (indexes in
    increasing order) started in index order; a group with an unstarted
    job (None) is left as it is."""
    out = list(starts)
    for group in groups:
        values = [out[j] for j in group]
        if None not in values:
            for j, start in zip(group, sorted(values)):
                out[j] = start
    return out
