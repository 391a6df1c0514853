"""Campaign scheduling (FAIRCAMP and OStrich papers)."""

from schedbench.claims import campaign_run as ledger
from schedbench.heuristics import campaign as heuristics
from schedbench.instances import campaign as instances
from schedbench.metrics import campaign as metrics
from schedbench.model import campaign as model
from schedbench.registry import Family
from schedbench.solvers import campaign as solvers
from schedbench.summaries import campaign as summaries

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators=instances.GENERATORS,
                heuristics=heuristics.HEURISTICS, heuristic_options=heuristics.options, summary=summaries.summary,
                search_start=instances.search_start, metric_references=solvers.metric_references, ledger=ledger)
