"""Heuristics, one module per family, each listing its heuristics in
``HEURISTICS`` (name -> function), declared in the family registry.

Every heuristic is ``name(instance, **options) -> Schedule`` and never calls
a solver.
"""
