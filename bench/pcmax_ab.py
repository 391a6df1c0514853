"""The P||Cmax engine at two revisions, side by side on the same problems.

    python -m bench.pcmax_ab --problems FILE (--against REV | --old-source DIR)
        [--solver portfolio] [--time-limit 10] [--out FILE]

A change to the engine is judged by CPU time on the problems it is for,
and two runs one after the other measure the machine's load as much as the
change (on two busy cores a problem's time moves by 10% and more from one
run to the next). So both revisions are kept running, each in a process
of its own (``bench/pcmax_ab_worker.py``) on one CP-SAT worker, and are
asked each problem in turn, the older one first on every other problem:
what the load does to one it does to both. ``--against REV`` takes the older side
from git (``git archive``); ``--old-source DIR`` from a checkout; the newer
side is this checkout.

``FILE`` holds P||Cmax instances in the format, one a line (each read
strictly, as ``schedbench solve`` reads a file): ``bench.mosp_fig8_references
--record FILE`` writes the problems MOSP Fig. 8's references ask. Two
sides that both prove a problem must agree, and neither's bound may pass
the other's schedule (the run aborts otherwise). Prints per side the
problems proven and the CPU seconds (in all; on the problems both sides
proved, which a problem left open at the limit does not drown; median,
slowest), then how many problems each side alone proved and how many
changed the method that closed them.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from bench.results_log import rerun_command, write_generated
from schedbench.errors import UserInputError
from schedbench.model import parse_instance

CHECKOUT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("pcmax_ab_worker.py")
SIDES = ("old", "new")


def import_tree(checkout: Path, into: Path) -> Path:
    """A folder that imports ``checkout``'s package as installed: its
    ``tool.setuptools.package-dir`` mapping (``schedbench.solvers`` is the
    top-level ``solvers/``, ...) laid out as symbolic links, for PYTHONPATH."""
    mapping = tomllib.loads((checkout / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        target = into.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for entry in (checkout / folder).iterdir():
            link = target / entry.name
            if not link.exists():
                link.symlink_to(entry)
    return into


def exported(revision: str, into: Path) -> Path:
    """``revision`` of this checkout's repository, its files written to ``into``."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(CHECKOUT), "archive", revision], capture_output=True, check=False)
    if archive.returncode:
        raise UserInputError("--against", archive.stderr.decode().strip() or f"git archive {revision} failed")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def read_problems(path: Path) -> list[tuple[tuple[int, ...], int]]:
    """The instances of ``path``, one JSON object a line, as (jobs, machines)."""
    problems = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            instance = parse_instance(json.loads(line))
        except (ValueError, UserInputError) as exc:  # malformed JSON, or an instance the format refuses
            raise UserInputError(f"--problems: {path} line {number}", str(exc)) from exc
        if instance.family != "pcmax":
            raise UserInputError(f"--problems: {path} line {number}", f"a {instance.family} instance, not pcmax")
        problems.append((tuple(instance.jobs), instance.machines))
    return problems


class Side:
    """One revision's worker process, asked one problem at a time."""

    def __init__(self, python_path: Path):
        environment = {**os.environ, "PYTHONPATH": str(python_path)}
        self.process = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=environment, cwd=python_path)

    def ask(self, problem: tuple[tuple[int, ...], int], solver: str, time_limit: float) -> dict:
        jobs, machines = problem
        self.process.stdin.write(json.dumps({"jobs": jobs, "machines": machines, "solver": solver,
                                             "time_limit": time_limit}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"a worker ended without an answer (exit {self.process.wait()})")
        return json.loads(answer)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def compared(problems, sides: dict[str, Side], solver: str, time_limit: float) -> list[dict[str, dict]]:
    """Each problem asked of both sides, the older first on every other one;
    aborts where they disagree."""
    answers = []
    for index, problem in enumerate(problems):
        order = SIDES if index % 2 == 0 else SIDES[::-1]
        answer = {side: sides[side].ask(problem, solver, time_limit) for side in order}
        old, new = answer["old"], answer["new"]
        if max(old["bound"], new["bound"]) > min(old["makespan"], new["makespan"]):
            raise AssertionError(f"problem {index + 1} ({len(problem[0])} jobs, {problem[1]} machines): "
                                 f"a bound passes a schedule: {answer}")
        answers.append(answer)
    return answers


def table(answers: list[dict[str, dict]]) -> str:
    """Per side the problems proven and their CPU seconds, then what differs."""
    both = [answer for answer in answers if answer["old"]["optimal"] and answer["new"]["optimal"]]
    lines = ["| side | problems | proven | CPU s | CPU s of the problems both proved | median s | slowest s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for side in SIDES:
        cpu = [answer[side]["cpu"] for answer in answers]
        proven = sum(answer[side]["optimal"] for answer in answers)
        lines.append(f"| {side} | {len(answers)} | {proven} | {sum(cpu):.1f} | "
                     f"{sum(answer[side]['cpu'] for answer in both):.1f} | {statistics.median(cpu):.3f} "
                     f"| {max(cpu):.2f} |")
    alone = {side: sum(a[side]["optimal"] and not a[other]["optimal"] for a in answers)
             for side, other in (SIDES, SIDES[::-1])}
    moved = sum(a["old"]["method"] != a["new"]["method"] for a in both)
    return ("\n".join(lines) + f"\n\nProven by one side only: old {alone['old']}, new {alone['new']}; "
            f"proven by both, closed by another method: {moved}.\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problems", type=Path, required=True, help="P||Cmax instances, one JSON object a line")
    older = parser.add_mutually_exclusive_group(required=True)
    older.add_argument("--against", metavar="REV", help="the older revision, from this checkout's git history")
    older.add_argument("--old-source", type=Path, metavar="DIR", help="the older revision's checkout")
    parser.add_argument("--solver", default="portfolio", choices=["cpsat", "milp", "portfolio"])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    try:
        problems = read_problems(args.problems)
        with tempfile.TemporaryDirectory() as scratch:
            old_checkout = args.old_source or exported(args.against, Path(scratch, "checkout"))
            sides = {"old": Side(import_tree(old_checkout, Path(scratch, "old"))),
                     "new": Side(import_tree(CHECKOUT, Path(scratch, "new")))}
            try:
                answers = compared(problems, sides, args.solver, args.time_limit)
            finally:
                for side in sides.values():
                    side.close()
    except UserInputError as exc:
        parser.exit(2, f"pcmax_ab: {exc}\n")
    text = (f"{len(problems)} P||Cmax problems, solver {args.solver}, {args.time_limit} s each, asked of both "
            f"sides in turn (one CP-SAT worker each):\n\n{table(answers)}")
    print(text, end="")
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name, ("--problems", "--old-source")), text)


if __name__ == "__main__":
    main()
