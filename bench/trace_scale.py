"""Whole-command cost at trace scale: convert, simulate, validate, metrics.

    python -m bench.trace_scale [--sizes 10000 100000 1000000] [--wide 200000:25000]
        [--traces FOLDER] [--out FILE]
        [--results bench/logs/trace_scale.jsonl]    # one line per finished command pair; a rerun skips those done

Per size, a seeded synthetic SWF trace (``synthetic_trace``) is converted
with ``schedbench generate swf`` (campaigns) and ``generate mosp-swf``
(8 organizations, or as many user groups as the trace has), then every
campaign and MOSP heuristic runs as
``schedbench heuristic H FILE --json --no-schedule``: the simulation, the
validator, the exact references its metrics need (``--time-limit`` each)
and the metrics. Every command is its own process, so its wall time and
peak memory (the child's maximum resident set, from ``os.wait4``) are the
whole command's, Python's start included. ``--wide JOBS:MACHINES`` adds
synthetic traces on as many machines as a grid has (24,515 processors
for 188,041 jobs in the trace of issue 18), ``--traces FOLDER`` the SWF traces
in FOLDER at full size (KTH, LANL, NASA of the Parallel Workloads Archive). The growth exponent of each heuristic
is the slope of log(time) against log(jobs) over the synthetic sizes
(least squares; the wide ones, on other machine counts, are left out).
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.results_log import append_row, rerun_command, resume, write_generated

CAMPAIGN = ("fcfs", "faircamp", "ostrich")
MOSP = ("ilba", "lpt-lpt", "spt-lpt", "less-helped-first")
USERS, GROUPS, ORGANIZATIONS = 50, 12, 8


def synthetic_trace(path: Path, jobs: int, seed: int = 0, machines: int | None = None) -> None:
    """An SWF trace of ``jobs`` one-processor jobs: Poisson arrivals at about
    90% load on m = ``machines`` (by default max(10, jobs / 100)) processors, run times log-uniform
    between 1 s and one day, users drawn with Zipf-like weights, each in one
    of ``GROUPS`` groups (the organizations of ``mosp-swf``)."""
    rng = random.Random(seed)
    machines = machines or max(10, jobs // 100)
    weights = [1 / (u + 1) for u in range(USERS)]
    runs = [int(10 ** rng.uniform(0, 4.94)) for _ in range(jobs)]
    gap = sum(runs) / jobs / machines / 0.9
    with path.open("w") as out:
        out.write(f"; MaxProcs: {machines}\n")
        clock = 0.0
        for j, (run, user) in enumerate(zip(runs, rng.choices(range(USERS), weights, k=jobs))):
            clock += rng.expovariate(1 / gap)
            out.write(f"{j + 1} {int(clock)} 0 {run} 1 -1 -1 1 {run} -1 1 {user + 1} {user % GROUPS + 1} -1 1 1 -1 -1\n")


def measured(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one command run to completion."""
    with tempfile.TemporaryFile() as errors:   # a pipe could fill and block the child before it exits
        began = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - began
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            raise RuntimeError(f"{' '.join(command)} failed: {errors.read().decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def runs(label: str, jobs: int, trace: Path, work: Path, time_limit: float, done: set):
    """One row per (family, heuristic) not in ``done``: the conversion's cost, then the heuristic's."""
    schedbench = [str(Path(sys.executable).with_name("schedbench"))]
    for family, convert, heuristics in (("campaign", ["swf"], CAMPAIGN), ("mosp", ["mosp-swf"], MOSP)):
        todo = [name for name in heuristics if (label, family, name) not in done]
        if not todo:
            continue
        if family == "mosp":   # as many organizations as the trace has user groups, at most ORGANIZATIONS
            groups = _child_count("from schedbench.instances.swf import read_swf; import sys; "
                                  "print(len({j.group for j in read_swf(sys.argv[1])[1] if j.group >= 0}))", trace)
            convert = [*convert, "--organizations", str(min(ORGANIZATIONS, groups))]
        instance = work / f"{label.replace(' ', '-')}-{family}.json"
        convert_s, convert_mb = measured(schedbench + ["generate", *convert, "--trace", str(trace), "-o", str(instance)])
        if not jobs:   # a real trace: its jobs as converted (a q-processor job is q jobs)
            jobs = _child_count("import json, sys; d = json.load(open(sys.argv[1])); "
                                "print(sum(len(c['jobs']) for u in d['users'] for c in u['campaigns']))", instance)
        for name in todo:
            seconds, peak = measured(schedbench + ["heuristic", name, str(instance), "--json", "--no-schedule",
                                                  "--time-limit", str(time_limit)])
            yield {"input": label, "jobs": jobs, "family": family, "heuristic": name, "convert_s": convert_s,
                   "convert_mb": convert_mb, "seconds": seconds, "peak_mb": peak}


def _write_synthetic(path: Path, jobs: int, machines: int | None = None) -> None:
    """``synthetic_trace`` in a child process, for the reason ``_child_count`` gives:
    drawing 10^7 jobs here made every later command's measured peak 350 MB."""
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                    "from bench.trace_scale import synthetic_trace; "
                    "synthetic_trace(Path(sys.argv[1]), int(sys.argv[2]), machines=int(sys.argv[3]) or None)",
                    str(path), str(jobs), str(machines or 0)], check=True)


def _child_count(code: str, path: Path) -> int:
    """A count over a trace or an instance (its user groups, its jobs), made in
    a child process: a child starts with its parent's resident pages, so a
    parent that had read a 12-million-job file would raise every later
    command's measured peak."""
    return int(subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                              check=True).stdout)


def exponent(rows: list[dict], family: str, name: str, largest: bool = False) -> float | None:
    """The slope over every synthetic size, or (``largest``) between the two
    largest only: Python's start weighs on the small sizes and flattens the fit."""
    points = sorted((r["jobs"], r["seconds"]) for r in rows
                    if r["input"].startswith("synthetic") and r["family"] == family and r["heuristic"] == name)
    points = points[-2:] if largest else points
    if len(points) < 2:
        return None
    return float(np.polyfit(np.log([n for n, _ in points]), np.log([t for _, t in points]), 1)[0])


def table(rows: list[dict]) -> str:
    lines = ["| input | jobs | family | heuristic | convert s | convert MB | heuristic s | heuristic MB |",
             "|---|---:|---|---|---:|---:|---:|---:|"]
    lines += [f"| {r['input']} | {r['jobs']:,} | {r['family']} | {r['heuristic']} | {r['convert_s']:.1f} | "
              f"{r['convert_mb']:.0f} | {r['seconds']:.1f} | {r['peak_mb']:.0f} |" for r in rows]
    lines += ["", "| family | heuristic | growth exponent (time vs jobs, synthetic: every size) | "
                  "between the two largest sizes |", "|---|---|---:|---:|"]
    for family, names in (("campaign", CAMPAIGN), ("mosp", MOSP)):
        for name in names:
            slopes = [exponent(rows, family, name, largest) for largest in (False, True)]
            lines.append(f"| {family} | {name} | " + " | ".join("-" if x is None else f"{x:.2f}" for x in slopes) + " |")
    return "\n".join(lines)


def _jobs_on_machines(text: str) -> tuple[int, int]:
    jobs, _, machines = text.partition(":")
    try:
        counts = int(jobs), int(machines)
    except ValueError:
        counts = 0, 0
    if min(counts) < 1:
        raise argparse.ArgumentTypeError(f"JOBS:MACHINES, two positive integers, not {text!r}")
    return counts


def _wide_label(jobs: int, machines: int) -> str:
    return f"wide {jobs:,} on {machines:,} machines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--wide", type=_jobs_on_machines, nargs="*", default=[], metavar="JOBS:MACHINES",
                        help="also synthetic traces of JOBS jobs on MACHINES processors")
    parser.add_argument("--traces", type=Path, metavar="FOLDER",
                        help="also the SWF traces (*.swf.gz) in FOLDER at full size (the Parallel Workloads Archive's)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per exact reference a metric needs")
    parser.add_argument("--out", type=Path, help="write the table here, headed by the command")
    parser.add_argument("--results", type=Path, help="JSON lines of finished rows; resumed from if present")
    args = parser.parse_args()
    traces = sorted(args.traces.glob("*.swf.gz")) if args.traces else []
    if args.traces and not traces:
        parser.exit(2, f"trace_scale: {args.traces} holds no *.swf.gz trace; the Parallel Workloads Archive "
                       "has them (the Standard Workload Format)\n")
    labels = [f"synthetic {jobs:,}" for jobs in args.sizes]
    labels += [_wide_label(jobs, machines) for jobs, machines in args.wide]
    labels += [path.name.split("-")[0] for path in traces]
    wanted = {(label, family, name) for label in labels
              for family, names in (("campaign", CAMPAIGN), ("mosp", MOSP)) for name in names}
    rows = resume(args.results, wanted, key=lambda row: (row["input"], row["family"], row["heuristic"]))
    done = {(row["input"], row["family"], row["heuristic"]) for row in rows}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        inputs = []
        for jobs in args.sizes:
            trace = work / f"synthetic-{jobs}.swf"
            _write_synthetic(trace, jobs)
            inputs.append((f"synthetic {jobs:,}", jobs, trace))
        for jobs, machines in args.wide:
            trace = work / f"wide-{jobs}-{machines}.swf"
            _write_synthetic(trace, jobs, machines)
            inputs.append((_wide_label(jobs, machines), jobs, trace))
        if args.traces:
            inputs += [(path.name.split("-")[0], 0, path) for path in traces]
        for label, jobs, trace in inputs:
            for row in runs(label, jobs, trace, work, args.time_limit, done):
                rows.append(row)
                append_row(args.results, row)
                print(f"{row['input']} {row['family']} {row['heuristic']}: {row['seconds']:.1f} s, "
                      f"{row['peak_mb']:.0f} MB", file=sys.stderr)
    text = table(rows)
    print(text)
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name), text + "\n")


if __name__ == "__main__":
    main()
