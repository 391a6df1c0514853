"""What ``schedbench heuristic`` prints of a campaign schedule."""

from fractions import Fraction

from schedbench.metrics import exact, fraction, number
from schedbench.metrics.campaign import campaign_stretches, campaign_times, objective_value, user_flows
from schedbench.metrics.pcmax import makespan
from schedbench.schedule import Schedule

def summary(instance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """Per-campaign and per-user metrics plus every objective, exact;
    max-user-stretch only with ``references["optimal_flows"]`` (F_u*, None
    when one is not proven in time)."""
    optimal_flows = references.get("optimal_flows")
    times, stretches = campaign_times(instance, schedule), campaign_stretches(instance, schedule)
    flows = user_flows(instance, schedule)
    users = []
    for u, (row, srow) in enumerate(zip(times, stretches)):
        entry: dict = {"flow": flows[u], "campaigns": [
            {"submission": t.submission, "completion": t.completion, "flow": t.flow, **exact("stretch", s)}
            for t, s in zip(row, srow)]}
        if optimal_flows is not None:
            entry["optimal_flow"] = optimal_flows[u]
            entry.update(exact("stretch", Fraction(flows[u], optimal_flows[u])))
        users.append(entry)
    objectives = {}
    for name in ("sum-user-flow", "max-campaign-stretch") + (("max-user-stretch",) if optimal_flows else ()):
        value = objective_value(instance, schedule, name, optimal_flows)
        objectives[name] = {"value": number(value), "fraction": fraction(value)}
    if instance.n_users == 1:
        objectives["user-flow"] = {"value": flows[0], "fraction": [flows[0], 1]}
    return {"makespan": makespan(instance.lengths, schedule), "users": users, "objectives": objectives}
