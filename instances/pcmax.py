"""P||Cmax instances: seeded uniform generator and the benchmark text format."""

import random
from pathlib import Path

from schedbench.errors import InstanceError
from schedbench.instances.parameters import Count, generator, ordered
from schedbench.model.pcmax import PcmaxInstance


def uniform(seed: int, jobs: Count = 20, machines: Count = 5, low: Count = 1, high: Count = 100) -> PcmaxInstance:
    """n lengths drawn from U[low, high] with ``random.Random(seed)``."""
    ordered(low, high)
    rng = random.Random(seed)
    lengths = tuple(rng.randint(low, high) for _ in range(jobs))
    return PcmaxInstance(machines, lengths, f"uniform-n{jobs}-m{machines}-s{seed}",
                         {"generator": "uniform", "seed": seed, "low": low, "high": high})


def read_benchmark_file(path: str | Path) -> PcmaxInstance:
    """The Lawrinenko/pcmax text format: ``p p_cmax N M`` then N lengths (a
    trailing 0 ends the list and is not a job)."""
    tokens = Path(path).read_text().split()
    if len(tokens) < 4 or tokens[:2] != ["p", "p_cmax"]:
        raise InstanceError("header", f"{path}: expected 'p p_cmax N M'")
    try:
        n, m = int(tokens[2]), int(tokens[3])
        lengths = tuple(int(t) for t in tokens[4:4 + n])
    except ValueError as exc:
        raise InstanceError("jobs", f"{path}: {exc}") from None
    if len(lengths) != n or any(p < 1 for p in lengths) or m < 1:
        raise InstanceError("jobs", f"{path}: expected {n} lengths >= 1 and M >= 1")
    return PcmaxInstance(m, lengths, Path(path).name, {"source": "lawrinenko"})


GENERATORS = {"pcmax-uniform": generator(uniform)}
