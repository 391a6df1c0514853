"""3-PARTITION decision: the triples, or a proof that there are none.

The answer is ``feasible`` with the certificate (q triples of item indexes)
as the result's solution, ``infeasible`` when the model proves no
3-partition exists, ``unknown`` on the time limit. As a number the answer
is 1 (yes) or 0 (no). Items lie strictly between B/4 and B/2, so a set
summing to B has exactly three items and the model only needs sums.
"""

import time
from fractions import Fraction

from schedbench.result import FEASIBLE, INFEASIBLE, UNKNOWN, Result


def solve(instance, solver: str, time_limit: float) -> Result:
    began = time.perf_counter()
    from schedbench.solvers import backend

    outcome = backend(solver, "three_partition").solve(instance, time_limit)
    elapsed = time.perf_counter() - began
    if outcome.status == INFEASIBLE:
        return Result(INFEASIBLE, Fraction(0), Fraction(0), None, solver, "model", elapsed)
    if outcome.solution is None:
        return Result(UNKNOWN, None, None, None, solver, "model", elapsed)
    q = instance.triples
    triples = tuple(tuple(i for i, t in enumerate(outcome.solution) if t == triple) for triple in range(q))
    return Result(FEASIBLE, Fraction(1), Fraction(1), triples, solver, "model", elapsed)
