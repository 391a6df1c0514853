"""The quick benchmark of the README's first command: every campaign
heuristic's ratio to the exact optimum on small random instances."""

from fractions import Fraction

from schedbench.heuristics.campaign import registry
from schedbench.instances.campaign import random_small
from schedbench.metrics.campaign import objective_value
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.campaign import optimal_user_flows
from schedbench.validator import validate

OBJECTIVES = ("sum-user-flow", "max-user-stretch", "max-campaign-stretch")
HEURISTICS = ("fcfs", "faircamp", "faircamp_nondelay", "ostrich", "multicamp")


def ratio_rows(count: int, seed: int, time_limit: float) -> dict:
    """ratios[objective][heuristic] = list of exact heuristic / optimum."""
    heuristics = registry()
    ratios = {o: {h: [] for h in HEURISTICS} for o in OBJECTIVES}
    unproven = {o: 0 for o in OBJECTIVES}
    for index in range(count):
        inst = random_small(seed * 1_000_003 + index, users=(2, 3), campaigns=(1, 3), jobs=(1, 3),
                            length=(1, 8), machines=(1, 3), release=(0, 4), think=(0, 3))
        flows = optimal_user_flows(inst, "cpsat", time_limit)
        schedules = {h: heuristics[h](inst) for h in HEURISTICS}
        for h, s in schedules.items():
            assert not validate(inst, s), (h, inst)
        for objective in OBJECTIVES:
            best = solve(inst, objective, "cpsat", time_limit)
            if best.status != OPTIMAL:
                unproven[objective] += 1
                continue
            for h, s in schedules.items():
                ratios[objective][h].append(objective_value(inst, s, objective, flows) / best.objective)
    return {"ratios": ratios, "unproven": unproven}


def ratio_table(count: int, seed: int, time_limit: float) -> str:
    data = ratio_rows(count, seed, time_limit)
    lines = [f"heuristic / optimum on {count} random campaign instances (2-3 users, releases and think times), "
             f"optima by CP-SAT, exact ratios shown as floats",
             "", "| objective | heuristic | mean | worst | optimal share | optima proven |",
             "|---|---|---:|---:|---:|---:|"]
    for objective, per in data["ratios"].items():
        for h, values in per.items():
            if not values:
                continue
            mean = sum(values, Fraction(0)) / len(values)
            hit = sum(v == 1 for v in values) / len(values)
            lines.append(f"| {objective} | {h} | {float(mean):.3f} | {float(max(values)):.3f} | {hit:.0%} | "
                         f"{len(values)}/{count} |")
    return "\n".join(lines)
