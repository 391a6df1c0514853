"""SPEC's selfishness rule read literally, as a CP-SAT model: the test
oracle for the prefix form the MOSP models use (``solvers.cpsat.mosp``).

With T_k the last start of a job of k: (a) a foreign job on a machine of k
starts at >= T_k; (b) every machine q of k is busy throughout [0, T_k):
the jobs on q that start before T_k (any owner) have a total length
>= T_k and all end by it, so they tile [0, that total) without a gap. No
prefix, order or symmetry argument: slow, and only for tiny instances.
Without presolve: CP-SAT 9.15's refutes this model on feasible instances
(google/or-tools#5274; ``tests/contract/test_certificate.py``).
"""

from ortools.sat.python import cp_model


def least_makespan(spec, time_limit: float = 30.0) -> int | None:
    """The least makespan of a selfish instance under the literal rule
    (None: no schedule); AssertionError if CP-SAT does not prove it."""
    model, cmax = literal_model(spec)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 2
    solver.parameters.cp_model_presolve = False
    status = solver.solve(model)
    assert status in (cp_model.OPTIMAL, cp_model.INFEASIBLE), "the literal model proved nothing in time"
    return round(solver.objective_value) if status == cp_model.OPTIMAL else None


def literal_model(spec) -> tuple[cp_model.CpModel, cp_model.IntVar]:
    """The model minimising the makespan, and its makespan variable."""
    inst = spec.instance
    lengths, m, n = inst.lengths, inst.machines, len(inst.lengths)
    horizon = spec.horizon
    model = cp_model.CpModel()
    start = [model.new_int_var(0, spec.latest_completion(j) - p, f"s{j}") for j, p in enumerate(lengths)]
    on = [[model.new_bool_var(f"x{j}_{q}") for q in range(m)] for j in range(n)]
    for j in range(n):
        model.add_exactly_one(on[j])
    for q in range(m):
        model.add_no_overlap([model.new_optional_fixed_size_interval_var(start[j], lengths[j], on[j][q], "")
                              for j in range(n)])
    if inst.local_objective == "sum_ci":
        for k, ref in enumerate(spec.references):
            model.add(sum(start[j] + lengths[j] for j in inst.job_slice(k)) <= ref)
    for k in range(inst.n_organizations):
        own = inst.job_slice(k)
        if not own:
            continue
        last = model.new_int_var(0, horizon, f"T{k}")
        model.add_max_equality(last, [start[j] for j in own])
        for q in inst.machine_slice(k):
            for f in range(n):
                if inst.owner_of_job[f] != k:
                    model.add(start[f] >= last).only_enforce_if(on[f][q])  # (a)
            early = []
            for i in range(n):  # (b)
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
    cmax = model.new_int_var(0, horizon, "cmax")
    for j in range(n):
        model.add(start[j] + lengths[j] <= cmax)
    model.minimize(cmax)
    return model, cmax
