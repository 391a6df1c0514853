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

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ArcFlowGraph:
    capacity: int
    nodes: tuple[int, ...]                       # loads reachable from 0, ascending
    arcs: tuple[tuple[int, int, int], ...]       # (tail, head, length)
    counts: dict                                 # length -> number of jobs

    @property
    def size(self) -> int:
        return len(self.arcs) + len(self.nodes)


def build(lengths: Sequence[int], capacity: int) -> ArcFlowGraph:
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
        reachable |= new
    unique = tuple(sorted(set(arcs)))
    return ArcFlowGraph(capacity, tuple(sorted(reachable)), unique, dict(counts))


def bins_from_flow(graph: ArcFlowGraph, flow: Sequence[int]) -> list[list[int]]:
    """Decompose an integer arc flow into the job lengths of each bin."""
    out_arcs: dict[int, list[int]] = {}
    remaining = list(flow)
    for index, (tail, _, _) in enumerate(graph.arcs):
        if remaining[index] > 0:
            out_arcs.setdefault(tail, []).append(index)
    bins = []
    while True:
        node, items = 0, []
        while True:
            nxt = next((a for a in out_arcs.get(node, ()) if remaining[a] > 0), None)
            if nxt is None:
                break
            remaining[nxt] -= 1
            items.append(graph.arcs[nxt][2])
            node = graph.arcs[nxt][1]
        if not items:
            break
        bins.append(items)
    return bins


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
