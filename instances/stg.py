"""Task graphs of the Standard Task Graph Set (Tobita and Kasahara, Journal
of Scheduling 5(5), 2002) as workflow instances.

A file gives the number n of tasks, then one line per task 0 .. n+1: its
number, its processing time, its number of predecessors and their numbers;
task 0 (the entry) and task n+1 (the exit) are dummies of time 0, which the
format defines and the conversion drops (they constrain nothing). A line
starting with ``#`` starts the comment block that ends the file. One graph
on m identical processors is a workflow of one job on one cluster of m
cores, each task on one core: its optimal max-SLR is the optimal makespan
divided by the critical path. Several graphs, each arriving at its time
(``arrivals``), make a workload of several jobs on that cluster.
"""

from collections.abc import Sequence
from pathlib import Path

import networkx as nx

from schedbench.errors import InstanceError
from schedbench.instances.parameters import Count, Naturals, Paths, generator
from schedbench.model.workflow import Cluster, Task, WorkflowInstance, WorkflowJob

KIND = "processor"


def read_stg(paths: str | Path | Sequence[str | Path], cores: int,
             arrivals: Sequence[int] | None = None) -> WorkflowInstance:
    """The graphs of ``paths`` as jobs on one cluster of ``cores`` identical
    processors, job k arriving at ``arrivals[k]`` (default, all at 0)."""
    paths = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(path) for path in paths]
    if arrivals is None:
        arrivals = (0,) * len(paths)
    if len(arrivals) != len(paths):
        raise InstanceError("params.arrivals", f"{len(paths)} graphs need {len(paths)} arrival times, "
                                               f"got {len(arrivals)}")
    graphs = [_graph(path) for path in paths]
    jobs = tuple(WorkflowJob(arrival, tasks) for arrival, (tasks, _) in zip(arrivals, graphs))
    counted = [path.name for path, (_, dummies_counted) in zip(paths, graphs) if dummies_counted]
    meta = {"source_format": "stg", "file": paths[0].name if len(paths) == 1 else [path.name for path in paths],
            "cores": cores, "arrivals": list(arrivals), "dummies_dropped": "the entry task 0 and the exit task n+1",
            **({"first_line_counts_the_dummies": counted} if counted else {})}
    name = paths[0].stem if len(paths) == 1 else f"stg-{len(paths)}-graphs"
    return WorkflowInstance((Cluster(cores, KIND),), jobs, name, meta)


def _graph(path: Path) -> tuple[tuple[Task, ...], bool]:
    """The tasks 1 .. n of one graph, its dummies dropped, successors local;
    and whether its first line counts the dummies."""
    records, dummies_counted = _records(path)
    count = len(records) - 2
    times = {number: time for number, (time, _) in records.items()}
    preds = {number: before for number, (_, before) in records.items()}
    for dummy in (0, count + 1):
        if times[dummy] != 0:
            raise InstanceError("tasks", f"{path}: task {dummy} is the format's dummy {'entry' if dummy == 0 else 'exit'}"
                                         f" of time 0, got {times[dummy]}")
    for task in range(1, count + 1):
        if count + 1 in preds[task]:
            raise InstanceError("tasks", f"{path}: task {task} names the dummy exit task {count + 1} as a predecessor")
    graph = nx.DiGraph((p, t) for t in range(1, count + 1) for p in preds[t] if p != 0)
    graph.add_nodes_from(range(1, count + 1))
    sinks = {task for task in graph if graph.out_degree(task) == 0}
    if dummies_counted and not sinks <= set(preds[count + 1]):
        raise InstanceError("tasks", f"{path}: read with the dummies counted on the first line, its last task "
                                     f"{count + 1} is no exit dummy: it does not follow task {min(sinks - set(preds[count + 1]))}")
    if not nx.is_directed_acyclic_graph(graph):
        cycle = [u for u, _ in nx.find_cycle(graph)]
        raise InstanceError("tasks", f"{path}: the predecessor lists form a cycle through tasks {cycle}")
    return tuple(Task(times[t], 1, KIND, tuple(sorted(s - 1 for s in graph.successors(t))))
                 for t in range(1, count + 1)), dummies_counted


def _records(path: Path) -> tuple[dict[int, tuple[int, tuple[int, ...]]], bool]:
    """Task number -> (time, predecessors) for tasks 0 .. n+1, checked. The
    first line is n, the count of real tasks; a first line of n + 2 with
    n + 2 task lines (the dummies counted too, as in some copies in
    circulation) reads the same, and the flag returned tells it apart."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InstanceError("FILE", f"cannot read {path}: {exc}") from None
    lines = [(number, line.split()) for number, line in enumerate(text.split("#")[0].splitlines(), start=1)
             if line.split()]
    if not lines or len(lines[0][1]) != 1 or not lines[0][1][0].isdigit() or int(lines[0][1][0]) < 1:
        raise InstanceError("FILE", f"{path} line 1: expected the number of tasks n >= 1")
    count = int(lines[0][1][0])
    dummies_counted = len(lines) - 1 == count and count >= 3
    if dummies_counted:
        count -= 2
    elif len(lines) - 1 != count + 2:
        raise InstanceError("tasks", f"{path}: {count} tasks and their two dummies need {count + 2} task lines "
                                     f"(or {count}, if the first line counts the dummies), found {len(lines) - 1}")
    return dict(_record(path, line, fields, expected, count)
                for expected, (line, fields) in enumerate(lines[1:])), dummies_counted


def _record(path: Path, line: int, fields: list[str], expected: int, count: int):
    where = f"{path} line {line}"
    try:
        number, time, npred, *preds = (int(field) for field in fields)
    except ValueError:
        raise InstanceError("tasks", f"{where}: expected integers: task, time, predecessors, their numbers") from None
    if number != expected:
        raise InstanceError("tasks", f"{where}: task {expected} is missing (found task {number})")
    if time < 0 or (time == 0 and 0 < number <= count):
        raise InstanceError("tasks", f"{where}: task {number}'s time must be >= 1, got {time}")
    if npred != len(preds):
        raise InstanceError("tasks", f"{where}: {npred} predecessors announced, {len(preds)} given")
    dangling = [p for p in preds if not 0 <= p <= count + 1 or p == number]
    if dangling:
        raise InstanceError("tasks", f"{where}: predecessor {dangling[0]} is no other task of the graph")
    return number, (time, tuple(preds))


def _stg(file: Paths, cores: Count, arrivals: Naturals | None = None) -> WorkflowInstance:
    return read_stg(file, cores, arrivals)


CONVERTERS = {"stg": generator(_stg)}
