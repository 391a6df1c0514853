"""--time-limit on large instances: the whole ``schedbench solve`` command, timed.

    python -m bench.time_limits [--time-limit 5] [--out docs/results/time_limits.md]

For every family and backend, instances far beyond what the exact models
solve in the limit (a 6,000-job P||Cmax, selfish MOSP with 50 jobs, 60-job
campaigns, DSSP with 144 tasks and a scaled-down §4.1 workload, workflows,
a 4,000-item knapsack), each run as a user runs it: generate, then solve
in a fresh process. It prints the wall time of the solve command, its peak
memory and its answer; every wall time must stay within the limit + 2 s
(the promise of SPEC), which the last line checks. A MILP too large to
hold is refused in one line (exit 2), which also counts as keeping it.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.results_log import write_generated

CASES = [  # (label, generator and parameters, objective)
    ("P||Cmax n=6000 m=1000", ["pcmax-uniform", "--jobs", "6000", "--machines", "1000", "--high", "1000"], None),
    ("P||Cmax n=60 m=7 U[100,1000]", ["pcmax-uniform", "--jobs", "60", "--machines", "7", "--low", "100",
                                      "--high", "1000"], None),
    ("MOSP selfish 8 orgs ~50 jobs", ["mosp-small", "--organizations", "[8,8]", "--jobs", "[6,7]", "--length",
                                      "[1,9]", "--selfish"], None),
    ("MOSP paper N=20 n=200", ["mosp-paper", "--organizations", "20", "--jobs", "200"], None),
    ("campaign 60 jobs max-user-stretch", ["small", "--users", "[4,4]", "--campaigns", "[3,3]", "--jobs", "[5,5]",
                                           "--length", "[1,30]", "--machines", "[3,3]"], "max-user-stretch"),
    ("campaign 60 jobs sum-user-flow", ["small", "--users", "[4,4]", "--campaigns", "[3,3]", "--jobs", "[5,5]",
                                        "--length", "[1,30]", "--machines", "[3,3]"], "sum-user-flow"),
    ("DSSP 16 jobs x 9 tasks", ["dssp-small", "--jobs", "[16,16]", "--stages", "[3,3]", "--tasks", "[3,3]",
                                "--deadline", "[30,40]", "--processors", "[4,4]"], None),
    ("DSSP scaled 1/10", ["dssp-scaled", "--scale", "10"], None),
    ("workflow 8 jobs", ["workflow-small", "--jobs", "[8,8]", "--tasks", "[4,6]", "--exec-range", "[1,20]"], None),
    ("knapsack 4000 items", ["knapsack-random", "--items", "4000", "--weight", "[1,1000000]", "--profit",
                             "[1,1000000]"], None),
]
SOLVERS = ("cpsat", "milp", "portfolio")
COMMAND = [sys.executable, "-c", "from schedbench.cli import main; main()"]


def run(label: str, generator: list[str], objective: str | None, solver: str, limit: float, folder: Path):
    path = folder / "instance.json"
    subprocess.run([*COMMAND, "generate", *generator, "--seed", "3", "-o", str(path)], check=True)
    family = json.loads(path.read_text())["family"]
    if solver == "portfolio" and family != "pcmax":
        return None
    args = [*COMMAND, "solve", str(path), "--time-limit", str(limit), "--solver", solver, "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    began = time.monotonic()
    out = subprocess.run(args + (["--objective", objective] if objective else []), capture_output=True, text=True)
    wall = time.monotonic() - began
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    answer = json.loads(out.stdout)["status"] if out.returncode == 0 else f"refused: {out.stderr.strip()[:60]}"
    return label, solver, wall, peak, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for label, generator, objective in CASES:
            for solver in SOLVERS:
                row = run(label, generator, objective, solver, args.time_limit, Path(folder))
                if row:
                    rows.append(row)
                    print(f"{row[0]} / {row[1]}: {row[2]:.2f} s", file=sys.stderr)
    lines = [f"`schedbench solve --time-limit {args.time_limit:g}` (generation not timed; peak memory is the "
             f"largest of any child process so far)", "",
             "| instance | solver | wall s | peak MB | answer |", "|---|---|---:|---:|---|"]
    lines += [f"| {label} | {solver} | {wall:.2f} | {peak:.0f} | {answer} |" for label, solver, wall, peak, answer in rows]
    worst = max(wall for _, _, wall, _, _ in rows)
    lines += ["", f"Worst wall time {worst:.2f} s against the promise of {args.time_limit + 2:g} s: "
                  f"{'kept' if worst <= args.time_limit + 2 else 'BROKEN'}."]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        write_generated(args.out, f"python -m bench.time_limits --time-limit {args.time_limit:g}", text)


if __name__ == "__main__":
    main()
