"""The MOSP paper's four heuristics (§4), each an event-driven list scheduler.

All four start from a local phase: every organization list-schedules its
own jobs on its own machines in a local order (LPT, SPT or the input order).
The second phase never delays a job against that local schedule:

- ILBA (§4.1): organizations by non-decreasing local makespan; for k = 2..N
  the jobs of the k-th are rescheduled in local order, each on the least
  loaded machine among those of the first k organizations;
- LPT-LPT and SPT-LPT (§4.2): machines serve their organization's queue in
  local order (LPT or SPT); a machine whose queue is empty takes the longest
  job not yet started, from any organization;
- Less Helped First (§4.3): the same, local order = input order, and an idle
  machine takes the next job of the organization that has received the
  least work from others so far (ties: lowest index).

``ilba-input`` is ILBA with the input order, the alternative reading of
§4.1 (which names no order; docs/readings.md). ``local_rule(name,
instance)`` names each heuristic's local order, so its schedule can be
checked against its own local schedule (``violations``).
"""

from collections import deque
from collections.abc import Callable
from heapq import heapify, heappop, heappush

from schedbench.schedule import Schedule
from schedbench.validator import Violation, validate
from schedbench.validator.mosp import check, local_values

ORDERS: dict[str, Callable] = {
    "lpt": lambda jobs, lengths: sorted(jobs, key=lambda j: (-lengths[j], j)),
    "spt": lambda jobs, lengths: sorted(jobs, key=lambda j: (lengths[j], j)),
    "input": lambda jobs, lengths: list(jobs),
}


def local_order(instance, k: int, rule: str) -> list[int]:
    return ORDERS[rule](instance.job_slice(k), instance.lengths)


def local_phase(instance, rule: str) -> Schedule:
    """Every organization alone on its own machines, list scheduling in local order."""
    machine = [0] * len(instance.lengths)
    start = [0] * len(instance.lengths)
    for k in range(instance.n_organizations):
        heap = [(0, q) for q in instance.machine_slice(k)]
        for j in local_order(instance, k, rule):
            t, q = heappop(heap)
            machine[j], start[j] = q, t
            heappush(heap, (t + instance.lengths[j], q))
    return Schedule(tuple(machine), tuple(start))


def ilba(instance) -> Schedule:
    """ILBA with the local order of the instance's local objective (LPT for cmax, SPT for sum_ci)."""
    return _ilba(instance, local_rule("ilba", instance))


def ilba_input(instance) -> Schedule:
    """ILBA with the organizations' jobs in input order (the other reading of §4.1)."""
    return _ilba(instance, local_rule("ilba-input", instance))


def _ilba(instance, rule: str) -> Schedule:
    local = local_phase(instance, rule)
    lengths = instance.lengths
    makespans = [max((local.start[j] + lengths[j] for j in instance.job_slice(k)), default=0)
                 for k in range(instance.n_organizations)]
    ranked = sorted(range(instance.n_organizations), key=lambda k: (makespans[k], k))
    machine, start = list(local.machine), list(local.start)
    first = ranked[0]
    heap = [(max((start[j] + lengths[j] for j in instance.job_slice(first) if machine[j] == q), default=0), q)
            for q in instance.machine_slice(first)]
    heapify(heap)
    for k in ranked[1:]:
        for q in instance.machine_slice(k):
            heappush(heap, (0, q))
        for j in sorted(instance.job_slice(k), key=lambda j: (local.start[j], local.machine[j])):
            t, q = heappop(heap)
            machine[j], start[j] = q, t
            heappush(heap, (t + lengths[j], q))
    return Schedule(tuple(machine), tuple(start))


def _two_phase(instance, rule: str, pick: Callable) -> Schedule:
    """Machines serve their own queue; an idle machine with an empty queue
    takes ``pick(waiting, received)``'s job, or None. ``waiting`` says
    whether a job has not started; ``received[k]`` is the work of k's jobs
    run by other organizations so far. Jobs taken by another machine are
    skipped when they reach a queue's head (lazy deletion: O(n log n))."""
    lengths = instance.lengths
    queues = [deque(local_order(instance, k, rule)) for k in range(instance.n_organizations)]
    waiting = [True] * len(lengths)
    received = [0] * instance.n_organizations
    machine = [0] * len(lengths)
    start = [0] * len(lengths)
    choose = pick(instance, queues, waiting)
    events = [(0, q) for q in range(instance.machines)]
    heapify(events)
    while events:
        t, q = heappop(events)
        own = queues[instance.owner_of_machine[q]]
        while own and not waiting[own[0]]:
            own.popleft()
        if own:
            j = own.popleft()
        else:
            j = choose(received)
            if j is None:
                continue  # nothing waits anywhere: this machine is done
            received[instance.owner_of_job[j]] += lengths[j]
        waiting[j] = False
        machine[j], start[j] = q, t
        heappush(events, (t + lengths[j], q))
    return Schedule(tuple(machine), tuple(start))


def _longest_waiting(instance, queues, waiting):
    """The longest job not started, from any organization (ties: lowest index)."""
    heap = [(-p, j) for j, p in enumerate(instance.lengths)]
    heapify(heap)

    def choose(received):
        while heap and not waiting[heap[0][1]]:
            heappop(heap)
        return heap[0][1] if heap else None
    return choose


def _less_helped(instance, queues, waiting):
    """The next job of the organization helped least so far (ties: lowest index)."""
    def choose(received):
        for queue in queues:
            while queue and not waiting[queue[0]]:
                queue.popleft()
        helped = [k for k, queue in enumerate(queues) if queue]
        return queues[min(helped, key=lambda k: (received[k], k))][0] if helped else None
    return choose


def lpt_lpt(instance) -> Schedule:
    return _two_phase(instance, "lpt", _longest_waiting)


def spt_lpt(instance) -> Schedule:
    return _two_phase(instance, "spt", _longest_waiting)


def less_helped_first(instance) -> Schedule:
    return _two_phase(instance, "input", _less_helped)


#: The paper's four; the claims ledger checks these.
PAPER_HEURISTICS: dict[str, Callable] = {"ilba": ilba, "lpt-lpt": lpt_lpt, "spt-lpt": spt_lpt,
                                         "less-helped-first": less_helped_first}
HEURISTICS: dict[str, Callable] = {**PAPER_HEURISTICS, "ilba-input": ilba_input}


def local_rule(name: str, instance) -> str:
    """The local order of heuristic ``name``: ILBA follows the local objective."""
    if name == "ilba":
        return "lpt" if instance.local_objective == "cmax" else "spt"
    return {"lpt-lpt": "lpt", "spt-lpt": "spt", "less-helped-first": "input", "ilba-input": "input"}[name]


def own_references(instance, name: str) -> list[int]:
    """Each organization's local value in heuristic ``name``'s own local phase."""
    return local_values(instance, local_phase(instance, local_rule(name, instance)))


def violations(instance, schedule: Schedule, objective: str | None, name: str) -> list[Violation]:
    """Heuristic ``name``'s schedule checked as the heuristic promises: the
    local constraints against its own local schedule (LPT/SPT/input order),
    which may be weaker than the format's optimal ref_k; ``unconstrained-makespan``
    has no local constraint at all."""
    if objective == "unconstrained-makespan":
        return validate(instance, schedule, objective)
    return check(instance, schedule, references=own_references(instance, name))
