"""Knapsack instance generator: small random 0-1 knapsacks for exact comparison.

All randomness comes from ``random.Random(seed)`` integer draws, so a
(generator, parameters, seed) triple always gives byte-identical JSON.
"""

import random
from fractions import Fraction
from math import floor
from pathlib import Path

from schedbench.errors import InstanceError
from schedbench.instances.parameters import Count, Range, Range0, generator
from schedbench.model.knapsack import Item, KnapsackInstance


def random_knapsack(seed: int, items: Count = 10, weight: Range = (1, 20), profit: Range0 = (1, 20),
                    capacity_share: Fraction = Fraction(1, 2)) -> KnapsackInstance:
    """``items`` items, per item its weight U[weight] then its profit
    U[profit]; capacity floor(capacity_share x total weight), so with a
    share in (0, 1) some but not all items fit."""
    if not 0 <= capacity_share <= 1:
        raise ValueError(f"capacity_share must be in [0, 1], got {capacity_share}")
    rng = random.Random(seed)
    drawn = tuple(Item(rng.randint(*weight), rng.randint(*profit)) for _ in range(items))
    capacity = floor(capacity_share * sum(item.weight for item in drawn))
    meta = {"generator": "knapsack-random", "seed": seed, "items": items, "weight": list(weight),
            "profit": list(profit), "capacity_share": [capacity_share.numerator, capacity_share.denominator]}
    return KnapsackInstance(capacity, drawn, f"knapsack-random-n{items}-s{seed}", meta)


def search_start(rng: random.Random, limits) -> KnapsackInstance:
    """A start for ``schedbench worst``: 2 to max-jobs items."""
    return random_knapsack(rng.randrange(1 << 30), items=rng.randint(min(2, limits.max_jobs), limits.max_jobs),
                           weight=(1, limits.max_value), profit=(1, limits.max_value))


GENERATORS = {"knapsack-random": generator(random_knapsack)}


def read_pisinger(path: str | Path, block: int = 1, name: str = "") -> KnapsackInstance:
    """One block of a Pisinger instance file: a name line, then ``n N``,
    ``c C``, ``z Z`` (the published optimum), ``time T``, N lines
    ``id,profit,weight,x`` and a ``-----`` line. The published optimum ``z``
    (``meta.published_optimum.profit``, which ``certify`` and ``regress``
    check) and the published selection (``x``) are kept in ``meta``. ``block`` is the block's
    1-based position, ``name`` (when given) its name line instead."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InstanceError("FILE", f"cannot read {path}: {exc}") from None
    blocks = _pisinger_blocks(lines)
    if not blocks:
        raise InstanceError("FILE", f"{path}: no block (a name line, then n, c, z, time and the items)")
    names = [lines[start].strip() for start in blocks]
    if name and name not in names:
        raise InstanceError("--name", f"{path} has no block named {name!r} ({len(blocks)} blocks)")
    if not 1 <= block <= len(blocks):
        raise InstanceError("--block", f"{path} has {len(blocks)} blocks, not a block {block}")
    return _pisinger_block(path, lines, blocks[names.index(name)] if name else blocks[block - 1])


def _pisinger_blocks(lines: list[str]) -> list[int]:
    """The line index of each block's name line (the line before ``n N``)."""
    return [i - 1 for i, line in enumerate(lines) if i > 0 and line.split()[:1] == ["n"] and lines[i - 1].strip()]


def _pisinger_block(path: Path, lines: list[str], start: int) -> KnapsackInstance:
    header = {}
    for offset, key in enumerate(("n", "c", "z", "time"), start=1):
        fields = lines[start + offset].split() if start + offset < len(lines) else []
        if fields[:1] != [key] or len(fields) != 2:
            raise InstanceError(key, f"{path} line {start + offset + 1}: expected '{key} VALUE'")
        header[key] = fields[1]
    try:
        count, capacity, optimum = int(header["n"]), int(header["c"]), int(header["z"])
    except ValueError as exc:
        raise InstanceError("n", f"{path} line {start + 2}: {exc}") from None
    items, chosen = [], []
    for number in range(start + 5, start + 5 + count):
        fields = lines[number].split(",") if number < len(lines) else []
        try:
            _, profit, weight, x = (int(field) for field in fields)
        except ValueError:
            raise InstanceError("items", f"{path} line {number + 1}: expected id,profit,weight,x") from None
        if profit < 0 or weight < 0 or x not in (0, 1):
            raise InstanceError("items", f"{path} line {number + 1}: profit and weight >= 0, x 0 or 1")
        items.append(Item(weight, profit))
        chosen += [len(items) - 1] * x
    meta = {"source_format": "pisinger", "file": path.name, "block": lines[start].strip(),
            "published_optimum": {"profit": optimum}, "published_selection": chosen}
    return KnapsackInstance(capacity, tuple(items), lines[start].strip(), meta)


def _pisinger(file: str, block: Count = 1, name: str = "") -> KnapsackInstance:
    return read_pisinger(file, block, name)


CONVERTERS = {"pisinger": generator(_pisinger)}
