"""0-1 knapsack, the DSSP job-selection phase."""

from schedbench.heuristics import knapsack as heuristics
from schedbench.instances import knapsack as instances
from schedbench.metrics import knapsack as metrics
from schedbench.model import knapsack as model
from schedbench.registry import Family
from schedbench.solvers import knapsack as solvers
from schedbench.summaries import knapsack as summaries

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators=instances.GENERATORS, converters=instances.CONVERTERS,
                heuristics=heuristics.HEURISTICS, summary=summaries.summary, search_start=instances.search_start,
                result_fields=model.result_fields, maximized=model.MAXIMIZED)
