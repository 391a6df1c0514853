"""Two claims about P||Cmax list scheduling, checked with
``schedbench claims check docs/examples/claims_pcmax.py``.

Graham (1969): LPT is within 4/3 - 1/(3m) of the optimum; it holds.
The second claim is false on purpose: list scheduling in the given order
is only within 2 - 1/m, so "within 3/2" fails from m = 3 on, and the
check shrinks a counterexample.
"""

from fractions import Fraction

from schedbench.claims import PROJECT, Check, Claim
from schedbench.claim_files import Case

FAMILY = "pcmax"


def lpt_graham(case: Case) -> Check:
    bound = Fraction(4, 3) - Fraction(1, 3 * case.instance.machines)
    ratio = case.value("lpt") / case.optimum()
    return Check(ratio <= bound, ratio / bound, {"lpt": case.value("lpt"), "optimum": case.optimum()})


def list_three_halves(case: Case) -> Check:
    ratio = case.value("list") / case.optimum()
    return Check(ratio <= Fraction(3, 2), ratio / Fraction(3, 2), {"list": case.value("list"), "optimum": case.optimum()})


CLAIMS = [
    Claim("lpt.graham", "LPT <= (4/3 - 1/(3m)) OPT (Graham 1969)", lambda instance: True, lpt_graham, PROJECT),
    Claim("list.three-halves", "list scheduling <= 3/2 OPT (false: the bound is 2 - 1/m)",
          lambda instance: True, list_three_halves, PROJECT),
]
