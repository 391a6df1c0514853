"""0-1 knapsack instances (SPEC.md, family ``knapsack``): the job-selection
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

from schedbench.errors import ScheduleFormatError
from schedbench.model import fields

FAMILY = "knapsack"
OBJECTIVES = ("profit",)
MAXIMIZED = ("profit",)  # objectives maximised (the others are minimised)

Selection = tuple[int, ...]


@dataclass(frozen=True)
class Item:
    weight: int
    profit: int


@dataclass(frozen=True)
class KnapsackInstance:
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
    capacity = fields.nonnegative(fields.required(obj, "capacity", ""), "capacity")
    raw = fields.json_list(fields.required(obj, "items", ""), "items", non_empty=False)
    items = tuple(_item(item, f"items[{i}]") for i, item in enumerate(raw))
    fields.total((item.weight for item in items), "items", "total weight")
    fields.total((item.profit for item in items), "items", "total profit")
    return KnapsackInstance(capacity, items, str(obj.get("name", "")), fields.meta(obj))


def _item(obj: Any, where: str) -> Item:
    fields.json_object(obj, where)
    return Item(fields.nonnegative(fields.required(obj, "weight", where), f"{where}.weight"),
                fields.nonnegative(fields.required(obj, "profit", where), f"{where}.profit"))


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


def schedule_from_json(instance: KnapsackInstance, obj: Any) -> Selection:
    """Shape and types only; range, duplicates and capacity are the validator's question."""
    if isinstance(obj, dict):
        obj = obj.get("selected")
    if not isinstance(obj, list):
        raise ScheduleFormatError("selected", "must be a list of item indexes")
    for k, i in enumerate(obj):
        if not fields.is_int(i):
            raise ScheduleFormatError(f"selected[{k}]", f"must be an item index (integer), got {i!r}")
    return tuple(obj)
