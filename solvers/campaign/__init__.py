"""Exact campaign scheduling: the family entry point of both backends.

Structure used:
- A campaign alone on the m machines is a P||Cmax instance; its optimum
  (from ``solvers.pcmax``, same backend) is a valid lower bound on its Δ_i
  in any schedule, and F_u* is the sum of them.
- One user: campaigns never overlap and the campaign-compact chain of
  per-campaign optima minimises every Δ_i at once, so every objective is
  solved by decomposition into independent P||Cmax problems.
- Several users: a monolithic model (``solvers.cpsat.campaign`` /
  ``solvers.milp.campaign``); ratio objectives by the exact candidate
  bisection of ``solvers.exact.ratio``; warm starts from the best heuristic.
"""

import time
from functools import lru_cache
from fractions import Fraction

from schedbench.errors import UserInputError
from schedbench.heuristics.campaign import HEURISTICS as CAMPAIGN_HEURISTICS
from schedbench.heuristics.campaign import user_chain
from schedbench.metrics.campaign import objective_value
from schedbench.metrics.pcmax import fractional_lower_bound
from schedbench.result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Result
from schedbench.schedule import Schedule
from schedbench.solvers.cpsat import campaign as cpsat_model
from schedbench.solvers.milp import campaign as milp_model
from schedbench.solvers.campaign.spec import CampaignSpec, ordered_twins
from schedbench.solvers.exact.certificate import FORMULA, SEARCH_SHARE, confirm, nested_unconfirmed, other_methods
from schedbench.solvers.exact.machines import assign_machines
from schedbench.solvers.pcmax import DEFAULT_SOLVER as PCMAX_ENGINE
from schedbench.solvers.pcmax import derived_cache, pcmax_optima
from schedbench.solvers.exact.ratio import minimize_max_ratio

INCUMBENT_HEURISTICS = ("fcfs", "faircamp", "ostrich", "multicamp")
FAMILY = "campaign"
#: One model per backend (``solvers/cpsat``, ``solvers/milp``).
MODELS = {"cpsat": cpsat_model, "milp": milp_model}
BACKENDS = ("cpsat", "milp")
#: The strongest measured: CP-SAT proves more of every objective's grid within
#: 10 s (bench/frontier.py) and its median time is lower
#: (bench/optimality_stress.py).
DEFAULT_SOLVER = "cpsat"


def campaign_optima(instance, solver: str, time_limit: float):
    """P||Cmax solutions of every campaign alone on all machines, within
    ``time_limit`` seconds in all."""
    found = iter(pcmax_optima([(c.jobs, instance.machines) for user in instance.users for c in user.campaigns],
                              solver, time_limit))
    return [[next(found) for _ in user.campaigns] for user in instance.users]


@derived_cache
@lru_cache(maxsize=16)
def optimal_user_flows(instance, solver: str = PCMAX_ENGINE, time_limit: float = 60.0) -> tuple[int, ...] | None:
    """F_u* per user, or None when some campaign's optimum is not proven.
    Remembered per instance: the heuristics measured on one instance ask for
    the same references, and an unproven answer asked again would spend the
    limit again."""
    optima = campaign_optima(instance, solver, time_limit)
    if not all(s.optimal for row in optima for s in row):
        return None
    return tuple(sum(s.makespan for s in row) for row in optima)


def metric_references(instance, time_limit: float, objective: str | None = None, schedule=None) -> dict:
    """What the metrics need: F_u* (``optimal_flows``, None when a campaign's
    optimum is not proven within ``time_limit``), for max-user-stretch or
    for every metric (``objective`` None), whatever the ``schedule``. Proven by the P||Cmax engine's
    default, not CP-SAT alone: on FAIRCAMP Fig. 4's workloads CP-SAT left
    campaigns unproven that the portfolio proves at a tenth of the time
    (docs/results/campaign_references.md)."""
    if objective not in (None, "max-user-stretch"):
        return {}
    return {"optimal_flows": optimal_user_flows(instance, PCMAX_ENGINE, time_limit)}


def lower_deltas(optima) -> tuple[tuple[int, ...], ...]:
    """Each campaign's certified lower bound on its Δ_i: its P||Cmax bound alone."""
    return tuple(tuple(s.bound for s in row) for row in optima)


def sum_flow_below(instance, lower_delta, value: int) -> CampaignSpec:
    """The question that confirms a sum-user-flow claim: a schedule whose sum
    of user flows is below ``value``?"""
    return CampaignSpec(instance, lower_delta, objective="sum-user-flow", cutoff=value - 1)


def _chain_of_optima(instance, optima) -> Schedule:
    """One user's campaigns back to back (camp(A) with A = the optimum)."""
    plans = iter(optima[0])

    def optimal(jobs, ready):
        found = next(plans)
        return list(found.machine), [ready[0] + s for s in found.start]

    n = len(instance.lengths)
    machine, start = [0] * n, [0] * n
    user_chain(instance, 0, optimal, instance.users[0].release, machine, start)
    return Schedule.of(machine, start)


def _best_heuristic(instance, value_of):
    scored = []
    for name in INCUMBENT_HEURISTICS:
        schedule = CAMPAIGN_HEURISTICS[name](instance)
        scored.append((value_of(schedule), name, schedule))
    return min(scored, key=lambda x: (x[0], x[1]))


def _schedule_from_starts(instance, starts) -> Schedule:
    return Schedule(tuple(assign_machines(starts, instance.lengths, instance.machines)), tuple(starts))


def solve(instance, objective: str, solver: str, time_limit: float, formulation: str = "default") -> Result:
    """The objective's optimum: by decomposition for one user, else by the
    joint model (one minimisation for sum-user-flow, the candidate bisection
    for the ratios), half the time going to the campaigns' optima."""
    began = time.monotonic()
    deadline = began + time_limit
    model = MODELS[solver]
    if formulation != "default" and formulation not in model.FORMULATIONS:
        raise UserInputError("options.formulation", f"{solver} knows {', '.join(model.FORMULATIONS)}, "
                                                    f"not {formulation!r}")
    if objective == "user-flow" and instance.n_users != 1:
        raise UserInputError("--objective", f"user-flow is defined for one user; this instance has {instance.n_users}")
    optima = campaign_optima(instance, solver, time_limit / 2)  # the other half: the joint model
    proven = all(s.optimal for row in optima for s in row)
    flows_star = [sum(s.makespan for s in row) for row in optima] if proven else None
    details = nested_unconfirmed(s for row in optima for s in row)
    if objective == "max-user-stretch" and not proven:
        return Result(UNKNOWN, None, None, None, solver, "F_u* not proven", time.monotonic() - began, details)

    def value_of(schedule: Schedule) -> Fraction:
        return objective_value(instance, schedule, objective, flows_star)

    lower_delta = lower_deltas(optima)
    if instance.n_users == 1:
        return _one_user(instance, objective, optima, proven, value_of, solver, began, details)

    incumbent_value, incumbent_name, incumbent = _best_heuristic(instance, value_of)
    details["incumbent"] = incumbent_name

    if objective == "sum-user-flow":
        return _sum_user_flow(instance, lower_delta, incumbent, incumbent_value, value_of, solver, formulation,
                              began, time_limit, details)

    denominators, lower, lower_proof, question = _ratio_questions(instance, objective, lower_delta, flows_star)

    def ask(backend_model, limits, seconds):
        chosen = formulation if backend_model is model else "default"  # a confirming backend: its own default
        return answer(instance, question(limits, chosen), backend_model, seconds)

    search = minimize_max_ratio(denominators, lower, lower_proof, incumbent_value, incumbent, value_of, MODELS,
                                solver, ask, max(deadline - time.monotonic(), 0.01))
    details.update(search.details, questions=search.questions)
    return Result(search.status, search.value, search.bound, search.schedule, solver,
                  f"{solver}:{formulation}:ratio-bisection", time.monotonic() - began, details, search.proof)


def _one_user(instance, objective: str, optima, proven: bool, value_of, solver: str, began: float,
              details: dict) -> Result:
    """One user: the chain of the campaigns' optima minimises every Δ_i at
    once; optimal where each campaign's optimum is certified by the P||Cmax
    engine, else bounded by the campaigns' bounds."""
    schedule = _chain_of_optima(instance, optima)
    value = value_of(schedule)
    if proven:
        return Result(OPTIMAL, value, value, schedule, solver, "decomposition", time.monotonic() - began,
                      details, ("decomposition",))
    bound = _decomposition_bound(instance, objective, optima)
    return Result(FEASIBLE, value, bound, schedule, solver, "decomposition", time.monotonic() - began,
                  details, ("decomposition",))


def _ratio_questions(instance, objective: str, lower_delta, flows_star):
    """What ``minimize_max_ratio`` needs of a ratio objective: the
    denominators, a certified lower bound and its proof, and
    ``question(limits, formulation)``, the CampaignSpec that limits the
    numerators (each user's flow, or each campaign's Δ_i)."""
    if objective == "max-user-stretch":

        def flow_question(limits, chosen):
            return CampaignSpec(instance, lower_delta, flow_limit=tuple(limits), formulation=chosen)

        return [Fraction(f) for f in flows_star], Fraction(1), ("stretch>=1",), flow_question
    if objective == "max-campaign-stretch":
        bounds = [(u, i, fractional_lower_bound(c.jobs, instance.machines))
                  for u, user in enumerate(instance.users) for i, c in enumerate(user.campaigns)]

        def delta_question(limits, chosen):
            delta = [[None] * len(user.campaigns) for user in instance.users]
            for (u, i, _), limit in zip(bounds, limits):
                delta[u][i] = limit
            return CampaignSpec(instance, lower_delta, delta_limit=tuple(map(tuple, delta)), formulation=chosen)

        lower = max(Fraction(lower_delta[u][i]) / l for u, i, l in bounds)
        return [l for _, _, l in bounds], lower, ("campaign-bounds",), delta_question
    raise UserInputError("--objective", f"unknown campaign objective {objective!r}")


def _sum_user_flow(instance, lower_delta, incumbent, incumbent_value, value_of, solver: str, formulation: str,
                   began: float, time_limit: float, details: dict) -> Result:
    """One minimisation under the incumbent's value (hinted with it, its
    interchangeable jobs in the models' order); the optimum it claims (or
    its bound) is confirmed by the other backend asked for anything better."""
    deadline = began + time_limit
    model = MODELS[solver]
    spec = CampaignSpec(instance, lower_delta, objective="sum-user-flow", hint=ordered_twins(instance, incumbent.start),
                        cutoff=int(incumbent_value), formulation=formulation)
    certified = Fraction(spec.sum_flow_lower_bound)
    proof = ("sum-flow-bound",)
    outcome = model.solve(spec, max(began + SEARCH_SHARE * time_limit - time.monotonic(), 0.01))
    value, schedule, method = incumbent_value, incumbent, "heuristic"
    if outcome.solution is not None:
        found = _schedule_from_starts(instance, outcome.solution)
        found_value = value_of(found)
        if found_value <= value:
            value, schedule, method = found_value, found, f"{solver}:{formulation}"
    if outcome.status == OPTIMAL and value != outcome.value:
        raise AssertionError(f"model optimum {outcome.value} differs from the schedule's value {value}")
    claimed = value if outcome.status in (OPTIMAL, INFEASIBLE) else Fraction(outcome.bound or 0)
    if claimed > certified and min(claimed, value) - 1 >= certified:
        bound = int(min(claimed, value))  # the claim: no schedule below it
        better = sum_flow_below(instance, lower_delta, bound)

        def ask(backend_model, seconds):
            return answer(instance, better, backend_model, seconds)

        done = confirm(other_methods(MODELS, solver, ask), deadline)
        details.update(done.details(claimed, solver, certified))
        if done.confirmed:
            certified, proof = Fraction(bound), (solver, done.by)
        elif done.found is not None and value_of(done.found) < value:  # the claim was false
            value, schedule, method = value_of(done.found), done.found, done.found_by
    status = OPTIMAL if certified >= value else FEASIBLE
    return Result(status, value, value if status == OPTIMAL else certified, schedule, solver, method,
                  time.monotonic() - began, details, proof)


def answer(instance, spec: CampaignSpec, backend_model, seconds: float):
    """(status, schedule) of ``spec`` asked to a backend; empty start windows
    refute it by formula, before any model."""
    if spec.trivially_infeasible():
        return FORMULA, None
    outcome = backend_model.solve(spec, seconds)
    if outcome.solution is None:
        return outcome.status, None
    return outcome.status, _schedule_from_starts(instance, outcome.solution)


def _decomposition_bound(instance, objective: str, optima) -> Fraction:
    """Lower bound for one user when some campaign optimum is unproven."""
    if objective in ("user-flow", "sum-user-flow"):
        return Fraction(sum(s.bound for s in optima[0]))
    if objective == "max-campaign-stretch":
        return max(Fraction(s.bound) / fractional_lower_bound(c.jobs, instance.machines)
                   for s, c in zip(optima[0], instance.users[0].campaigns))
    return Fraction(1)
