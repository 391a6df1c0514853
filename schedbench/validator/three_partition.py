"""3-PARTITION certificates: q triples that use every item once, each summing to B."""

from collections import Counter

from schedbench.validator.violation import Violation

FAMILY = "three_partition"


def check(instance, certificate, objective: str | None = None, references=None) -> list[Violation]:
    n, q = len(instance.items), instance.triples
    out = []
    if len(certificate) != q:
        out.append(Violation("shape", "certificate", f"{len(certificate)} triples, the instance needs {q}"))
    used = Counter(i for triple in certificate for i in triple)
    for i, times in sorted(used.items()):
        if not 0 <= i < n:
            out.append(Violation("item-range", f"item {i}", f"is not in 0..{n - 1}"))
        elif times > 1:
            out.append(Violation("item-twice", f"item {i}", f"is in {times} triples"))
    for i in range(n):
        if i not in used:
            out.append(Violation("item-missing", f"item {i}", "is in no triple"))
    for t, triple in enumerate(certificate):
        if all(0 <= i < n for i in triple):
            total = sum(instance.items[i] for i in triple)
            if total != instance.bound:
                out.append(Violation("triple-sum", f"certificate[{t}]", f"sums to {total}, not B = {instance.bound}"))
    return out
