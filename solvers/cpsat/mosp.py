"""CP-SAT MOSP model (see ``solvers.mosp``).

Every job has a start s_j; at most m jobs run at once. Local constraints
bound each job's completion (cmax) or each organization's sum of
completions (sum_ci). With selfishness, machines belong to organizations:
every job also has one optional interval per machine, no overlap per
machine, and the rule takes its prefix form.

The prefix form. Let T_k be the last start of a job of k. the format's rule says
no foreign job starts on a machine q of k before T_k and q is busy
throughout [0, T_k); so only k's jobs run on q before T_k, they tile it,
and a job of k placed on q, starting by T_k, cannot start after a gap:
k's jobs on q run first, from 0 without a gap, P_q in all (P_q >= T_k
since q is busy), and foreign jobs on q start at >= P_q. Conversely such
a schedule with every job of k starting by min over k's machines of P_q
meets the rule. Within a prefix only the order is free, and shortest
first is best for everything that sees it (the last start, P_q minus the
longest, and the sum of completions; P_q itself is fixed), so each
prefix job's start is the lengths before it in that order: placements
alone decide the prefixes. The machines of one organization are
interchangeable, so their prefixes are ordered. Tested against the format's
rule read literally (``tests/mosp_literal_model.py``).
"""

from types import MappingProxyType

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run
from schedbench.solvers.exact.machines import assign_machines
from schedbench.solvers.exact.outcome import ModelOutcome

#: No LP relaxation in the selfish model's search: on training seeds apart
#: from the frontier's (sum_ci selfish, about 35 jobs) CP-SAT proves 17 of
#: 20 within 10 s with it off, 7 of 20 with the default (the placements'
#: LP is weak; its cost slows the search for a schedule at the bound).
SELFISH_PARAMETERS = MappingProxyType({"linearization_level": 0})


def decide(spec, cap: int, time_limit: float, floor: int | None = None) -> ModelOutcome:
    """A valid schedule with makespan <= ``cap``, or a refutation; with
    ``floor`` (a lower bound) below ``cap``, the one of least makespan in
    [floor, cap]. No hint: the caps asked lie below every known schedule.

    Without selfishness the machines are interchangeable (local constraints
    only see completion times), so a capacity-m cumulative replaces the
    machines and ``assign_machines`` restores them: no machine symmetry."""
    inst = spec.instance
    lengths, m = inst.lengths, inst.machines
    n = len(lengths)
    horizon = min(cap, spec.horizon)
    model = cp_model.CpModel()
    start = [model.new_int_var(0, min(spec.latest_completion(j), horizon) - p, f"s{j}") for j, p in enumerate(lengths)]
    model.add_cumulative([model.new_fixed_size_interval_var(start[j], lengths[j], "") for j in range(n)], [1] * n, m)
    for a, b in spec.twins():
        model.add(start[a] <= start[b])
    if inst.local_objective == "sum_ci":
        for k, ref in enumerate(spec.references):
            model.add(sum(start[j] + lengths[j] for j in inst.job_slice(k)) <= ref)
    machine = []
    if inst.selfish:
        on = [[model.new_bool_var(f"x{j}_{q}") for q in range(m)] for j in range(n)]
        for j in range(n):
            model.add_exactly_one(on[j])
            machine.append(sum(q * on[j][q] for q in range(m)))
        for q in range(m):
            model.add_no_overlap([model.new_optional_fixed_size_interval_var(start[j], lengths[j], on[j][q], "")
                                  for j in range(n)])
        _selfishness(model, spec, start, on, horizon)
    minimise = floor is not None and floor < horizon
    if minimise:
        cmax = model.new_int_var(floor, horizon, "cmax")
        for j in range(n):
            model.add(start[j] + lengths[j] <= cmax)
        model.minimize(cmax)
    outcome = run(model, time_limit, machine + start, has_objective=minimise,
                  parameters=SELFISH_PARAMETERS if inst.selfish else {})
    if outcome.solution is not None and not inst.selfish:
        outcome.solution = assign_machines(outcome.solution, lengths, m) + outcome.solution
    return outcome


def _selfishness(model, spec, start, on, horizon) -> None:
    """The prefix form (module docstring): P_q, prefix starts by placement,
    every start of k by each P_q of k, foreign jobs after it."""
    inst = spec.instance
    lengths = inst.lengths
    for k in range(inst.n_organizations):
        own = list(inst.job_slice(k))
        if not own:
            continue
        order = spec.prefix_order(k)
        prefixes: list = []
        for q in inst.machine_slice(k):
            prefix = model.new_int_var(0, horizon, f"P{q}")
            model.add(prefix == sum(lengths[i] * on[i][q] for i in own))
            if prefixes:
                model.add(prefix <= prefixes[-1])  # the machines of k are interchangeable
            prefixes.append(prefix)
            for position, i in enumerate(order):
                model.add(start[i] == sum(lengths[h] * on[h][q] for h in order[:position])).only_enforce_if(on[i][q])
            for j in own:
                model.add(start[j] <= prefix)
            for f in range(len(lengths)):
                if inst.owner_of_job[f] != k:
                    model.add(start[f] >= prefix).only_enforce_if(on[f][q])
