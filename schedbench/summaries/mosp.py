"""What ``schedbench heuristic`` prints of a mosp schedule."""

from schedbench.heuristics.mosp import own_references
from schedbench.metrics import exact
from schedbench.metrics.mosp import jain_index, lower_bound, makespan, proven_stretch
from schedbench.schedule import Schedule
from schedbench.validator import validate
from schedbench.validator.mosp import local_makespans, local_values

def summary(instance, schedule: Schedule, heuristic: str | None, references: dict) -> dict:
    """Exact global and fairness metrics, the heuristic's own local
    references, and any breach of the format's references (``references["local"]``,
    ref_k). Stretch needs the C^(k)alone that decide it
    (``references["alone_bounds"]``); when one was not proven it is null and
    ``stretch_unproven`` says which."""
    value, bound = makespan(instance, schedule), lower_bound(instance)
    makespans = local_makespans(instance, schedule)
    spread = proven_stretch(instance, schedule, references)
    unproven = {} if spread is not None else {"stretch_unproven": references["alone_unproven"]}
    return {"makespan": value, **exact("lower_bound", bound), **exact("ratio_to_lower_bound", value / bound),
            "local_makespans": makespans, "sum_local_makespans": sum(makespans),
            "local_values": local_values(instance, schedule),
            "own_local_references": own_references(instance, heuristic) if heuristic else None,
            **exact("stretch", spread), **unproven, **exact("jain_index", jain_index(instance, schedule)),
            "spec_reference_violations": [str(v) for v in validate(instance, schedule,
                                                                  references=references["local"])]}
