"""DAG workflows on clusters (P-SLR paper)."""

from schedbench.claims import workflow_run as ledger
from schedbench.heuristics import workflow as heuristics
from schedbench.instances import stg, wfformat
from schedbench.instances import workflow as instances
from schedbench.metrics import workflow as metrics
from schedbench.model import workflow as model
from schedbench.registry import Family
from schedbench.solvers import workflow as solvers
from schedbench.summaries import workflow as summaries

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators={**instances.GENERATORS, **wfformat.GENERATORS},
                converters={**stg.CONVERTERS, **wfformat.CONVERTERS},
                heuristics=heuristics.HEURISTICS, heuristic_options=heuristics.options, summary=summaries.summary,
                search_start=instances.search_start, ledger=ledger)
