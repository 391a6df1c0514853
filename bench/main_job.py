"""The README's main job, timed: every shipped experiment's ``--quick``
variant, then the report.

    python -m bench.main_job [--workers 2] [--out docs/results/main_job.md]

Each experiment runs as ``schedbench run FILE --quick`` in its own process
into one fresh store, in the order the main job runs them (so cells that
two experiments share are run by the first, as in the main job), then
``schedbench report`` writes the report. Each row is a whole command: wall
time and peak memory (the largest resident set among the command and its
workers, from ``os.wait4``), Python's start included; the total is their
sum, the peak their maximum. The README's figure comes from this table.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.results_log import write_generated
from bench.trace_scale import measured
from schedbench.commands.run import shipped_experiments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    schedbench = str(Path(sys.executable).with_name("schedbench"))
    lines = [f"`schedbench run --quick --report DIR` as its parts, {args.workers} workers, "
             f"measured {time.strftime('%Y-%m-%d')}", "", "| step | wall | peak MB |", "|---|---:|---:|"]
    print("\n".join(lines), flush=True)
    total, peak = 0.0, 0.0
    with tempfile.TemporaryDirectory() as work:
        store = str(Path(work) / "main-job.sqlite")
        steps = [(f"run {path.name}", [schedbench, "run", str(path), "--quick", "--store", store,
                                        "--workers", str(args.workers), "--no-progress"])
                 for path in shipped_experiments()]
        steps.append(("report", [schedbench, "report", store, "--out", str(Path(work) / "report")]))
        for label, command in steps:
            seconds, megabytes = measured(command)
            total, peak = total + seconds, max(peak, megabytes)
            lines.append(f"| {label} | {_clock(seconds)} | {megabytes:.0f} |")
            print(lines[-1], flush=True)
    lines.append(f"| **the main job** | **{_clock(total)}** | **{peak:.0f}** |")
    print(lines[-1])
    if args.out:
        write_generated(args.out, f"python -m bench.main_job --workers {args.workers}",
                        "\n".join(lines) + "\n")


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{seconds:.1f} s"


if __name__ == "__main__":
    main()
