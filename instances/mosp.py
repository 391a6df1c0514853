"""MOSP and 3-PARTITION generators: the paper's §6 workload, small random
instances for exact comparison, the constructions of Prop. 1, Prop. 2 and
Theorem 2, and 3-PARTITION instances.

All randomness comes from ``random.Random(seed)``, so a (generator,
parameters, seed) triple always gives byte-identical JSON.
"""

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

from schedbench.errors import InstanceError, UserInputError
from schedbench.instances.campaign import zipf_rank, zipf_weights
from schedbench.instances.parameters import Count, Integers, Range, Range0, generator, ordered
from schedbench.instances.swf import read_swf, selection_meta, trace_credits
from schedbench.model import load_instance
from schedbench.model.mosp import MospInstance, Organization
from schedbench.model.three_partition import ThreePartitionInstance, checked
from schedbench.result import FEASIBLE, INFEASIBLE
from schedbench.solvers.three_partition import solve

LocalObjective = Literal["cmax", "sum_ci"]
Organizations = Annotated[int, 2]  # N >= 2 for the papers' constructions
Bound = Annotated[int, 12]  # the smallest B with integers strictly inside (B/4, B/2)


def paper_workload(organizations: int, jobs: int, seed: int, low: int = 1, high: int = 1000,
                   zipf: float = 1.4267, local_objective: str = "cmax", selfish: bool = False) -> MospInstance:
    """§6: n jobs with lengths U[low, high], each owned by an organization
    drawn from Zipf(1.4267) over the N organizations, one machine each (the
    paper does not give machine counts; its §5 formulas, C_local = sum p and
    LB^(k) = sum p / N, assume one machine per organization)."""
    rng = random.Random(seed)
    weights = zipf_weights(organizations, zipf)
    draw, length = rng.random, rng.randint
    owned: list[list[int]] = [[] for _ in range(organizations)]
    for _ in range(jobs):  # the owner rng.choices(range(N), cum_weights=weights) draws, then the length
        owned[zipf_rank(weights, draw())].append(length(low, high))
    meta = {"generator": "mosp-paper", "organizations": organizations, "jobs": jobs, "seed": seed,
            "lengths": [low, high], "zipf": zipf}
    return MospInstance(tuple(Organization(1, tuple(o)) for o in owned), local_objective, "optimal", selfish,
                        f"mosp-paper-N{organizations}-n{jobs}-s{seed}", meta)


def organizations_from_swf(path: str, organizations: int = 5, machines: int = 1, max_jobs: int | None = None,
                           local_objective: str = "cmax", selfish: bool = False, status: Sequence[int] | None = None,
                           partition: Sequence[int] | None = None) -> MospInstance:
    """A real multi-site workload: the trace's N user groups (SWF field 13)
    with the most work among its first ``max_jobs`` usable jobs become the
    organizations, in decreasing work; jobs of other or unknown groups are
    left out (their count goes into meta). Each organization gets
    ``machines`` machines (one, as in §6). As for campaigns, a job that ran
    on q processors becomes q jobs of its run time."""
    header, jobs = read_swf(path, max_jobs, status, partition)
    work: dict[int, int] = {}
    for job in jobs:
        if job.group >= 0:
            work[job.group] = work.get(job.group, 0) + job.run * job.processors
    groups = sorted(work, key=lambda g: (-work[g], g))[:organizations]
    if len(groups) < organizations:
        raise InstanceError("--organizations", f"{path} has {len(groups)} known groups, fewer than {organizations}")
    owned: dict[int, list[int]] = {g: [] for g in groups}
    for job in jobs:
        if job.group in owned:
            owned[job.group].extend([job.run] * job.processors)
    kept = sum(1 for job in jobs if job.group in owned)
    meta = {"generator": "mosp-swf", "trace": Path(path).name, "max_jobs": max_jobs, "groups": groups,
            "trace_jobs_left_out": len(jobs) - kept, **selection_meta(status, partition), **trace_credits(header)}
    return MospInstance(tuple(Organization(machines, tuple(owned[g])) for g in groups), local_objective, "optimal",
                        selfish, f"mosp-swf-{Path(path).name.split('.swf')[0]}-N{organizations}", meta)


def random_small(seed: int, organizations: Range = (2, 3), machines: Range = (1, 2), jobs: Range0 = (0, 4),
                 length: Range = (1, 6), local_objective: LocalObjective = "cmax",
                 selfish: bool = False) -> MospInstance:
    """Small instances for exact comparison (every range inclusive)."""
    rng = random.Random(seed)
    orgs = []
    for _ in range(rng.randint(*organizations)):
        orgs.append(Organization(rng.randint(*machines),
                                 tuple(rng.randint(*length) for _ in range(rng.randint(*jobs)))))
    if not any(o.jobs for o in orgs):
        orgs[0] = Organization(orgs[0].machines, (rng.randint(*length),))
    meta = {"generator": "mosp-small", "seed": seed}
    return MospInstance(tuple(orgs), local_objective, "optimal", selfish, f"mosp-small-s{seed}", meta)


def figure1(n: int, local_objective: str = "cmax", selfish: bool = True) -> MospInstance:
    """Prop. 1 (Fig. 1): N organizations with one machine each; O^(1) has two
    jobs of length N, every other one N unit jobs. Unconstrained optimum
    N + 1; under selfishness the local schedule (2N) is the only valid one."""
    orgs = (Organization(1, (n, n)),) + tuple(Organization(1, (1,) * n) for _ in range(n - 1))
    return MospInstance(orgs, local_objective, "optimal", selfish, f"mosp-figure1-N{n}", {"generator": "figure1"})


def figure2(n: int, selfish: bool = True) -> MospInstance:
    """Prop. 2 (Fig. 2), N >= 2 organizations with one machine each: O^(1) has
    N unit jobs, O^(N) two jobs of length N - 1. The text leaves O^(2..N-1)
    unstated; here each has one job of length N - 1, which makes the total
    work N^2, so the optimum under local constraints is N, while under
    selfishness no schedule beats 2N - 2 (ratio 2 - 2/N)."""
    middle = tuple(Organization(1, (n - 1,)) for _ in range(n - 2))
    orgs = (Organization(1, (1,) * n),) + middle + (Organization(1, (n - 1, n - 1)),)
    return MospInstance(orgs, "cmax", "optimal", selfish, f"mosp-figure2-N{n}", {"generator": "figure2"})


def stretch_tight(n: int) -> MospInstance:
    """§5.1: N organizations with one machine and N unit jobs each. Every
    schedule has some organization finishing at N >= N C^(k)alone = N, so
    Stretch = N: the bound Stretch <= N is tight."""
    orgs = tuple(Organization(1, (1,) * n) for _ in range(n))
    return MospInstance(orgs, "cmax", "optimal", False, f"mosp-stretch-tight-N{n}", {"generator": "stretch-tight"})


def mosp_two_jobs(instance: ThreePartitionInstance) -> tuple[MospInstance, int]:
    """the format's reduction ``mosp-two-jobs`` (Theorem 2) and its threshold L:
    yes iff the MOSP optimum (objective makespan) is <= L. The source
    instance, and its answer when known, go into meta."""
    q, b = instance.triples, instance.bound
    big = (q + 1) * b + 11
    orgs = tuple(Organization(1, (big, (q + 1) * a + 3)) for a in instance.items)
    orgs += tuple(Organization(1, (1, 1)) for _ in range(q))
    meta = {"generator": "mosp-two-jobs", "threshold": big, "source": instance.name,
            "three_partition": {"bound": b, "items": list(instance.items)}}
    if "answer" in instance.meta:
        meta["answer"] = instance.meta["answer"]
    return MospInstance(orgs, "cmax", "optimal", False, f"mosp-two-jobs-{instance.name}", meta), big


def planted_three_partition(q: int, bound: int, seed: int) -> ThreePartitionInstance:
    """A yes-instance: q triples drawn to sum to B with every item in
    (B/4, B/2), shuffled; the planted certificate is in meta."""
    if bound < 12:
        raise ValueError("B must be at least 12 for triples strictly inside (B/4, B/2)")
    rng = random.Random(seed)
    low, high = bound // 4 + 1, (bound - 1) // 2  # integers strictly inside (B/4, B/2)
    triples = []
    while len(triples) < q:
        a, b = rng.randint(low, high), rng.randint(low, high)
        c = bound - a - b
        if low <= c <= high:
            triples.append((a, b, c))
    order = list(range(3 * q))
    rng.shuffle(order)
    items = [0] * (3 * q)
    for slot, value in zip(order, (v for t in triples for v in t)):
        items[slot] = value
    certificate = [sorted(order[3 * t: 3 * t + 3]) for t in range(q)]
    meta = {"generator": "three-partition-planted", "seed": seed, "certificate": certificate, "answer": "yes"}
    return checked(ThreePartitionInstance(bound, tuple(items), f"3p-planted-q{q}-B{bound}-s{seed}", meta))


#: The most triples ``random_three_partition`` takes: the mean item, 3B/8,
#: is above B/3, so the last item fits ever more rarely (tens of thousands of
#: draws at 16 triples, the frontier's last step; about 1e-8 per draw at 30).
MAX_RANDOM_TRIPLES = 16


def random_three_partition(q: int, bound: int, seed: int) -> ThreePartitionInstance:
    """Items uniform in (B/4, B/2) with sum qB (drawn until the last item fits):
    yes or no is for the solver to decide."""
    if q > MAX_RANDOM_TRIPLES:
        raise UserInputError("params.triples", f"at most {MAX_RANDOM_TRIPLES}: the items are drawn until the last "
                                               "one fits, which almost never happens beyond (three-partition "
                                               "gives larger yes-instances)")
    rng = random.Random(seed)
    low, high = bound // 4 + 1, (bound - 1) // 2
    while True:
        items = [rng.randint(low, high) for _ in range(3 * q - 1)]
        last = q * bound - sum(items)
        if low <= last <= high:
            meta = {"generator": "three-partition-random", "seed": seed}
            return checked(ThreePartitionInstance(bound, (*items, last), f"3p-random-q{q}-B{bound}-s{seed}", meta))


def proven_no_three_partition(q: int, bound: int, seed: int, solver: str = "cpsat",
                              time_limit: float = 60.0) -> ThreePartitionInstance:
    """A no-instance: ``random_three_partition`` draws (seeds seed * 1000,
    seed * 1000 + 1, ...) until the exact decision solver proves one has no
    3-partition. Every draw's answer is proven, never guessed, so the output
    is a fact of the items and does not depend on the solver or the machine:
    a draw left undecided within ``time_limit`` is an error (ValueError, so
    the command line reports it in one line)."""
    if q < 2:
        raise ValueError("q must be at least 2: with one triple every valid instance is a yes-instance")

    for draw in range(seed * 1000, seed * 1000 + 1000):
        candidate = random_three_partition(q, bound, draw)
        status = solve(candidate, "decision", solver, time_limit).status
        if status not in (FEASIBLE, INFEASIBLE):
            raise ValueError(f"3-PARTITION draw {draw} (q={q}, B={bound}) undecided within {time_limit} s")
        if status == INFEASIBLE:
            meta = {**candidate.meta, "generator": "three-partition-no", "seed": seed, "draw": draw, "answer": "no"}
            return ThreePartitionInstance(bound, candidate.items, f"3p-no-q{q}-B{bound}-s{seed}", meta)
    raise ValueError(f"no proven no-instance among 1000 draws for q={q}, B={bound}")


def _paper(seed: int, organizations: Count = 5, jobs: Count = 100, low: Count = 1, high: Count = 1000,
           local_objective: LocalObjective = "cmax", selfish: bool = False) -> MospInstance:
    ordered(low, high)
    return paper_workload(organizations, jobs, seed, low, high, local_objective=local_objective, selfish=selfish)


def _swf(trace: str, organizations: Count = 5, machines: Count = 1, max_jobs: Count | None = None,
         local_objective: LocalObjective = "cmax", selfish: bool = False, status: Integers | None = None,
         partition: Integers | None = None) -> MospInstance:
    return organizations_from_swf(trace, organizations, machines, max_jobs, local_objective, selfish, status, partition)


def _figure1(organizations: Organizations = 5, local_objective: LocalObjective = "cmax",
             selfish: bool = True) -> MospInstance:
    return figure1(organizations, local_objective, selfish)


def _figure2(organizations: Organizations = 5, selfish: bool = True) -> MospInstance:
    return figure2(organizations, selfish)


def _stretch_tight(organizations: Organizations = 5) -> MospInstance:
    return stretch_tight(organizations)


def _two_jobs(source: str) -> MospInstance:
    """Theorem 2's reduction of the three_partition instance in file ``source``."""
    three = load_instance(source)
    if three.family != "three_partition":
        raise UserInputError("params.source", f"{source} is a {three.family} instance, not three_partition")
    return mosp_two_jobs(three)[0]


def _planted(seed: int, triples: Count = 3, bound: Bound = 40) -> ThreePartitionInstance:
    return planted_three_partition(triples, bound, seed)


def _random(seed: int, triples: Count = 3, bound: Bound = 40) -> ThreePartitionInstance:
    return random_three_partition(triples, bound, seed)


def _proven_no(seed: int, triples: Annotated[int, 2] = 3, bound: Bound = 40,
               time_limit: float = 60.0) -> ThreePartitionInstance:
    return proven_no_three_partition(triples, bound, seed, time_limit=time_limit)


def search_start(rng: random.Random, limits) -> MospInstance:
    """A start for ``schedbench worst``: organizations of one machine each, local
    objective and selfishness drawn (moves never change them)."""
    organizations = rng.randint(*(limits.machines or (2, 4)))
    jobs = max(1, min(6, limits.max_jobs // organizations))
    return random_small(rng.randrange(1 << 30), organizations=(organizations, organizations), machines=(1, 1),
                        jobs=(1, jobs), length=(1, limits.max_value),
                        local_objective=rng.choice(("cmax", "sum_ci")), selfish=rng.random() < 0.5)


GENERATORS = {"mosp-paper": generator(_paper), "mosp-small": generator(random_small), "mosp-swf": generator(_swf),
              "mosp-figure1": generator(_figure1), "mosp-figure2": generator(_figure2),
              "mosp-stretch-tight": generator(_stretch_tight), "mosp-two-jobs": generator(_two_jobs)}
#: The 3-PARTITION instances of the MOSP paper's reduction (Theorem 2), beside it.
THREE_PARTITION_GENERATORS = {"three-partition": generator(_planted), "three-partition-random": generator(_random),
                              "three-partition-no": generator(_proven_no)}
