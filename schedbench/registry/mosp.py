"""Multi-organization scheduling (MOSP paper)."""

from schedbench.claims import mosp_run as ledger
from schedbench.heuristics import mosp as heuristics
from schedbench.instances import mosp as instances
from schedbench.metrics import mosp as metrics
from schedbench.model import mosp as model
from schedbench.registry import Family
from schedbench.solvers import mosp as solvers
from schedbench.summaries import mosp as summaries

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators=instances.GENERATORS,
                heuristics=heuristics.HEURISTICS, own_violations=heuristics.violations, summary=summaries.summary,
                search_start=instances.search_start, rule_references=solvers.rule_references,
                metric_references=solvers.metric_references, ledger=ledger)
