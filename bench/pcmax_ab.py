"""The P||Cmax engine at two revisions, side by side on the same problems.

    python -m bench.pcmax_ab --problems FILE (--against REV | --old-source DIR)
        [--solver portfolio] [--time-limit 10] [--out FILE]

A change to the engine is judged by CPU time on the problems it is for,
and two runs one after the other measure the machine's load as much as the
change. So both revisions are kept running, each in a process of its own
(``bench/pcmax_ab_worker.py``) on one CP-SAT worker, and are asked each
problem in turn, the older one first on every other problem: what the load
does to one it does to both. Each problem starts with the engine's caches
cleared, as each workload of MOSP Fig. 8 does. ``--against REV`` takes the
older side from git (``git archive``); ``--old-source DIR`` from a
checkout; the newer side is this checkout. Each side imports its own
revision's package (``bench.package_tree``), which its first answer shows.

``FILE`` holds P||Cmax instances in the format, one a line, each read as
strictly as ``schedbench solve`` reads a file: ``bench.mosp_fig8_references
--record FILE`` writes the problems MOSP Fig. 8's references ask. Every
schedule a side returns passes the validator with the makespan it claims,
a side's "optimal" is its bound met, and neither side's bound may pass the
other's schedule (the run aborts otherwise). Prints per side the problems
proven and the CPU seconds (in all; on the problems both sides proved,
which a problem left open at the limit does not drown; median, slowest),
then the problems only one side proved, by their line in FILE, and how
many both proved by different methods.
"""

import argparse
import contextlib
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.package_tree import package_tree
from bench.results_log import rerun_command, write_generated
from schedbench.errors import UserInputError
from schedbench.metrics.pcmax import makespan
from schedbench.model import parse_instance
from schedbench.model.pcmax import PcmaxInstance
from schedbench.model.strict_json import parse_json
from schedbench.schedule import Schedule
from schedbench.solvers.exact.settings import seconds_problem
from schedbench.solvers.pcmax import BACKENDS
from schedbench.validator import validate

CHECKOUT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("pcmax_ab_worker.py")
SIDES = ("old", "new")
#: How long past the time limit a side may take to answer (start-up
#: included) before it is taken for hung and stopped.
ANSWER_GRACE = 60.0


def read_problems(path: Path) -> list[PcmaxInstance]:
    """The instances of ``path``, one JSON object a line (blank lines skipped)."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInputError("--problems", f"cannot read {path}: {exc}") from None
    problems = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--problems: {path} line {number}"
        try:
            instance = parse_instance(parse_json(line, UserInputError, f"{path} line {number}"))
        except UserInputError as exc:  # the instance's field named after the line
            raise UserInputError(where, str(exc)) from None
        if instance.family != "pcmax":
            raise UserInputError(where, f"a {instance.family} instance, not pcmax")
        problems.append(instance)
    if not problems:
        raise UserInputError("--problems", f"{path} holds no instance")
    return problems


def exported(revision: str, into: Path) -> Path:
    """``revision`` of this checkout's repository, its files written to ``into``."""
    def git(*words: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(CHECKOUT), *words], capture_output=True, check=False)

    commit = git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    if commit.returncode:
        raise UserInputError("--against", f"{revision!r} is no commit of {CHECKOUT}'s repository")
    archive = git("archive", commit.stdout.decode().strip())
    into.mkdir(parents=True)
    unpacked = subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, capture_output=True, check=False)
    if archive.returncode or unpacked.returncode:
        raise UserInputError("--against", f"{revision} could not be written out: "
                                          f"{(archive.stderr or unpacked.stderr).decode().strip()}")
    return into


class Side:
    """One revision's worker process, asked one problem at a time; a
    context that stops it, whatever happened."""

    def __init__(self, tree: Path, time_limit: float):
        environment = {**os.environ, "PYTHONPATH": str(tree)}
        self.time_limit = time_limit
        self.process = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=environment, cwd=tree)
        try:
            self.engine = Path(self._answer()["engine"])
            if not self.engine.is_relative_to(tree):
                raise RuntimeError(f"a side imported its engine from {self.engine}, not from its own tree {tree}")
        except BaseException:
            self.__exit__()
            raise

    def __enter__(self) -> "Side":
        return self

    def __exit__(self, *exc_info: object) -> None:
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=ANSWER_GRACE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def ask(self, problem: PcmaxInstance, solver: str) -> dict:
        """The side's answer to ``problem``."""
        request = {"jobs": problem.jobs, "machines": problem.machines, "solver": solver, "time_limit": self.time_limit}
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError(f"a side ended (exit {self.process.wait()}); its error is above") from None
        return self._answer()

    def _answer(self) -> dict:
        """The side's next line, within the time limit and ``ANSWER_GRACE``."""
        ready, _, _ = select.select([self.process.stdout], [], [], self.time_limit + ANSWER_GRACE)
        if not ready:
            self.process.kill()
            raise RuntimeError(f"a side gave no answer within {self.time_limit + ANSWER_GRACE:g} s")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a side ended without an answer (exit {self.process.wait()}); its error is above")
        return json.loads(line)


def checked(problem: PcmaxInstance, answer: dict) -> None:
    """A side's answer as it claims: its schedule valid with its makespan,
    its bound within it, and optimal exactly where the bound meets it."""
    schedule = Schedule(tuple(answer["machine"]), tuple(answer["start"]))
    violations = validate(problem, schedule)
    value = None if violations else makespan(problem.jobs, schedule)
    if value != answer["makespan"] or answer["bound"] > value or answer["optimal"] != (answer["bound"] == value):
        raise AssertionError(f"an answer is not what it claims ({violations[:1] or value}): {answer}")


def compared(problems: list[PcmaxInstance], sides: dict[str, Side], solver: str) -> list[dict[str, dict]]:
    """Each problem asked of both sides, the older first on every other one;
    aborts where an answer is not what it claims or the sides disagree."""
    answers = []
    for index, problem in enumerate(problems):
        order = SIDES if index % 2 == 0 else SIDES[::-1]
        answer = {side: sides[side].ask(problem, solver) for side in order}
        for claimed in answer.values():
            checked(problem, claimed)
        old, new = answer["old"], answer["new"]
        if max(old["bound"], new["bound"]) > min(old["makespan"], new["makespan"]):
            raise AssertionError(f"problem {index + 1} ({len(problem.jobs)} jobs, {problem.machines} machines): "
                                 f"a bound passes the other side's schedule: {answer}")
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
    alone = {side: [str(index + 1) for index, a in enumerate(answers) if a[side]["optimal"] and not a[other]["optimal"]]
             for side, other in (SIDES, SIDES[::-1])}
    moved = sum(a["old"]["method"] != a["new"]["method"] for a in both)
    return ("\n".join(lines) + "\n\nProven by one side only (problems by their place in the file): "
            + "; ".join(f"{side} {len(alone[side])}" + (f" ({', '.join(alone[side])})" if alone[side] else "")
                        for side in SIDES)
            + f". Proven by both, closed by another method: {moved}.\n")


def run(problems: list[PcmaxInstance], old_checkout: Path | None, revision: str | None, solver: str,
        time_limit: float) -> list[dict[str, dict]]:
    """Both sides started (the older from ``old_checkout`` or git's
    ``revision``), asked every problem, and stopped."""
    with tempfile.TemporaryDirectory() as scratch, contextlib.ExitStack() as stack:
        older = old_checkout or exported(revision, Path(scratch, "checkout"))
        try:
            trees = {"old": package_tree(older, Path(scratch, "old"))}
        except UserInputError as exc:
            raise UserInputError("--old-source" if old_checkout else "--against", exc.message) from None
        trees["new"] = package_tree(CHECKOUT, Path(scratch, "new"))
        sides = {side: stack.enter_context(Side(trees[side], time_limit)) for side in SIDES}
        return compared(problems, sides, solver)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problems", type=Path, required=True, help="P||Cmax instances, one JSON object a line")
    older = parser.add_mutually_exclusive_group(required=True)
    older.add_argument("--against", metavar="REV", help="the older revision, from this checkout's git history")
    older.add_argument("--old-source", type=Path, metavar="DIR", help="the older revision's checkout")
    parser.add_argument("--solver", default="portfolio", choices=BACKENDS)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    try:
        problem = seconds_problem(args.time_limit)
        if problem:
            raise UserInputError("--time-limit", problem)
        problems = read_problems(args.problems)
        answers = run(problems, args.old_source, args.against, args.solver, args.time_limit)
    except (UserInputError, RuntimeError) as exc:  # RuntimeError: a side that cannot run (a revision too old)
        parser.exit(2, f"pcmax_ab: {exc}\n")
    text = (f"{len(problems)} P||Cmax problems, solver {args.solver}, {args.time_limit:g} s each, asked of both "
            f"sides in turn (one CP-SAT worker each):\n\n{table(answers)}")
    print(text, end="")
    if args.out:
        write_generated(args.out, rerun_command(__spec__.name, ("--problems", "--old-source")), text)


if __name__ == "__main__":
    main()
