"""P||Cmax: identical machines, independent jobs, the makespan."""

from schedbench.heuristics import pcmax as heuristics
from schedbench.instances import pcmax as instances
from schedbench.metrics import pcmax as metrics
from schedbench.model import pcmax as model
from schedbench.registry import Family
from schedbench.solvers import pcmax as solvers
from schedbench.summaries import pcmax as summaries

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators=instances.GENERATORS, converters=instances.CONVERTERS,
                heuristics=heuristics.HEURISTICS, summary=summaries.summary, search_start=instances.search_start)
