"""Optimality certificates: no "optimal" rests on one solver's word.

A solver's INFEASIBLE can be wrong (CP-SAT and CBC both have open reports
of false refutations, and this project has met one). So every bound that
makes a result ``optimal`` is proven in one of two ways:

- by a cheap, deterministic computation anyone can check: a bound formula
  (L0, L1, Martello-Toth L2, the knapsack bound, ...) or an LP bound whose
  dual solution is verified in exact arithmetic (``arcflow-lp-dual``, ``metrics.pcmax.bounds.weights_bound``);
- by a refutation ("no solution better than the incumbent") that a second,
  independent method reaches again: the other backend (MILP for CP-SAT and
  back), or CP-SAT in its confirming configuration (one worker, another
  seed, no hint) where the MILP cannot express or hold the model.

A search (a cap search, a ratio bisection, a minimisation) keeps the two
apart: its certified bound and the bound one method claims. Refutations
are monotone (refuting a value refutes every better one), so only the
last claim needs confirming: ``confirm`` asks it again. Where it is not
confirmed in time, the result is ``feasible`` with the certified bound and
``details["unconfirmed"]`` naming the single proof. Where the second
method finds a solution instead, the first refutation was false: the
solution is kept and the claim dropped.

``Result.proof`` lists the methods behind the reported bound.
"""

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from types import ModuleType

from schedbench.errors import ModelTooLarge
from schedbench.result import INFEASIBLE
from schedbench.solvers.cpsat import confirming

#: Share of a time limit a search may use before its claim is confirmed; the
#: rest is the confirmation's (plus whatever the search leaves unused).
SEARCH_SHARE = 0.7

#: Methods that build a MILP, and the least time worth starting one with.
MILP_METHODS = ("milp", "arcflow-milp", "partition-milp")
MILP_MINIMUM = 1.0
MILP_SHARE = 0.6

_CHECKED = "infeasible-by-"


def checked_refutation(name: str) -> str:
    """The status of a question refuted by the checkable computation
    ``name`` (a proof on its own, as a bound formula is): the methods that
    decide questions return it, and every search certifies it as it stands."""
    return _CHECKED + name


def refutation_by(status: str, method: str) -> str | None:
    """What refuted a question answered ``status`` by ``method``: the method
    (INFEASIBLE), the checkable computation (``checked_refutation``), or
    None when the answer refutes nothing."""
    if status == INFEASIBLE:
        return method
    return status.removeprefix(_CHECKED) if status.startswith(_CHECKED) else None


def is_refutation(status: str) -> bool:
    """Whether ``status`` refutes its question: INFEASIBLE, or a checked refutation."""
    return status == INFEASIBLE or is_checked(status)


def is_checked(status: str) -> bool:
    """Whether ``status`` is a refutation by a checkable computation (``checked_refutation``)."""
    return status.startswith(_CHECKED)


#: Empty start windows: a question refuted before any model is built.
FORMULA = checked_refutation("windows")

#: A question asked again: seconds -> (status, solution or None).
Question = Callable[[float], tuple[str, object]]


@dataclass(frozen=True)
class Confirmation:
    by: str | None          # the method that refuted the question again, if any
    found: object | None    # a solution another method found: the refutation was false
    seconds: float
    found_by: str | None = None

    @property
    def confirmed(self) -> bool:
        return self.by is not None

    def details(self, claim, by: str, certified) -> dict:
        """What the result's ``details`` records of this confirmation of
        ``claim`` (a bound, or "infeasible") that ``by`` made."""
        out: dict = {"confirmation_seconds": round(self.seconds, 3)}
        if self.found is not None:
            out["refuted_claim"] = {"bound": str(claim), "by": by, "solution_from": self.found_by}
        elif not self.confirmed:
            out.update(unconfirmed(claim, by, certified))
        return out


def confirm(alternatives: Iterable[tuple[str, Question]], deadline: float) -> Confirmation:
    """Ask a refuted question again, by each independent method in turn
    until one answers: refuted again (confirmed), or a solution (the first
    refutation was false). A method that refuses the model's size or gives
    no answer in time passes to the next; past ``deadline``, unconfirmed.
    A MILP is not started with less than ``MILP_MINIMUM`` seconds left: CBC
    and model building do not stop within a fraction of a second."""
    began = time.monotonic()
    for name, ask in alternatives:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        if name in MILP_METHODS:  # CBC's presolve and PuLP's reading overrun a time limit: ask within a share
            if remaining < MILP_MINIMUM:
                continue
            remaining *= MILP_SHARE
        try:
            status, solution = ask(remaining)
        except ModelTooLarge:
            continue
        if (by := refutation_by(status, name)) is not None:
            return Confirmation(by, None, time.monotonic() - began)
        if solution is not None:
            return Confirmation(None, solution, time.monotonic() - began, name)
    return Confirmation(None, None, time.monotonic() - began)


@dataclass(frozen=True)
class Method:
    """A backend model module run in one configuration."""
    name: str
    module: object
    context: Callable[[], AbstractContextManager]


def other_methods(models: Mapping[str, ModuleType], primary: str,
                  ask: Callable[[object, float], tuple[str, object]]) -> Iterator[tuple[str, Question]]:
    """``ask(model module, seconds)`` bound to each method that may confirm a
    refutation by ``primary`` (cpsat or milp) among a family's ``models``
    (backend -> model module),
    strongest first: the other backend, then CP-SAT in its confirming
    configuration (the fallback where the MILP cannot answer)."""
    cpsat = models["cpsat"]
    other = Method("cpsat", cpsat, nullcontext) if primary == "milp" else Method("milp", models["milp"], nullcontext)
    for method in (other, Method("cpsat-confirm", cpsat, confirming)):
        def question(seconds: float, method: Method = method) -> tuple[str, object]:
            with method.context():
                return ask(method.module, seconds)
        yield method.name, question


def unconfirmed(claim, by: str, bound) -> dict:
    """The ``details`` entry of a claim no second method confirmed in time."""
    return {"unconfirmed": {"bound": str(claim), "by": by, "reported_bound": str(bound)}}


def nested_unconfirmed(solutions) -> dict:
    """The ``details`` entry naming the P||Cmax solutions inside a result
    (a campaign's optimum, a relaxation) whose larger bound stayed a claim."""
    open_claims = [{"jobs": len(s.machine), "bound": s.unconfirmed[0], "by": s.unconfirmed[1],
                    "reported_bound": s.bound} for s in solutions if s.unconfirmed]
    return {"unconfirmed_pcmax": open_claims} if open_claims else {}
