"""Before and after: two frontier tables side by side, for the docs.

    python -m bench.frontier_compare --before TABLE [--before TABLE ...] --after TABLE
        [--after TABLE ...] [--line NAME ...] [--changed] [--heading TEXT] [--out docs/results/compare_X.md]

Reads the summaries of tables written by ``bench.frontier --out`` (the
largest mean size with >= 90% proven and the last step measured, per line
and backend), so every before/after table in the docs comes from measured
tables by a command, never typed. Several ``--before`` (or ``--after``)
tables: per line and backend the last that reports it wins (the last
reported value of each entry, whichever run measured it; listed newest
first, the first measurement of each). ``--changed`` keeps only the
entries that moved (not those no ``--before`` table reports: new lines).
"""

import argparse
import shlex
from pathlib import Path

from bench.frontier import SUMMARY_HEADER
from bench.results_log import write_generated


def summary(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(line, backend) -> (frontier, last step measured) of a frontier table's summary."""
    text = path.read_text()
    if SUMMARY_HEADER not in text:
        raise ValueError(f"{path}: no frontier summary (a table written by bench.frontier --out)")
    rows = text[text.index(SUMMARY_HEADER):].split("\n\n")[0].splitlines()[2:]
    entries = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if len(cells) != 4:
            raise ValueError(f"{path}: a summary row without its 4 cells: {row!r}")
        entries[cells[0], cells[1]] = cells[2], cells[3]
    return entries


def merged(paths: list[Path]) -> dict[tuple[str, str], tuple[str, str]]:
    """The summaries of ``paths``, the last reporting an entry winning (in first-seen order)."""
    entries: dict[tuple[str, str], tuple[str, str]] = {}
    for path in paths:
        entries.update(summary(path))
    return entries


def compare(before: list[Path], after: list[Path], names: list[str] | None = None, changed: bool = False,
            heading: str = "before") -> str:
    """The Markdown table: per entry of ``after`` (in its order, only
    ``names`` if given), the frontier before, after, and after's last step."""
    earlier = merged(before)
    rows = [f"| line | backend | {heading}: largest mean jobs with >= 90% proven | after | after: last step "
            "(mean jobs, proven) |", "|---|---|---:|---:|---|"]
    for (line, backend), (frontier, last) in merged(after).items():
        if names and line not in names:
            continue
        old = earlier.get((line, backend), ("-", "-"))[0]
        if changed and ((line, backend) not in earlier or old == frontier):
            continue
        rows.append(f"| {line} | {backend} | {old} | {frontier} | {last} |")
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, action="append", required=True,
                        help="a frontier table (repeatable: the last reporting an entry wins)")
    parser.add_argument("--after", type=Path, action="append", required=True,
                        help="the frontier table measured after (repeatable: the last reporting an entry wins)")
    parser.add_argument("--line", action="append", help="only this line (repeatable; default: every line of --after)")
    parser.add_argument("--changed", action="store_true", help="only the entries that moved")
    parser.add_argument("--heading", default="before", help="the before column's name")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    try:
        text = compare(args.before, args.after, args.line, args.changed, args.heading)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    print(text, end="")
    if args.out:
        options = "".join(f" --before {shlex.quote(str(path))}" for path in args.before)
        options += "".join(f" --after {shlex.quote(str(path))}" for path in args.after)
        options += "".join(f" --line {shlex.quote(name)}" for name in args.line or ())
        options += " --changed" * args.changed
        options += f" --heading {shlex.quote(args.heading)}" if args.heading != "before" else ""
        write_generated(args.out, f"python -m bench.frontier_compare{options} --out FILE", text)


if __name__ == "__main__":
    main()
