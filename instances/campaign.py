"""Campaign instance generators: the papers' workloads, small random
instances for exact comparison, and the constructions of the papers' proofs.

All randomness comes from ``random.Random(seed)``, whose integer and choice
streams are stable across Python versions, so a (generator, parameters,
seed) triple always gives byte-identical JSON.
"""

import random
from bisect import bisect
from functools import lru_cache
from itertools import accumulate
from typing import Annotated

from schedbench.instances.parameters import Count, Integers, Natural, Range, Range0, generator
from schedbench.instances.swf import campaigns_from_swf
from schedbench.model.campaign import Campaign, CampaignInstance, User


def _instance(machines: int, per_user: list[list[Campaign]], releases=None, name: str = "", meta=None):
    releases = releases or [0] * len(per_user)
    users = tuple(User(tuple(c), r) for c, r in zip(per_user, releases) if c)
    return CampaignInstance(machines, users, name, meta or {})


def zipf_weights(k: int, exponent: float) -> list[float]:
    """Cumulative weights of a Zipf law truncated to ranks 1..k."""
    return list(accumulate(1.0 / (rank ** exponent) for rank in range(1, k + 1)))


def zipf_rank(weights: list[float], draw: float) -> int:
    """The 0-based rank ``random.choices(range(len(weights)), cum_weights=weights)[0]``
    returns when its one ``random()`` call returns ``draw``, computed as
    CPython's ``choices`` does, without its checks: ``weights`` non-empty
    and cumulative with a positive finite last entry, as ``zipf_weights``
    gives. A generator that calls it keeps ``choices``'s stream and spares
    its cost a draw (one a job in MOSP's paper workload)."""
    return bisect(weights, draw * (weights[-1] + 0.0), 0, len(weights) - 1)


def faircamp_paper(users: int, seed: int, n_jobs: int = 10_000, machines: int = 10,
                   max_length: int = 100, new_campaign: float = 0.1, zipf: float = 1.4267) -> CampaignInstance:
    """FAIRCAMP paper §VII: p ~ U[1,100]; a job starts a new campaign with
    probability 0.1 (the first job always does); a new campaign's owner is
    drawn from Zipf(1.4267) over the k users. Users who drew no campaign are
    left out (meta records how many were requested)."""
    weights = zipf_weights(users, zipf)
    per_user: list[list[Campaign]] = [[] for _ in range(users)]
    for draw, jobs in _faircamp_draws(seed, n_jobs, max_length, new_campaign):
        per_user[zipf_rank(weights, draw)].append(Campaign(jobs))
    meta = {"generator": "faircamp_paper", "users_requested": users, "seed": seed, "n_jobs": n_jobs,
            "new_campaign": new_campaign, "zipf": zipf, "max_length": max_length}
    return _instance(machines, per_user, name=f"faircamp-k{users}-s{seed}", meta=meta)


@lru_cache(maxsize=4)
def _faircamp_draws(seed: int, n_jobs: int, max_length: int, new_campaign: float) -> tuple[tuple[float, tuple[int, ...]], ...]:
    """Each campaign's owner draw (``random()``, which ``zipf_rank`` maps to
    a user as ``choices`` does) and job lengths, in order. The stream does
    not depend on k (one draw picks an owner, whatever the weights), so one seed's workloads for
    every k share it: Fig. 4's five values of k draw it once (generating
    them took 5% of the experiment)."""
    rng = random.Random(seed)
    campaigns: list[tuple[float, list[int]]] = []
    for job in range(n_jobs):
        if job == 0 or rng.random() < new_campaign:
            campaigns.append((rng.random(), []))
        campaigns[-1][1].append(rng.randint(1, max_length))
    return tuple((draw, tuple(jobs)) for draw, jobs in campaigns)


SHORT = (1, 3_600)
LONG = (3_600, 36_000)


def ostrich_paper(users: int, seed: int, n_jobs: int = 10_000, machines: int = 64,
                  short_users: int | None = None, new_campaign: float = 0.02) -> CampaignInstance:
    """OStrich paper §6: short users' jobs ~ U[1, 3600], long users' jobs
    ~ U[3600, 36000]; a job starts a new campaign with probability 0.02 and
    the campaign's owner is uniform over the users. The paper does not give
    the number of users nor the profile mix: by default half the users
    (rounded up) are short, the first ones."""
    rng = random.Random(seed)
    short_users = (users + 1) // 2 if short_users is None else short_users
    per_user: list[list[list[int]]] = [[] for _ in range(users)]
    current: list[int] = []
    owner = 0
    for job in range(n_jobs):
        if job == 0 or rng.random() < new_campaign:
            owner = rng.randrange(users)
            current = []
            per_user[owner].append(current)
        low, high = SHORT if owner < short_users else LONG
        current.append(rng.randint(low, high))
    profiles = ["short" if u < short_users else "long" for u in range(users) if per_user[u]]  # the users kept
    meta = {"generator": "ostrich_paper", "users_requested": users, "short_users": short_users,
            "seed": seed, "n_jobs": n_jobs, "new_campaign": new_campaign, "profiles": profiles}
    return _instance(machines, [[Campaign(tuple(c)) for c in camps] for camps in per_user],
                     name=f"ostrich-k{users}-s{seed}", meta=meta)


def random_small(seed: int, users: Range = (1, 3), campaigns: Range = (1, 3), jobs: Range = (1, 3),
                 length: Range = (1, 6), machines: Range = (1, 3), release: Range0 = (0, 0),
                 think: Range0 = (0, 0)) -> CampaignInstance:
    """Small random instances for exact comparison; every range is inclusive."""
    rng = random.Random(seed)
    m = rng.randint(*machines)
    per_user, releases = [], []
    for _ in range(rng.randint(*users)):
        camps = []
        for _ in range(rng.randint(*campaigns)):
            lengths = tuple(rng.randint(*length) for _ in range(rng.randint(*jobs)))
            camps.append(Campaign(lengths, rng.randint(*think)))
        per_user.append(camps)
        releases.append(rng.randint(*release))
    meta = {"generator": "random_small", "seed": seed, "users": users, "campaigns": campaigns, "jobs": jobs,
            "length": length, "machines": machines, "release": release, "think": think}
    return _instance(m, per_user, releases, name=f"small-s{seed}", meta=meta)


def unit_campaigns(users: Count = 5, campaigns: Count = 3, machines: Count = 2) -> CampaignInstance:
    """FAIRCAMP paper Prop. 4: k users, each with n campaigns of m unit jobs."""
    per_user = [[Campaign((1,) * machines) for _ in range(campaigns)] for _ in range(users)]
    return _instance(machines, per_user, name=f"prop4-k{users}-n{campaigns}-m{machines}",
                     meta={"construction": "unit_campaigns", "users": users, "campaigns": campaigns})


def fcfs_trap(machines: Count = 2, campaigns: Count = 3, long: Annotated[int, 2] = 5) -> CampaignInstance:
    """FAIRCAMP paper Prop. 6 (Fig. 3): two users with γ campaigns of m jobs;
    user 1's jobs have length p, user 2's length 1; both submit at time 0 and
    user 1 is served first (the paper's 'user 2 submits at ε ≈ 0')."""
    per_user = [[Campaign((long,) * machines) for _ in range(campaigns)],
                [Campaign((1,) * machines) for _ in range(campaigns)]]
    return _instance(machines, per_user, name=f"prop6-m{machines}-g{campaigns}-p{long}",
                     meta={"construction": "fcfs_trap", "campaigns": campaigns, "long": long})


def _faircamp(seed: int, users: Count = 5, jobs: Count = 10_000, machines: Count = 10,
              max_length: Count = 100) -> CampaignInstance:
    return faircamp_paper(users, seed, jobs, machines, max_length)


def _ostrich(seed: int, users: Count = 5, jobs: Count = 10_000, machines: Count = 64,
             short_users: Natural | None = None) -> CampaignInstance:
    return ostrich_paper(users, seed, jobs, machines, short_users)


def _swf(trace: str, gap: Natural = 1200, machines: Count | None = None, max_jobs: Count | None = None,
         status: Integers | None = None, partition: Integers | None = None) -> CampaignInstance:
    return campaigns_from_swf(trace, gap=gap, machines=machines, max_jobs=max_jobs, status=status, partition=partition)


def search_start(rng: random.Random, limits) -> CampaignInstance:
    """A start for ``schedbench worst``: 1-3 users of 1-3 campaigns, releases and think times in a third."""
    timed = rng.random() < 1 / 3
    jobs = max(1, min(3, limits.max_jobs // 3))
    return random_small(rng.randrange(1 << 30), users=(1, 3), campaigns=(1, 3), jobs=(1, jobs),
                        length=(1, limits.max_value), machines=limits.machines or (1, 3),
                        release=(0, 3 if timed else 0), think=(0, 3 if timed else 0))


GENERATORS = {"faircamp": generator(_faircamp), "ostrich": generator(_ostrich), "small": generator(random_small),
              "unit-campaigns": generator(unit_campaigns), "fcfs-trap": generator(fcfs_trap), "swf": generator(_swf)}
