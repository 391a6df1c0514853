"""What ``schedbench heuristic`` prints of a knapsack schedule."""

def summary(instance, selected, heuristic: str | None, references: dict) -> dict:
    """The selection's profit and weight."""
    return {"profit": instance.profit_of(selected), "weight": instance.weight_of(selected)}
