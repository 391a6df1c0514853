"""The P||Cmax LP bound two ways, on several shapes: the arc-flow graph's
LP (GLOP on the compressed graph, one LP per capacity) against column
generation (``solvers.milp.pcmax_patterns``, one restricted LP carried
from each capacity to the next), asked the capacities L, L + 1, L + 2
(L the engine's cheap bound) as the engine's bisection mostly asks them.
Prints, per shape, the seconds of each at the median and in all, and how
often each refutes; a refutation of the graph's LP that column generation
misses is an error. The engine uses column generation up to
``pcmax_patterns.MAX_JOBS`` jobs (and ``MAX_CELLS`` knapsack cells); the
rows above it show why not beyond.

    python -m bench.pcmax_patterns [--set LAWRINENKO_FOLDER] [--per-shape K] [--out FILE]
"""

import argparse
import statistics
import time
from pathlib import Path

from bench.results_log import rerun_command, write_generated
from schedbench.instances.mosp import paper_workload
from schedbench.instances.pcmax import read_pcmax_text
from schedbench.metrics.pcmax.bounds import lower_bound
from schedbench.solvers.milp.pcmax import lp_bins
from schedbench.solvers.milp.pcmax_patterns import MAX_JOBS, PatternLP


def figure8_organizations(organizations: int, jobs: int, per_shape: int):
    """MOSP Fig. 8's organizations of 3 to 6 jobs a machine (the ones its Stretch proves), seeds from 0."""
    seed, found = 0, 0
    while found < per_shape:
        for org in paper_workload(organizations, jobs, seed).organizations:
            if 3 * organizations <= len(org.jobs) <= 6 * organizations and found < per_shape:
                found += 1
                yield org.jobs, organizations
        seed += 1


def lawrinenko(folder: Path, klass: str, small: bool, per_shape: int):
    """Lawrinenko instances of a class with at most (``small``) or more than ``MAX_JOBS`` jobs."""
    found = 0
    for path in sorted((folder / "lawrinenko").glob(f"*{klass}-*")):
        inst = read_pcmax_text(path)
        if (len(inst.jobs) <= MAX_JOBS) == small and found < per_shape:
            found += 1
            yield inst.jobs, inst.machines


def measure(lengths, machines) -> dict:
    lower = lower_bound(lengths, machines)[0]
    capacities = [lower, lower + 1, lower + 2]
    began = time.perf_counter()
    graph = [(lambda needed: needed is not None and needed > machines)(lp_bins(lengths, c, 60.0)) for c in capacities]
    graph_seconds = time.perf_counter() - began
    began, patterns = time.perf_counter(), PatternLP(lengths)
    columns = [patterns.refuted_through(c, machines, c, time.monotonic() + 60.0) == c for c in capacities]
    return {"graph": graph_seconds, "columns": time.perf_counter() - began, "graph_refuted": sum(graph),
            "columns_refuted": sum(columns), "missed": sum(g and not c for g, c in zip(graph, columns))}


def row(name: str, results: list[dict]) -> str:
    def median(key):
        return statistics.median(r[key] for r in results)

    missed = sum(r["missed"] for r in results)
    return (f"| {name} | {len(results)} | {median('graph'):.3f} | {median('columns'):.3f} | "
            f"{sum(r['graph'] for r in results):.1f} | {sum(r['columns'] for r in results):.1f} | "
            f"{sum(r['graph_refuted'] for r in results)} | {sum(r['columns_refuted'] for r in results)} | {missed} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, help="Lawrinenko's public P||Cmax set (the folder with lawrinenko/)")
    parser.add_argument("--per-shape", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    shapes = {f"MOSP Fig. 8 organizations, N = {n}, n = {jobs}": figure8_organizations(n, jobs, args.per_shape)
              for n, jobs in ((10, 500), (10, 1000), (20, 1000))}
    if args.set is not None:
        for klass in ("class1", "class4", "class6", "class7"):
            shapes[f"Lawrinenko {klass}, n <= {MAX_JOBS}"] = lawrinenko(args.set, klass, True, args.per_shape)
            shapes[f"Lawrinenko {klass}, n > {MAX_JOBS}"] = lawrinenko(args.set, klass, False, args.per_shape)
    lines = ["Seconds for the LP at C = L, L + 1, L + 2 (L: L0, L1, Martello-Toth L2), per instance; "
             "capacities refuted, in all.", "",
             "| shape | instances | graph LP, median s | column generation, median s | graph LP, total s | "
             "column generation, total s | refuted by the graph LP | refuted by column generation | "
             "graph refutations missed |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, instances in shapes.items():
        results = [measure(tuple(lengths), machines) for lengths, machines in instances]
        if results:
            lines.append(row(name, results))
            print(lines[-1], flush=True)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name).replace(str(args.set), "SET"), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
