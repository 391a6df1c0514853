"""One side of ``bench.pcmax_ab``: solves the P||Cmax problems it reads, one
JSON object a line on standard input ({"jobs", "machines", "solver",
"time_limit"}), and answers each with one line (makespan, bound, optimal,
method, CPU seconds). Run as a script, never imported, so that it stands
outside the revision it measures: the ``schedbench`` it imports is the one
on its PYTHONPATH (``bench.pcmax_ab`` builds one per revision), and it
uses only ``solvers.pcmax.pcmax_optimum`` and one CP-SAT worker, which
every revision compared has.
"""

import json
import sys
import time

from schedbench.solvers.exact import settings
from schedbench.solvers.pcmax import pcmax_optimum


def serve() -> None:
    settings.use_cpsat_workers(1)
    for line in sys.stdin:
        asked = json.loads(line)
        began = time.process_time()
        found = pcmax_optimum(tuple(asked["jobs"]), asked["machines"], asked["solver"], asked["time_limit"])
        print(json.dumps({"makespan": found.makespan, "bound": found.bound, "optimal": found.optimal,
                          "method": found.method, "cpu": time.process_time() - began}), flush=True)


if __name__ == "__main__":
    serve()
