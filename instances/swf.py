"""Campaign instances from real Standard Workload Format traces.

Per user, jobs are taken in submission order and split into campaigns at
session boundaries: a job starts a new campaign when it is submitted more
than ``gap`` seconds after every earlier job of the campaign ended in the
trace (submit + wait + run). The new campaign's think time is that observed
gap (submission minus the previous campaign's last end in the trace, at
least 0); the user's release is its first submission, relative to the
first kept job. A job that used q processors becomes q sequential jobs of
its run time in the same campaign (same work and length, and the format's jobs
run on one machine); m is the trace's MaxProcs unless given.
"""

import gzip
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from schedbench.errors import InstanceError
from schedbench.model.campaign import Campaign, CampaignInstance, User

#: The Parallel Workloads Archive's fields (0-based): submit, wait and run
#: times, allocated and requested processors, status, user, group, partition.
SUBMIT, WAIT, RUN, ALLOCATED, REQUESTED, STATUS, USER, GROUP, PARTITION = 1, 2, 3, 4, 7, 10, 11, 12, 15
FIELDS = 18
NAMES = {SUBMIT: "submit time", WAIT: "wait time", RUN: "run time", ALLOCATED: "allocated processors",
         REQUESTED: "requested processors", STATUS: "status", USER: "user", GROUP: "group", PARTITION: "partition"}


class TraceJob(NamedTuple):
    submit: int
    end: int           # submit + wait + run, as it happened in the trace
    run: int
    processors: int
    user: int
    group: int         # -1: unknown
    status: int        # 1 completed, 0 failed, 5 cancelled, 2-4 parts of a checkpointed job, -1 unknown
    partition: int     # -1: unknown


def _lines(path: Path):
    """The trace's lines; a byte that is not UTF-8 (archived traces' header
    comments are free text, some in Latin-1) reads as U+FFFD, and on a data
    line then fails that line's numbers."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            yield from handle
    except (OSError, EOFError, zlib.error) as exc:  # unreadable, or a truncated or corrupt .gz
        raise InstanceError("--trace", f"cannot read {path}: {exc}") from None


def read_swf(path: str | Path, max_jobs: int | None = None, status: Sequence[int] | None = None,
             partition: Sequence[int] | None = None) -> tuple[dict[str, str], list[TraceJob]]:
    """Header fields and the kept jobs, in trace order: the jobs that did
    work (a run time and a processor count >= 1, a submit time >= 0), of a
    status in ``status`` and a partition in ``partition`` where given; a
    trace that keeps none is refused here, for every reading of it."""
    header, jobs = {}, []
    for number, line in enumerate(_lines(Path(path)), start=1):
        if line.startswith(";"):
            key, _, value = line[1:].partition(":")
            header.setdefault(key.strip(), value.strip())
            continue
        fields = line.split()
        if not fields:
            continue
        job = _job(fields, f"{path} line {number}")
        if job is None or (status is not None and job.status not in status) or (
                partition is not None and job.partition not in partition):
            continue
        jobs.append(job)
        if max_jobs is not None and len(jobs) >= max_jobs:
            break
    if not jobs:
        raise InstanceError("--trace", f"{path} has no usable jobs")
    return header, jobs


def _job(fields: list[str], where: str) -> TraceJob | None:
    """The job of one data line, None for a job that did no work (cancelled
    before it ran, or of unknown run time or size: -1)."""
    if len(fields) != FIELDS:
        raise InstanceError("--trace", f"{where}: a job line has the format's {FIELDS} fields, found {len(fields)}")
    submit, wait, allocated, requested, user, group, status, partition = (
        _integer(fields, index, where) for index in (SUBMIT, WAIT, ALLOCATED, REQUESTED, USER, GROUP, STATUS, PARTITION))
    try:
        run = int(float(fields[RUN]))   # a run time may be written with decimals
    except (ValueError, OverflowError):  # not a number, or one no integer holds (1e400, nan)
        raise InstanceError("--trace", f"{where}: field 4 ({NAMES[RUN]}) must be a number, got {fields[RUN]!r}") from None
    procs = allocated if allocated > 0 else requested
    if run < 1 or procs < 1 or submit < 0:
        return None
    return TraceJob(submit, submit + max(wait, 0) + run, run, procs, user, group, status, partition)


def _integer(fields: list[str], index: int, where: str) -> int:
    """Field ``index`` (0-based) of a job line, an integer (-1 for unknown)."""
    try:
        return int(fields[index])
    except ValueError:
        raise InstanceError("--trace", f"{where}: field {index + 1} ({NAMES[index]}) must be an integer, "
                                       f"got {fields[index]!r}") from None


def campaigns_from_swf(path: str | Path, gap: int = 1200, machines: int | None = None,
                       max_jobs: int | None = None, status: Sequence[int] | None = None,
                       partition: Sequence[int] | None = None) -> CampaignInstance:
    header, jobs = read_swf(path, max_jobs, status, partition)
    m = machines or int(header.get("MaxProcs") or header.get("MaxNodes") or max(j.processors for j in jobs))
    origin = min(j.submit for j in jobs)
    by_user: dict[int, list] = {}
    for job in jobs:
        by_user.setdefault(job.user, []).append(job)
    users = []
    for uid in sorted(by_user):
        rows = sorted(by_user[uid])
        campaigns, current, last_end, think = [], [], None, 0
        for submit, end, run, procs, *_ in rows:
            if procs > m:
                raise InstanceError("--machines", f"user {uid} has a job on {procs} processors, more than m = {m}")
            if last_end is not None and submit - last_end > gap:
                campaigns.append(Campaign(tuple(current), think))
                current, think = [], submit - last_end
            current.extend([run] * procs)
            last_end = end if last_end is None else max(last_end, end)
        campaigns.append(Campaign(tuple(current), think))
        first = campaigns[0]
        campaigns[0] = Campaign(first.jobs, 0)
        users.append(User(tuple(campaigns), rows[0][0] - origin))
    meta = {"generator": "swf", "trace": Path(path).name, "gap": gap, "max_jobs": max_jobs,
            **selection_meta(status, partition), **trace_credits(header)}
    return CampaignInstance(m, tuple(users), f"swf-{Path(path).stem}", meta)


def selection_meta(status: Sequence[int] | None, partition: Sequence[int] | None) -> dict[str, list[int]]:
    """The status and partition filters a conversion applied, for its meta."""
    return {name: list(kept) for name, kept in (("status", status), ("partition", partition)) if kept is not None}


def trace_credits(header: dict[str, str]) -> dict[str, str]:
    """The trace's machine and the acknowledgement its archive asks users to keep."""
    return {"computer": header.get("Computer", ""), "acknowledge": header.get("Acknowledge", "")}
