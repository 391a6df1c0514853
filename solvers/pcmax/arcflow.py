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

import numpy as np


@dataclass(frozen=True, eq=False)  # arrays: no field-wise ==
class ArcFlowGraph:
    capacity: int
    nodes: np.ndarray      # loads reachable from 0 (after compression, their labels), ascending
    arcs: np.ndarray       # one row (tail, head, length) per arc, sorted
    counts: dict           # length -> number of jobs


def build(lengths: Sequence[int], capacity: int, max_size: int,
          deadline: float = float("inf")) -> ArcFlowGraph | None:
    """The compressed graph, or None as soon as it would pass ``max_size`` arcs + nodes
    or the ``deadline`` (time.monotonic()): long lengths and a large C make it huge.
    Built in numpy, one length at a time: the arcs of every reachable load at once."""
    counts = Counter(lengths)
    reachable = np.zeros(1, dtype=np.int64)
    tails, sizes = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    arcs = 0  # arcs so far, counting the same arc from two loads twice (as the cap always has)
    for s in sorted(counts, reverse=True):
        copies = np.minimum(counts[s], (capacity - reachable) // s)
        added = int(copies.sum())
        if arcs + added + len(reachable) > max_size:
            return None
        # the r-th s-arc above load d starts at d + r s, for r < copies(d)
        step = np.arange(added) - np.repeat(np.cumsum(copies) - copies, copies)
        tail = np.repeat(reachable, copies) + step * s
        tails.append(tail)
        sizes.append(np.full(added, s, dtype=np.int64))
        arcs += added
        reachable = np.union1d(reachable, tail + s)
        if arcs + len(reachable) > max_size or time.monotonic() > deadline:
            return None
    tail, size = np.concatenate(tails), np.concatenate(sizes)
    nodes, arcs_out = _compress(capacity, reachable, tail, size)
    return ArcFlowGraph(capacity, nodes, arcs_out, dict(counts))


def _compress(capacity: int, loads: np.ndarray, tail: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Brandao & Pedroso's (2016) main compression step: relabel every load d
    by C minus the longest path from d onwards, and merge equal labels.

    An arc (d, e, s) has lp(d) >= s + lp(e), so its new labels still differ
    by at least s and every path from 0 still packs at most C: the packings
    are the same, the graph is smaller (load 0, the source, keeps label 0).
    The longest paths are found from the top load down, a block of loads
    narrower than the shortest job at a time: no arc joins two loads of a
    block, so each block is one numpy step over its own arcs (O(arcs) in
    all, in at most C / shortest + 1 steps).
    """
    at_tail, at_head = np.searchsorted(loads, tail), np.searchsorted(loads, tail + size)
    by_tail = np.argsort(at_tail, kind="stable")
    at_tail, at_head, size = at_tail[by_tail], at_head[by_tail], size[by_tail]
    shortest = int(size.min()) if len(size) else 1
    longest = np.zeros(len(loads), dtype=np.int64)
    top = len(loads)
    while top > 0:
        bottom = int(np.searchsorted(loads, loads[top - 1] - shortest, side="right"))
        first, last = np.searchsorted(at_tail, bottom), np.searchsorted(at_tail, top)
        np.maximum.at(longest, at_tail[first:last], size[first:last] + longest[at_head[first:last]])
        top = bottom
    label = capacity - longest
    label[0] = 0
    merged = np.unique(np.stack([label[at_tail], label[at_head], size], axis=1), axis=0)
    return np.unique(label), merged


def paths_from_flow(graph: ArcFlowGraph, flow: Sequence[float], tolerance: float = 1e-6) -> list[tuple[float, list[int]]]:
    """Decompose an arc flow into (weight, job lengths of one machine) paths from 0."""
    remaining = list(flow)
    used = np.flatnonzero(np.asarray(flow) > tolerance)
    arcs = {int(index): (tail, head, length) for index, (tail, head, length) in zip(used, graph.arcs[used].tolist())}
    out_arcs: dict[int, list[int]] = {}
    for index, (tail, _, _) in arcs.items():
        out_arcs.setdefault(tail, []).append(index)
    paths = []
    while True:
        node, path = 0, []
        while True:
            nxt = next((a for a in out_arcs.get(node, ()) if remaining[a] > tolerance), None)
            if nxt is None:
                break
            path.append(nxt)
            node = arcs[nxt][1]
        if not path:
            return paths
        weight = min(remaining[a] for a in path)
        for a in path:
            remaining[a] -= weight
        paths.append((weight, [arcs[a][2] for a in path]))


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
