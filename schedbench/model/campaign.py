"""Campaign-scheduling instances (the format reference, family ``campaign``).

User ``u``'s campaign 1 is submitted at ``release``; campaign ``i+1`` at the
completion of campaign ``i`` plus its ``think_time``. Jobs are numbered in a
flat order: user by user, campaign by campaign, job by job.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from schedbench.errors import ScheduleFormatError
from schedbench.model import fields
from schedbench.model.schedule_json import placements, read_job_list
from schedbench.model.shape import COUNT, LENGTH, NONNEGATIVE, Key, List, Record, header
from schedbench.schedule import Schedule

FAMILY = "campaign"
OBJECTIVES = ("user-flow", "max-user-stretch", "max-campaign-stretch", "sum-user-flow")
CAMPAIGN = Record((
    Key("jobs", List(LENGTH, min_items=1), doc="The campaign's job lengths."),
    Key("think_time", NONNEGATIVE, required=False, default=0,
        doc="Time between the completion of the previous campaign and this one's submission "
            "(ignored for a user's first campaign)."),
))
USER = Record((
    Key("release", NONNEGATIVE, required=False, default=0, doc="Submission time of the user's first campaign."),
    Key("campaigns", List(CAMPAIGN, min_items=1), doc="The user's campaigns, in submission order."),
))
INSTANCE = header(FAMILY, (
    Key("machines", COUNT, doc="m, the number of identical machines."),
    Key("users", List(USER, min_items=1), doc="The users, each with a sequence of campaigns."),
))
SCHEDULE = Record((Key("users", List(Record((
    Key("campaigns", List(Record((Key("jobs", placements(), doc="Per job of the campaign, a machine and a start."),))),
        doc="Per campaign of the user, in order."),
))), doc="Per user, in the instance's order."),))


@dataclass(frozen=True)
class Campaign:
    jobs: tuple[int, ...]
    think_time: int = 0

    @cached_property
    def work(self) -> int:
        return sum(self.jobs)


@dataclass(frozen=True)
class User:
    campaigns: tuple[Campaign, ...]
    release: int = 0


@dataclass(frozen=True)
class CampaignInstance:
    """Campaign scheduling on ``machines`` identical machines: ``users``, each
    a ``User`` with its ``release`` and its ``campaigns`` (each a ``Campaign``
    with ``jobs`` and ``think_time``). Jobs are numbered flat, user by user,
    campaign by campaign (``lengths``, ``campaign_slice(u, i)``, ``user_slice(u)``)."""

    machines: int
    users: tuple[User, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    def __hash__(self) -> int:
        """The fields' hash, computed once: per-instance caches (F_u*, bounds,
        in ``lru_cache``) ask for it at every cell, and hashing 10^4 jobs'
        nested tuples each time cost as much as a heuristic's run."""
        if "_hash" not in self.__dict__:
            object.__setattr__(self, "_hash", hash((self.machines, self.users, self.name)))
        return self.__dict__["_hash"]

    def __getstate__(self) -> dict:
        """Pickled without the hash: a string's hash differs in another process."""
        return {key: value for key, value in self.__dict__.items() if key != "_hash"}

    @cached_property
    def offsets(self) -> tuple[tuple[int, ...], ...]:
        """``offsets[u][i]`` is the flat index of the first job of campaign i of user u."""
        out, base = [], 0
        for user in self.users:
            row = []
            for camp in user.campaigns:
                row.append(base)
                base += len(camp.jobs)
            out.append(tuple(row))
        return tuple(out)

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        """Job lengths in flat job order."""
        return tuple(p for user in self.users for camp in user.campaigns for p in camp.jobs)

    def campaign_slice(self, u: int, i: int) -> range:
        lo = self.offsets[u][i]
        return range(lo, lo + len(self.users[u].campaigns[i].jobs))

    def user_slice(self, u: int) -> range:
        """Flat indexes of all of user u's jobs."""
        last = len(self.users[u].campaigns) - 1
        return range(self.offsets[u][0], self.campaign_slice(u, last).stop)

    @property
    def n_users(self) -> int:
        return len(self.users)


def size(instance: CampaignInstance) -> fields.Size:
    """Jobs and machines: what the worst-case search bounds."""
    return fields.Size(len(instance.lengths), instance.machines)


def parse(obj: dict) -> CampaignInstance:
    """The instance of a document that matches ``INSTANCE``."""
    users = tuple(User(tuple(Campaign(tuple(raw_camp["jobs"]), CAMPAIGN.value(raw_camp, "think_time"))
                             for raw_camp in raw_user["campaigns"]), USER.value(raw_user, "release"))
                  for raw_user in obj["users"])
    fields.total((p for user in users for camp in user.campaigns for p in camp.jobs), "users", "total work")
    fields.total((user.release + sum(camp.think_time for camp in user.campaigns) for user in users), "users",
                 "total of releases and think times")
    return CampaignInstance(obj["machines"], users, INSTANCE.value(obj, "name"), fields.meta(obj))


def to_json(instance: CampaignInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out["machines"] = instance.machines
    out["users"] = [
        {
            "release": user.release,
            "campaigns": [{"jobs": list(c.jobs), "think_time": c.think_time} for c in user.campaigns],
        }
        for user in instance.users
    ]
    return out


def schedule_to_json(instance: CampaignInstance, schedule: Schedule) -> dict[str, Any]:
    users = []
    for u, user in enumerate(instance.users):
        camps = []
        for i in range(len(user.campaigns)):
            camps.append({"jobs": [{"machine": schedule.machine[j], "start": schedule.start[j]}
                                   for j in instance.campaign_slice(u, i)]})
        users.append({"campaigns": camps})
    return {"users": users}


def schedule_from_json(instance: CampaignInstance, obj: dict) -> Schedule:
    """The schedule of a document that matches ``SCHEDULE``."""
    if len(obj["users"]) != instance.n_users:
        raise ScheduleFormatError("users", f"has {len(obj['users'])} users, the instance has {instance.n_users}")
    machine: list[int] = []
    start: list[int] = []
    for u, (raw_user, user) in enumerate(zip(obj["users"], instance.users)):
        if len(raw_user["campaigns"]) != len(user.campaigns):
            raise ScheduleFormatError(f"users[{u}].campaigns",
                                      f"must list the user's {len(user.campaigns)} campaigns")
        for i, (raw_camp, camp) in enumerate(zip(raw_user["campaigns"], user.campaigns)):
            q, s = read_job_list(raw_camp["jobs"], len(camp.jobs), f"users[{u}].campaigns[{i}].jobs")
            machine += q
            start += s
    return Schedule(tuple(machine), tuple(start))
