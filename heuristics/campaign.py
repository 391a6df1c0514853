"""Offline campaign heuristics: camp(A) and MULTICAMP (FAIRCAMP paper §IV-V),
and the registry of every campaign heuristic (``HEURISTICS``).

Both build, for one user, the campaign-compact chain: campaign ``i`` is placed
by the inner rule ``A`` on all machines at its submission ``t_i`` and campaign
``i+1`` is submitted at ``C_i + think_time``.
"""

from collections.abc import Callable

from schedbench.errors import UserInputError, unknown_key
from schedbench.heuristics.faircamp import faircamp, faircamp_nondelay
from schedbench.heuristics.fcfs import fcfs
from schedbench.heuristics.ostrich import ostrich
from schedbench.heuristics.pcmax import RULES, Rule, rule
from schedbench.schedule import Schedule


def user_chain(instance, u: int, place: Rule, start_at: int, machine: list[int], start: list[int]) -> int:
    """Schedule user ``u``'s campaigns back to back from ``start_at`` with rule
    ``place``, writing into ``machine``/``start``; return the last completion."""
    m = instance.machines
    completion = start_at
    for i, camp in enumerate(instance.users[u].campaigns):
        submitted = start_at if i == 0 else completion + camp.think_time
        q, s = place(camp.jobs, [submitted] * m)
        base = instance.offsets[u][i]
        machine[base:base + len(q)] = q
        start[base:base + len(s)] = s
        completion = max(sj + p for sj, p in zip(s, camp.jobs))
    return completion


def camp(instance, inner: str = "lpt") -> Schedule:
    """camp(A) (FAIRCAMP paper, Prop. 3): for a single user, run ``A`` on each
    campaign separately and chain them; keeps A's approximation ratio."""
    if instance.n_users != 1:
        raise UserInputError("users", "camp(A) is defined for one user; use multicamp for several")
    n = len(instance.lengths)
    machine, start = [0] * n, [0] * n
    user_chain(instance, 0, rule(inner), instance.users[0].release, machine, start)
    return Schedule.of(machine, start)


def multicamp(instance, inner: str = "lpt") -> Schedule:
    """MULTICAMP (FAIRCAMP paper, §V, Prop. 5): each user's camp(A) chain is a
    block; blocks run one after the other in non-decreasing block length
    (ties by user index). With release times a block starts no earlier than
    its user's release."""
    place = rule(inner)
    n = len(instance.lengths)
    machine, start = [0] * n, [0] * n
    block_length = [user_chain(instance, u, place, 0, machine, start) for u in range(instance.n_users)]
    end = 0
    for u in sorted(range(instance.n_users), key=lambda u: (block_length[u], u)):
        begin = max(end, instance.users[u].release)
        for j in instance.user_slice(u):
            start[j] += begin
        end = begin + block_length[u]
    return Schedule.of(machine, start)


HEURISTICS: dict[str, Callable[..., Schedule]] = {
    "fcfs": fcfs, "faircamp": faircamp, "faircamp_nondelay": faircamp_nondelay, "ostrich": ostrich,
    "multicamp": multicamp, "camp": camp}


def options(instance, raw: dict) -> dict:
    """``inner``: the inner algorithm A (list, lpt, spt, mlpt; OStrich orders
    jobs by lpt, spt or list and refuses the others when it runs)."""
    out = {}
    for name, value in raw.items():
        if name != "inner":
            raise unknown_key(UserInputError, "options", name, ("inner",))
        if value not in RULES:
            raise UserInputError("options.inner", f"must be one of {', '.join(RULES)}, got {value!r}")
        out["inner"] = value
    return out
