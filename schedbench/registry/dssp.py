"""Disconnected staged scheduling (the two-phase rendering paper)."""

from schedbench.claims import dssp_run as ledger
from schedbench.heuristics import dssp as heuristics
from schedbench.instances import dssp as instances
from schedbench.metrics import dssp as metrics
from schedbench.model import dssp as model
from schedbench.registry import Family
from schedbench.solvers import dssp as solvers
from schedbench.summaries import dssp as summaries

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators=instances.GENERATORS,
                heuristics=heuristics.HEURISTICS, heuristic_options=heuristics.options, summary=summaries.summary,
                search_start=instances.search_start, maximized=model.MAXIMIZED, ledger=ledger)
