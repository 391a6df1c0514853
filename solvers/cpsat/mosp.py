"""CP-SAT MOSP model (see ``solvers.mosp``).

Every job has a start s_j; at most m jobs run at once. With selfishness,
machines belong to organizations, so every job also has one optional
interval per machine, no overlap per machine. Local constraints bound each job's completion (cmax) or each
organization's sum of completions (sum_ci). Selfishness, with T_k the last
start of a job of k:
(a) a foreign job on a machine of k starts at >= T_k;
(b) every machine q of k is busy throughout [0, T_k): the jobs on q that
    start before T_k have a total length P_q >= T_k and all end by P_q,
    so they tile [0, P_q) without a gap.
"""

from ortools.sat.python import cp_model

from schedbench.solvers.cpsat import run
from schedbench.solvers.machines import assign_machines
from schedbench.solvers.outcome import ModelOutcome


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
        _selfishness(model, inst, start, on, horizon)
    minimise = floor is not None and floor < horizon
    if minimise:
        cmax = model.new_int_var(floor, horizon, "cmax")
        for j in range(n):
            model.add(start[j] + lengths[j] <= cmax)
        model.minimize(cmax)
    outcome = run(model, time_limit, machine + start, has_objective=minimise)
    if outcome.solution is not None and not inst.selfish:
        outcome.solution = assign_machines(outcome.solution, lengths, m) + outcome.solution
    return outcome


def _selfishness(model, inst, start, on, horizon) -> None:
    lengths = inst.lengths
    for k in range(inst.n_organizations):
        own = inst.job_slice(k)
        if not own:
            continue
        last = model.new_int_var(0, horizon, f"T{k}")
        model.add_max_equality(last, [start[j] for j in own])
        for q in inst.machine_slice(k):
            for f in range(len(lengths)):
                if inst.owner_of_job[f] != k:
                    model.add(start[f] >= last).only_enforce_if(on[f][q])  # (a)
            early = []
            for i in range(len(lengths)):  # (b): i on q and starting before T_k
                b = model.new_bool_var("")
                model.add_implication(b, on[i][q])
                model.add(start[i] < last).only_enforce_if(b)
                model.add(start[i] >= last).only_enforce_if([on[i][q], b.Not()])
                early.append(b)
            packed = model.new_int_var(0, horizon, "")
            model.add(packed == sum(lengths[i] * b for i, b in enumerate(early)))
            model.add(packed >= last)
            for i, b in enumerate(early):
                model.add(start[i] + lengths[i] <= packed).only_enforce_if(b)
