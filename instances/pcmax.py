"""P||Cmax instances: seeded uniform and planted generators and the benchmark text format."""

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


def planted(seed: int, jobs: Count = 1000, machines: Count = 200, low: Count = 1, high: Count = 100) -> PcmaxInstance:
    """Every machine filled to exactly C by construction, so the optimum is
    C = W / m. C is the expected load, round(n / m x (low + high) / 2); a
    machine draws its n / m (or one more) jobs from U[low, high] and its
    last job is what C still needs, drawn again until that lies in [low,
    high]. The jobs are shuffled, so their order tells nothing."""
    ordered(low, high)
    if jobs < machines:
        raise InstanceError("jobs", f"a planted instance needs at least one job per machine ({jobs} < {machines})")
    rng = random.Random(seed)
    capacity = round(jobs / machines * (low + high) / 2)
    lengths: list[int] = []
    for q in range(machines):
        count = jobs // machines + (q < jobs % machines)
        if not count * low <= capacity <= count * high:
            raise InstanceError("jobs", f"{count} jobs in U[{low}, {high}] cannot fill C = {capacity}")
        while True:
            drawn = [rng.randint(low, high) for _ in range(count - 1)]
            last = capacity - sum(drawn)
            if low <= last <= high:
                lengths += drawn + [last]
                break
    rng.shuffle(lengths)
    return PcmaxInstance(machines, tuple(lengths), f"planted-n{jobs}-m{machines}-s{seed}",
                         {"generator": "planted", "seed": seed, "low": low, "high": high, "optimum": capacity})


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


def search_start(rng: random.Random, limits) -> PcmaxInstance:
    """A start for ``schedbench worst``: more jobs than machines where the limits allow."""
    machines = rng.randint(*(limits.machines or (2, 4)))
    jobs = rng.randint(min(machines + 1, limits.max_jobs), limits.max_jobs)
    return uniform(rng.randrange(1 << 30), jobs=jobs, machines=machines, high=limits.max_value)


GENERATORS = {"pcmax-uniform": generator(uniform), "pcmax-planted": generator(planted)}
