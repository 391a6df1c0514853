"""One side of ``bench.pcmax_ab``: solves the P||Cmax problems it reads, one
JSON object a line on standard input ({"jobs", "machines", "solver",
"time_limit"}), and answers each with one line (makespan, bound, optimal,
method, the schedule's machines and starts, CPU seconds). Run as a
script, never imported, so that it stands outside the revision it
measures: the ``schedbench`` it imports is the one laid out on its
PYTHONPATH (``bench.package_tree``), never an editable install's, and its
first line says where that package's engine came from, which the driver
checks. It uses ``solvers.pcmax``'s ``pcmax_optimum`` and ``clear_cache``
and one CP-SAT worker (``settings.use_cpsat_workers``): revisions from
2026-11-26 on have them.
"""

import json
import sys
import time


def _without_editable_installs() -> None:
    """Drop the import hooks of editable installs: one would serve a
    module missing from this side's tree from the developer's checkout,
    the other side's code, without a word."""
    sys.meta_path[:] = [finder for finder in sys.meta_path
                        if "__editable__" not in getattr(finder, "__module__", "")]


def serve() -> None:
    """Announce the engine's file, then answer each problem read, each
    with nothing remembered from the ones before (as a workload of MOSP
    Fig. 8 asks its organizations: the engine's caches cleared)."""
    _without_editable_installs()
    from schedbench.solvers import pcmax
    from schedbench.solvers.exact import settings

    settings.use_cpsat_workers(1)
    print(json.dumps({"engine": pcmax.__file__}), flush=True)
    for line in sys.stdin:
        asked = json.loads(line)
        pcmax.clear_cache()
        began = time.process_time()
        found = pcmax.pcmax_optimum(tuple(asked["jobs"]), asked["machines"], asked["solver"], asked["time_limit"])
        print(json.dumps({"makespan": found.makespan, "bound": found.bound, "optimal": found.optimal,
                          "method": found.method, "machine": found.machine, "start": found.start,
                          "cpu": time.process_time() - began}), flush=True)


if __name__ == "__main__":
    serve()
