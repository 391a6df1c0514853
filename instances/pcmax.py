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


def search_start(rng: random.Random, limits) -> PcmaxInstance:
    """A start for ``schedbench worst``: more jobs than machines where the limits allow."""
    machines = rng.randint(*(limits.machines or (2, 4)))
    jobs = rng.randint(min(machines + 1, limits.max_jobs), limits.max_jobs)
    return uniform(rng.randrange(1 << 30), jobs=jobs, machines=machines, high=limits.max_value)


GENERATORS = {"pcmax-uniform": generator(uniform), "pcmax-planted": generator(planted)}


def read_pcmax_text(path: str | Path, first: str = "header", drop_zero: bool = False) -> PcmaxInstance:
    """A P||Cmax text file. ``first="header"``: the public benchmark
    libraries' ``p p_cmax N M`` line, then the N lengths; ``first="mn"``:
    M and N first (Frangioni's sets), then the N lengths. Lengths are
    integers >= 1; a zero length (real job-time data has them) is refused,
    or dropped with ``drop_zero`` (the count dropped is in ``meta``). A
    trailing 0 after the N lengths ends the list in the libraries' files."""
    path = Path(path)
    try:
        tokens = path.read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError) as exc:
        raise InstanceError("FILE", f"cannot read {path}: {exc}") from None
    skip = 2 if first == "header" else 0
    if first == "header" and tokens[:2] != ["p", "p_cmax"]:
        raise InstanceError("FILE", f"{path}: expected the header 'p p_cmax N M', got {' '.join(tokens[:4])!r}")
    try:
        numbers = [int(t) for t in tokens[skip:]]
    except ValueError as exc:
        raise InstanceError("FILE", f"{path}: {exc}") from None
    if len(numbers) < 2:
        raise InstanceError("FILE", f"{path}: expected N and M, then N lengths")
    n, m = numbers[:2] if first == "header" else numbers[1::-1]
    lengths = numbers[2:2 + n]
    extra = numbers[2 + n:]
    if len(lengths) != n or extra not in ([], [0]):
        raise InstanceError("FILE", f"{path}: {n} lengths announced, {len(numbers) - 2} numbers follow")
    zeros = sum(p == 0 for p in lengths)
    if zeros and not drop_zero:
        raise InstanceError("jobs", f"{path}: {zeros} jobs of length 0 (lengths are >= 1; --drop-zero drops them)")
    kept = tuple(p for p in lengths if p != 0)
    if any(p < 0 for p in kept) or m < 1 or not kept:
        raise InstanceError("jobs", f"{path}: lengths must be >= 1 and M >= 1, with at least one job")
    meta = {"source_format": f"pcmax-{first}", "file": path.name, "dropped_zero_lengths": zeros}
    return PcmaxInstance(m, kept, path.stem, meta)


def _pcmax_header(file: str, drop_zero: bool = False) -> PcmaxInstance:
    return read_pcmax_text(file, "header", drop_zero)


def _pcmax_mn(file: str, drop_zero: bool = False) -> PcmaxInstance:
    return read_pcmax_text(file, "mn", drop_zero)


CONVERTERS = {"pcmax": generator(_pcmax_header), "pcmax-mn": generator(_pcmax_mn)}
