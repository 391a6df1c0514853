"""CP-SAT campaign model (see ``solvers.campaign.spec`` for the algebra).

Default formulation ``cumulative``: one interval per job in a capacity-m
cumulative (a no-overlap when m = 1); machines are restored afterwards, so
the model has no machine symmetry at all. Redundant constraints bound
when sets of campaigns of several users can end (``_finish_bounds``), and
the solver runs with its stronger cumulative reasoning (``PARAMETERS``).
The plain alternative
``machines`` gives each job an optional interval per machine with a
no-overlap per machine, for the benchmark that compares the two.
"""

from types import MappingProxyType

from ortools.sat.python import cp_model

from schedbench.solvers.campaign.spec import CampaignSpec
from schedbench.solvers.cpsat import run
from schedbench.solvers.exact.outcome import ModelOutcome

FORMULATIONS = ("cumulative", "machines")

#: CP-SAT's stronger cumulative reasoning (timetable edge finding, the
#: overload checker) and its full linearization. With them and the finish
#: bounds (``CampaignSpec.finish_bounds``) one worker proves 10 of 10
#: sum-user-flow instances of 42 jobs within 10 s; with either alone, 3 and
#: 2 of 10 (training seeds 5000-5009 of the frontier's campaign line, apart
#: from its own seeds).
PARAMETERS = MappingProxyType({"use_timetable_edge_finding_in_cumulative": True,
                               "use_overload_checker_in_cumulative": True, "linearization_level": 2})


def _variables(model, spec: CampaignSpec):
    inst, horizon = spec.instance, spec.horizon
    starts, ends, intervals = [], [], []
    for j, _, _, earliest, latest in spec.start_windows():
        p = inst.lengths[j]
        s = model.new_int_var(earliest, latest, f"s{j}")
        starts.append(s)
        ends.append(s + p)
        intervals.append(model.new_fixed_size_interval_var(s, p, f"job{j}"))
    completion = [[model.new_int_var(0, horizon, f"C{u}_{i}") for i in range(len(user.campaigns))]
                  for u, user in enumerate(inst.users)]
    return starts, ends, intervals, completion


def _campaign_constraints(model, spec: CampaignSpec, starts, ends, completion) -> list[list]:
    """C_i = max end (exact); t_1 = release, t_{i+1} = C_i + think; s_j >= t_i;
    Δ_i >= the campaign's optimum alone (a valid cut); returns t_i."""
    inst = spec.instance
    submission = []
    for u, user in enumerate(inst.users):
        row = []
        for i, camp in enumerate(user.campaigns):
            jobs = inst.campaign_slice(u, i)
            t = user.release if i == 0 else completion[u][i - 1] + camp.think_time
            row.append(t)
            model.add_max_equality(completion[u][i], [ends[j] for j in jobs])
            for j in jobs:
                model.add(starts[j] >= t)
            model.add(completion[u][i] >= t + spec.campaign_lower[u][i])
        submission.append(row)
    for a, b in spec.equal_length_pairs():
        model.add(starts[a] <= starts[b])
    return submission


def _capacity(model, spec: CampaignSpec, starts, intervals):
    """At most m jobs at any time."""
    m = spec.instance.machines
    lengths = spec.instance.lengths
    if m == 1:
        model.add_no_overlap(intervals)
        return
    if spec.formulation in ("default", "cumulative"):
        model.add_cumulative(intervals, [1] * len(intervals), m)
        return
    per_machine = [[] for _ in range(m)]
    for j, s in enumerate(starts):
        present = [model.new_bool_var(f"x{j}_{q}") for q in range(m)]
        model.add_exactly_one(present)
        for q, lit in enumerate(present):
            per_machine[q].append(model.new_optional_fixed_size_interval_var(s, lengths[j], lit, f"o{j}_{q}"))
    for q in range(m):
        model.add_no_overlap(per_machine[q])


def _finish_bounds(model, spec: CampaignSpec, completion):
    """Redundant: the last of any chosen campaigns of two users or more ends
    no earlier than their ``finish_bound`` (valid in every schedule)."""
    for ends, bound in spec.finish_bounds():
        last = model.new_int_var(0, spec.horizon, "")
        model.add_max_equality(last, [completion[u][i] for u, i in ends.items()])
        model.add(last >= bound)


def _limits_and_objective(model, spec: CampaignSpec, completion, submission):
    inst = spec.instance
    for u, user in enumerate(inst.users):
        last = completion[u][-1]
        if spec.flow_limit is not None and spec.flow_limit[u] is not None:
            model.add(last <= spec.flow_limit[u] + spec.flow_offset(u))
        if spec.delta_limit is not None:
            for i in range(len(user.campaigns)):
                if spec.delta_limit[u][i] is not None:
                    model.add(completion[u][i] - submission[u][i] <= spec.delta_limit[u][i])
    if spec.objective == "sum-user-flow":
        total = sum(completion[u][-1] - spec.flow_offset(u) for u in range(inst.n_users))
        model.add(total >= spec.sum_flow_lower_bound)
        if spec.cutoff is not None:
            model.add(total <= spec.cutoff)
        model.minimize(total)


def solve(spec: CampaignSpec, time_limit: float) -> ModelOutcome:
    """Solve the model; ``solution`` holds every job's start time."""
    if spec.trivially_infeasible():
        return ModelOutcome("infeasible", None, None, None)
    model = cp_model.CpModel()
    starts, ends, intervals, completion = _variables(model, spec)
    submission = _campaign_constraints(model, spec, starts, ends, completion)
    _capacity(model, spec, starts, intervals)
    _finish_bounds(model, spec, completion)
    _limits_and_objective(model, spec, completion, submission)
    if spec.hint is not None:
        for var, value in zip(starts, spec.hint):
            model.add_hint(var, value)
    return run(model, time_limit, starts, has_objective=spec.objective is not None, parameters=PARAMETERS)
