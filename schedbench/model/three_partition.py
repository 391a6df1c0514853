"""3-PARTITION instances (the format reference, family ``three_partition``).

Valid only with 3q items summing to qB, each strictly between B/4 and B/2
(so any triple summing to B has exactly three items). A solution is a
certificate, a list of q triples of item indexes, which takes the place of
a schedule (``schedule_to_json`` / ``schedule_from_json``): its JSON is
``{"certificate": [[i, j, k], ...]}``.
"""

from dataclasses import dataclass, field
from typing import Any

from schedbench.errors import BeyondSchemaError
from schedbench.model import fields
from schedbench.model.shape import LENGTH, AnyInteger, Key, List, Record, header

FAMILY = "three_partition"
OBJECTIVES = ("decision",)

Certificate = tuple[tuple[int, int, int], ...]
INSTANCE = header(FAMILY, (
    Key("bound", LENGTH, doc="B, what each triple must sum to."),
    Key("items", List(LENGTH, min_items=1),
        doc="The 3q items a_i: they sum to qB, each strictly between B/4 and B/2."),
))
SCHEDULE = Record((Key("certificate", List(List(AnyInteger(), min_items=3, max_items=3)),
                       doc="q triples of item indexes, each summing to B."),))


@dataclass(frozen=True)
class ThreePartitionInstance:
    """3-PARTITION: the 3q ``items`` and the ``bound`` B each triple sums to."""

    bound: int
    items: tuple[int, ...]
    name: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    family = FAMILY

    @property
    def triples(self) -> int:
        """q: the number of triples."""
        return len(self.items) // 3


def size(instance: ThreePartitionInstance) -> fields.Size:
    """Numbers and triples (the machines of its mosp reduction): what the worst-case search bounds."""
    return fields.Size(len(instance.items), len(instance.items) // 3)


def parse(obj: dict) -> ThreePartitionInstance:
    """The instance of a document that matches ``INSTANCE``, if the format's three conditions hold."""
    items = tuple(obj["items"])
    fields.total(items, "items", "total of the items")
    return checked(ThreePartitionInstance(obj["bound"], items, INSTANCE.value(obj, "name"), fields.meta(obj)))


def checked(instance: ThreePartitionInstance) -> ThreePartitionInstance:
    """The instance if the format's three conditions hold, else an error naming the field."""
    b, items = instance.bound, instance.items
    if len(items) % 3:
        raise BeyondSchemaError("items", f"must hold 3q items, got {len(items)}")
    q = len(items) // 3
    if sum(items) != q * b:
        raise BeyondSchemaError("items", f"must sum to q*B = {q}*{b} = {q * b}, got {sum(items)}")
    for i, a in enumerate(items):
        if not b < 4 * a or not 2 * a < b:  # B/4 < a < B/2, in integers
            raise BeyondSchemaError(f"items[{i}]", f"{a} is not strictly between B/4 = {b / 4:g} and B/2 = {b / 2:g}")
    return instance


def to_json(instance: ThreePartitionInstance) -> dict[str, Any]:
    out = fields.document_header(FAMILY, instance.name, instance.meta)
    out.update(bound=instance.bound, items=list(instance.items))
    return out


def schedule_to_json(instance: ThreePartitionInstance, certificate: Certificate) -> dict[str, Any]:
    return {"certificate": [list(t) for t in certificate]}


def result_fields(instance: ThreePartitionInstance, certificate: Certificate) -> dict[str, Any]:
    """The keys ``solve --json`` adds (the format reference: the triples as "certificate")."""
    return schedule_to_json(instance, certificate)


def schedule_from_json(instance: ThreePartitionInstance, obj: dict) -> Certificate:
    """The certificate of a document that matches ``SCHEDULE``; whether it
    is a 3-partition is the validator's question."""
    return tuple(tuple(triple) for triple in obj["certificate"])
