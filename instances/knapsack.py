"""Knapsack instance generator: small random 0-1 knapsacks for exact comparison.

All randomness comes from ``random.Random(seed)`` integer draws, so a
(generator, parameters, seed) triple always gives byte-identical JSON.
"""

import random
from fractions import Fraction
from math import floor

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
