"""0-1 knapsack instances (the format reference, family ``knapsack``): the job-selection
phase of DSSP (two-phase rendering paper, §2.2), items standing for jobs.

An empty item list is a valid instance (the selection phase may find no
job worth considering); its optimum is 0. A solution is the tuple of
selected item indexes, which takes the place of a schedule
(``schedule_to_json`` / ``schedule_from_json``): its JSON is
``{"selected": [i, ...]}``.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from schedbench.model import fields
from schedbench.model.shape import NONNEGATIVE, AnyInteger, Key, List, Record, header

FAMILY = "knapsack"
OBJECTIVES = ("profit",)
MAXIMIZED = ("profit",)  # objectives maximised (the others are minimised)

Selection = tuple[int, ...]
ITEM = Record((Key("weight", NONNEGATIVE, doc="The item's weight."), Key("profit", NONNEGATIVE, doc="Its profit.")))
INSTANCE = header(FAMILY, (
    Key("capacity", NONNEGATIVE, doc="C, the largest total weight."),
    Key("items", List(ITEM), doc="The items (may be empty: the optimum is then 0)."),
))
SCHEDULE = Record((Key("selected", List(AnyInteger()), doc="The indexes of the selected items."),))


@dataclass(frozen=True)
class Item:
    weight: int
    profit: int


@dataclass(frozen=True)
class KnapsackInstance:
    """0-1 knapsack: the ``capacity`` and the ``items`` (each an ``Item``
    with ``weight`` and ``profit``); ``weights`` and ``profits`` as tuples."""

    capacity: int
    items: tuple[Item, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    @cached_property
    def weights(self) -> tuple[int, ...]:
        """Built once: the greedy and the models read it per item."""
        return tuple(item.weight for item in self.items)

    @cached_property
    def profits(self) -> tuple[int, ...]:
        return tuple(item.profit for item in self.items)

    def weight_of(self, selected: Iterable[int]) -> int:
        return sum(self.items[i].weight for i in selected)

    def profit_of(self, selected: Iterable[int]) -> int:
        return sum(self.items[i].profit for i in selected)


def size(instance: KnapsackInstance) -> fields.Size:
    """Items and one knapsack: what the worst-case search bounds."""
    return fields.Size(len(instance.items), 1)


def parse(obj: dict) -> KnapsackInstance:
    """The instance of a document that matches ``INSTANCE``."""
    items = tuple(Item(raw["weight"], raw["profit"]) for raw in obj["items"])
    fields.total((item.weight for item in items), "items", "total weight")
    fields.total((item.profit for item in items), "items", "total profit")
    return KnapsackInstance(obj["capacity"], items, INSTANCE.value(obj, "name"), fields.meta(obj))


def to_json(instance: KnapsackInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(capacity=instance.capacity,
               items=[{"weight": item.weight, "profit": item.profit} for item in instance.items])
    return out


def schedule_to_json(instance: KnapsackInstance, selected: Selection) -> dict[str, Any]:
    return {"selected": list(selected)}


def result_fields(instance: KnapsackInstance, selected: Selection) -> dict[str, Any]:
    """The keys ``solve --json`` adds: the selected items."""
    return schedule_to_json(instance, selected)


def schedule_from_json(instance: KnapsackInstance, obj: dict) -> Selection:
    """The selection of a document that matches ``SCHEDULE``; range,
    duplicates and capacity are the validator's question."""
    return tuple(obj["selected"])
