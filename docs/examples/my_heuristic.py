# docs/examples/my_heuristic.py
from schedbench.schedule import Schedule


def schedule(instance) -> Schedule:
    """SPT: each job, shortest first, on the machine that frees up first."""
    free = [0] * instance.machines
    machine, start = [0] * len(instance.jobs), [0] * len(instance.jobs)
    for j in sorted(range(len(instance.jobs)), key=lambda j: instance.jobs[j]):
        q = min(range(instance.machines), key=free.__getitem__)
        machine[j], start[j] = q, free[q]
        free[q] += instance.jobs[j]
    return Schedule(tuple(machine), tuple(start))
