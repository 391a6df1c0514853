"""JSON renderings of results and metrics (exact values as [num, den])."""

from fractions import Fraction
from typing import Any

from schedbench.errors import UserInputError
from schedbench.model import schedule_to_json
from schedbench.result import Result


def number(value: Fraction | int | None) -> int | float | None:
    """A JSON number: an int when the value is integral, else a float (display only)."""
    if value is None:
        return None
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else float(value)


def fraction(value: Fraction | int) -> list[int]:
    value = Fraction(value)
    return [value.numerator, value.denominator]


def result_json(instance, result: Result, objective: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "status": result.status,
        "objective": number(result.objective),
        "bound": number(result.bound),
        "solver": result.solver,
        "wall_time": round(result.wall_time, 6),
        "schedule": schedule_to_json(instance, result.schedule) if result.schedule is not None else None,
        "objective_name": objective,
        "method": result.method,
        "proof": list(result.proof),
    }
    if instance.family == "three_partition" and result.schedule is not None:
        out["certificate"] = [list(triple) for triple in result.schedule]
    if instance.family == "knapsack" and result.schedule is not None:
        out["selected"] = list(result.schedule)
    if result.objective is not None:
        out["objective_fraction"] = fraction(result.objective)
    if result.bound is not None:
        out["bound_fraction"] = fraction(result.bound)
    if result.details:
        out["details"] = result.details
    return out


def campaign_metrics_json(instance, schedule, optimal_flows) -> dict[str, Any]:
    """Per-campaign and per-user metrics plus every objective, exact."""
    from schedbench.metrics.campaign import (campaign_stretches, campaign_times, objective_value,
                                             user_flows)
    from schedbench.metrics.pcmax import makespan

    times = campaign_times(instance, schedule)
    stretches = campaign_stretches(instance, schedule)
    flows = user_flows(instance, schedule)
    users = []
    for u, (row, srow) in enumerate(zip(times, stretches)):
        entry: dict[str, Any] = {
            "flow": flows[u],
            "campaigns": [{"submission": t.submission, "completion": t.completion, "flow": t.flow,
                           "stretch": number(s), "stretch_fraction": fraction(s)} for t, s in zip(row, srow)],
        }
        if optimal_flows is not None:
            entry["optimal_flow"] = optimal_flows[u]
            entry["stretch_fraction"] = fraction(Fraction(flows[u], optimal_flows[u]))
            entry["stretch"] = number(Fraction(flows[u], optimal_flows[u]))
        users.append(entry)
    objectives = {}
    for name in ("sum-user-flow", "max-campaign-stretch") + (("max-user-stretch",) if optimal_flows else ()):
        value = objective_value(instance, schedule, name, optimal_flows)
        objectives[name] = {"value": number(value), "fraction": fraction(value)}
    if instance.n_users == 1:
        objectives["user-flow"] = {"value": flows[0], "fraction": [flows[0], 1]}
    return {"makespan": makespan(instance.lengths, schedule), "users": users, "objectives": objectives}


def mosp_metrics_json(instance, schedule, heuristic: str, time_limit: float) -> dict[str, Any]:
    """A MOSP heuristic's schedule: exact global and fairness metrics, its own
    local references, and any breach of SPEC's references (ref_k). Stretch
    needs every C^(k)alone proven within ``time_limit``; otherwise it is
    null and ``stretch_unproven`` says which optimum is missing."""
    from schedbench.heuristics.mosp import own_references, violations as heuristic_violations
    from schedbench.metrics import mosp
    from schedbench.validator import validate

    own = own_references(instance, heuristic)
    violations = heuristic_violations(instance, schedule, "makespan", heuristic)
    if violations:
        raise AssertionError(f"heuristic produced an invalid schedule: {violations[0]}")
    value, bound = mosp.makespan(instance, schedule), mosp.lower_bound(instance)
    makespans = mosp.local_makespans(instance, schedule)
    jain = mosp.jain_index(instance, schedule)
    try:
        stretch = mosp.stretch(instance, schedule, time_limit)
        unproven = {}
    except UserInputError as exc:
        stretch, unproven = None, {"stretch_unproven": str(exc)}
    return {"makespan": value, "lower_bound": number(bound), "lower_bound_fraction": fraction(bound),
            "ratio_to_lower_bound": number(value / bound), "ratio_to_lower_bound_fraction": fraction(value / bound),
            "local_makespans": makespans, "sum_local_makespans": sum(makespans),
            "local_values": mosp.local_values(instance, schedule), "own_local_references": own,
            "stretch": None if stretch is None else number(stretch),
            "stretch_fraction": None if stretch is None else fraction(stretch), **unproven,
            "jain_index": number(jain), "jain_index_fraction": fraction(jain),
            "spec_reference_violations": [str(v) for v in validate(instance, schedule)]}


def dssp_metrics_json(instance, schedule) -> dict[str, Any]:
    """A DSSP schedule's reward and the jobs that earn it, against the
    paper's upper bound (the knapsack value at r = 1) and its LP relaxation."""
    from schedbench.metrics.dssp import completed_jobs, reward
    from schedbench.solvers.dssp import knapsack_bound, lp_bound
    from schedbench.validator import validate

    violations = validate(instance, schedule)
    if violations:
        raise AssertionError(f"heuristic produced an invalid schedule: {violations[0]}")
    value, bound, relaxed = reward(instance, schedule), knapsack_bound(instance), lp_bound(instance)
    return {"reward": value, "completed_jobs": completed_jobs(instance, schedule), "knapsack_bound": bound,
            "lp_bound": number(relaxed), "lp_bound_fraction": fraction(relaxed),
            "ratio_to_knapsack_bound": number(Fraction(value, bound)) if bound else None,
            "ratio_to_knapsack_bound_fraction": fraction(Fraction(value, bound)) if bound else None}


def workflow_metrics_json(instance, schedule) -> dict[str, Any]:
    """A workflow schedule's SLRs (exact), worst SLR, their Gini coefficient,
    response times, the worst task wait (starvation) and the §3 class."""
    from schedbench.metrics import workflow
    from schedbench.validator import validate

    violations = validate(instance, schedule)
    if violations:
        raise AssertionError(f"heuristic produced an invalid schedule: {violations[0]}")
    ratios = workflow.slrs(instance, schedule)
    worst, spread = max(ratios, default=Fraction(0)), workflow.gini(ratios)
    rho, slr_class = workflow.slr_class(instance, schedule)
    waits = workflow.waiting_times(instance, schedule)
    return {"max_slr": number(worst), "max_slr_fraction": fraction(worst),
            "gini": number(spread), "gini_fraction": fraction(spread),
            "slr_fractions": [fraction(x) for x in ratios],
            "response_times": workflow.response_times(instance, schedule),
            "worst_wait": max(waits, default=0), "spearman_slr_cp": rho, "slr_class": slr_class}
