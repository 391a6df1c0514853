"""3-PARTITION, the MOSP paper's hardness reduction (Theorem 2)."""

from schedbench.instances import mosp as instances
from schedbench.metrics import three_partition as metrics
from schedbench.model import three_partition as model
from schedbench.registry import Family
from schedbench.solvers import three_partition as solvers

FAMILY = Family(model=model, metrics=metrics, solvers=solvers, generators=instances.THREE_PARTITION_GENERATORS,
                result_fields=model.result_fields)
