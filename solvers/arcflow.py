"""The arc-flow graph of bin packing (Valério de Carvalho 1999) for the
P||Cmax decision "do the jobs fit on m machines of capacity C?".

Nodes are machine loads 0..C; an arc (d, d + s) places a job of length s.
Jobs on a machine are taken in non-increasing length, so an arc of length s
leaves only loads reachable with jobs of length >= s, and at most as many
consecutive s-arcs as there are s-jobs: this removes every permutation of a
machine's jobs from the graph. Every node has one loss arc to the sink.
A flow of m units from 0 to the sink that covers every length's count is a
schedule of makespan <= C, and the LP relaxation (min units of flow) is the
strong Gilmore-Gomory bound.
"""

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ArcFlowGraph:
    capacity: int
    nodes: tuple[int, ...]                       # loads reachable from 0, ascending
    arcs: tuple[tuple[int, int, int], ...]       # (tail, head, length)
    counts: dict                                 # length -> number of jobs


def build(lengths: Sequence[int], capacity: int, max_size: int,
          deadline: float = float("inf")) -> ArcFlowGraph | None:
    """The compressed graph, or None as soon as it would pass ``max_size`` arcs + nodes
    or the ``deadline`` (time.monotonic()): long lengths and a large C make it huge."""
    counts = Counter(lengths)
    reachable = {0}
    arcs = []
    for s in sorted(counts, reverse=True):
        new = set()
        for d in sorted(reachable):
            copies = min(counts[s], (capacity - d) // s)
            for r in range(copies):
                arcs.append((d + r * s, d + (r + 1) * s, s))
                new.add(d + (r + 1) * s)
            if len(arcs) + len(reachable) + len(new) > max_size:
                return None
        if time.monotonic() > deadline:
            return None
        reachable |= new
    nodes, arcs = _compress(capacity, reachable, arcs)
    return ArcFlowGraph(capacity, nodes, arcs, dict(counts))


def _compress(capacity: int, loads: set[int], arcs: list[tuple[int, int, int]]):
    """Brandao & Pedroso's (2016) main compression step: relabel every load d
    by C minus the longest path from d onwards, and merge equal labels.

    An arc (d, e, s) has lp(d) >= s + lp(e), so its new labels still differ
    by at least s and every path from 0 still packs at most C: the packings
    are the same, the graph is smaller (load 0, the source, keeps label 0).
    """
    outgoing: dict[int, list[tuple[int, int]]] = {}
    for tail, head, s in arcs:
        outgoing.setdefault(tail, []).append((head, s))
    longest: dict[int, int] = {}
    for d in sorted(loads, reverse=True):
        longest[d] = max((s + longest[head] for head, s in outgoing.get(d, ())), default=0)
    label = {d: capacity - longest[d] for d in loads}
    label[0] = 0
    merged = {(label[tail], label[head], s) for tail, head, s in arcs}
    return tuple(sorted(set(label.values()))), tuple(sorted(merged))


def paths_from_flow(graph: ArcFlowGraph, flow: Sequence[float], tolerance: float = 1e-6) -> list[tuple[float, list[int]]]:
    """Decompose an arc flow into (weight, job lengths of one machine) paths from 0."""
    remaining = list(flow)
    out_arcs: dict[int, list[int]] = {}
    for index, (tail, _, _) in enumerate(graph.arcs):
        if remaining[index] > tolerance:
            out_arcs.setdefault(tail, []).append(index)
    paths = []
    while True:
        node, path = 0, []
        while True:
            nxt = next((a for a in out_arcs.get(node, ()) if remaining[a] > tolerance), None)
            if nxt is None:
                break
            path.append(nxt)
            node = graph.arcs[nxt][1]
        if not path:
            return paths
        weight = min(remaining[a] for a in path)
        for a in path:
            remaining[a] -= weight
        paths.append((weight, [graph.arcs[a][2] for a in path]))


def bins_from_flow(graph: ArcFlowGraph, flow: Sequence[int]) -> list[list[int]]:
    """Decompose an integer arc flow into the job lengths of each bin."""
    return [items for weight, items in paths_from_flow(graph, flow) for _ in range(round(weight))]


def assignment_from_bins(lengths: Sequence[int], bins: Sequence[Sequence[int]]) -> list[int]:
    """Give every job a machine from bins of lengths (surplus items dropped)."""
    free: dict[int, list[int]] = {}
    for q, items in enumerate(bins):
        for s in items:
            free.setdefault(s, []).append(q)
    machine_of = []
    for p in lengths:
        machine_of.append(free[p].pop())
    return machine_of
