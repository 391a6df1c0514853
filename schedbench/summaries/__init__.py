"""What ``schedbench heuristic`` prints of a schedule: one module per family
with heuristics, each a ``summary(instance, schedule, heuristic,
references)`` of exact metrics as JSON. Above the metrics, the validator
and the heuristics (a summary reports a heuristic's own references and any
breach of the format's rules), so none of those imports a summary.
"""
