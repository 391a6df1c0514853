"""The P||Cmax engine, with a long limit, on every instance of a public set
whose optimum the literature does not know.

    python -m bench.pcmax_open --set SET [--time-limit 600] [--workers 2]

SET is the folder of Lawrinenko's public P||Cmax set (its
opt-known-instances-lawrinenko.txt lists the instances with a known
optimum; every other file of lawrinenko/ is open). Each open instance is
solved by the portfolio engine (one CP-SAT worker, one instance per
worker); its certificate, written to bench/certificates/pcmax/NAME.json,
carries the instance, the best schedule and the proven lower bound with
the methods behind it and, for the arc-flow LP's bound, the dual weights
that prove it; a test checks the schedule with the validator and the bound
on its own (the formula L0, or the weights: no bin of capacity bound - 1
holds enough weight for the machines there are). The table goes to
docs/results/pcmax_open.md (status, makespan, bound, proof, seconds).
"""

import argparse
import json
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from bench.results_log import write_generated
from schedbench.instances.pcmax import read_pcmax_text
from schedbench.metrics.pcmax.bounds import DUAL_SCALE, weights_bound
from schedbench.model import instance_to_json
from schedbench.solvers.exact import settings
from schedbench.solvers.pcmax import pcmax_optimum
from schedbench.solvers.milp.pcmax import dual_certificate

CERTIFICATES = Path(__file__).parent / "certificates" / "pcmax"
TABLE = Path(__file__).parents[1] / "docs" / "results" / "pcmax_open.md"


def open_instances(folder: Path) -> list[Path]:
    """The files of lawrinenko/ that opt-known-instances-lawrinenko.txt does not list."""
    known = {line.split()[0] for line in (folder / "opt-known-instances-lawrinenko.txt").read_text().splitlines()
             if line.strip()}
    return sorted(path for path in (folder / "lawrinenko").iterdir() if path.name not in known)


def certify(task: tuple[Path, float]) -> dict:
    """Solve one instance and write its certificate; the row of the table."""
    settings.use_cpsat_workers(1)
    path, limit = task
    instance = read_pcmax_text(path)
    began = time.perf_counter()
    found = pcmax_optimum(tuple(instance.jobs), instance.machines, "portfolio", limit)
    seconds = time.perf_counter() - began
    certificate = {"instance": instance_to_json(instance), "status": "optimal" if found.optimal else "open",
                   "makespan": found.makespan, "lower_bound": found.bound, "proof": list(found.proof),
                   "closed_by": found.method, "time_limit": limit, "seconds": round(seconds, 1),
                   "schedule": {"jobs": [{"machine": m, "start": s} for m, s in zip(found.machine, found.start)]},
                   **_bound_certificate(instance.jobs, instance.machines, found.bound, found.proof)}
    CERTIFICATES.mkdir(parents=True, exist_ok=True)
    (CERTIFICATES / f"{path.stem}.json").write_text(json.dumps(certificate, indent=1) + "\n")
    return {"name": path.stem, "n": len(instance.jobs), "m": instance.machines, **{
        k: certificate[k] for k in ("status", "makespan", "lower_bound", "proof", "closed_by", "seconds")}}


def _bound_certificate(lengths, machines: int, bound: int, proof) -> dict:
    """What makes the lower bound checkable: for the arc-flow LP's bound, its
    dual weights at capacity bound - 1, which prove that capacity needs more
    than ``machines`` machines (``weights_bound``); L0 needs nothing (its formula)."""
    if "arcflow-lp-dual" not in proof:
        return {}
    weights = dual_certificate(lengths, bound - 1, 600.0)
    if weights is None or weights_bound(dict(Counter(lengths)), bound - 1, weights) <= machines:
        raise AssertionError(f"the arc-flow bound {bound} could not be certified again")
    return {"dual_certificate": {"capacity": bound - 1, "scale": DUAL_SCALE,
                                 "weights": {str(s): y for s, y in sorted(weights.items())}}}


def table(rows: list[dict], limit: float) -> str:
    lines = ["# P||Cmax: the open instances of Lawrinenko's set",
             "",
             f"The {len(rows)} instances of Lawrinenko's public set without a known optimum, each given "
             f"{limit:g} s by the portfolio engine on one core. optimal: the makespan meets the proven lower "
             "bound (its proof: the methods behind the bound); open: the best makespan and the bound proven. "
             "Each certificate (instance, schedule, bound, proof) is under `bench/certificates/pcmax/`, "
             "checked by the validator in `tests/pcmax/test_open_certificates.py`.", "",
             "| instance | n | m | status | makespan | lower bound | proof | closed by | seconds |",
             "|---|---:|---:|---|---:|---:|---|---|---:|"]
    lines += [f"| {r['name']} | {r['n']} | {r['m']} | {r['status']} | {r['makespan']} | {r['lower_bound']} | "
              f"{', '.join(r['proof']) or '-'} | {r['closed_by']} | {r['seconds']:.1f} |" for r in rows]
    closed = sum(r["status"] == "optimal" for r in rows)
    lines += ["", f"{closed} of {len(rows)} closed."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", required=True, type=Path, help="the folder of Lawrinenko's public P||Cmax set")
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = [(path, args.time_limit) for path in open_instances(args.set)]
    with Pool(args.workers) as pool:
        rows = sorted(pool.imap_unordered(certify, tasks), key=lambda r: r["name"])
    for row in rows:
        print(f"{row['name']}: {row['status']} {row['makespan']} (bound {row['lower_bound']}) in {row['seconds']} s")
    command = f"python -m bench.pcmax_open --set SET --time-limit {args.time_limit:g} --workers {args.workers}"
    write_generated(TABLE, command, table(rows, args.time_limit))


if __name__ == "__main__":
    main()
