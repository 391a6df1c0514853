"""The campaign-scheduling claims of the FAIRCAMP and OStrich papers.

ρ is LPT's ratio 4/3 - 1/(3m), the inner algorithm used throughout. The
paper setting is release 0 and think time 0 for everyone (the FAIRCAMP
paper's model); claims marked ``.ext`` run the same check on instances with
release and think times, with FAIRCAMP's deadline rule
``d_i = max(d_{i-1}, t_i) + k Δ_i``, to see whether the claim survives them.
"""

from fractions import Fraction
from functools import cached_property

from schedbench.claims import PAPER, PROJECT, Check, Claim, NotProven
from schedbench.heuristics.campaign import camp, multicamp
from schedbench.heuristics.faircamp import faircamp_nondelay_run, faircamp_run
from schedbench.heuristics.fcfs import fcfs
from schedbench.heuristics.ostrich import ostrich_with_virtual
from schedbench.metrics.campaign import campaign_times, objective_value, user_flows
from schedbench.model.campaign import Campaign, CampaignInstance, User
from schedbench.result import OPTIMAL
from schedbench.solvers import solve
from schedbench.solvers.campaign import optimal_user_flows
from schedbench.solvers.pcmax import pcmax_optimum


class CampaignCase:
    """An instance with the schedules and exact optima the checks need, computed once."""

    def __init__(self, instance: CampaignInstance, solver: str = "cpsat", time_limit: float = 20.0):
        self.instance = instance
        self.solver = solver
        self.time_limit = time_limit
        self._optima: dict[str, Fraction] = {}

    @cached_property
    def rho(self) -> Fraction:
        return Fraction(4, 3) - Fraction(1, 3 * self.instance.machines)

    @cached_property
    def flows_star(self) -> list[int]:
        flows = optimal_user_flows(self.instance, self.solver, self.time_limit)
        if flows is None:
            raise NotProven("F_u*")
        return flows

    def optimum(self, objective: str) -> Fraction:
        if objective not in self._optima:
            result = solve(self.instance, objective, self.solver, self.time_limit)
            if result.status != OPTIMAL:
                raise NotProven(objective)
            self._optima[objective] = result.objective
        return self._optima[objective]

    @cached_property
    def faircamp(self):
        return faircamp_run(self.instance, "lpt")

    @cached_property
    def faircamp_nondelay(self):
        return faircamp_nondelay_run(self.instance, "lpt")

    @cached_property
    def ostrich(self):
        """OStrich's real schedule R (LPT inside) and its virtual fair share V."""
        return ostrich_with_virtual(self.instance, "lpt")

    @cached_property
    def ostrich_user_periods(self) -> list[list]:
        """Per user, the [start, end) periods it is active in OStrich's virtual schedule run to its end."""
        return self.ostrich[1].completed().user_periods

    @cached_property
    def no_campaign_optimum(self) -> int:
        found = pcmax_optimum(self.instance.lengths, self.instance.machines, self.solver, self.time_limit)
        if not found.optimal:
            raise NotProven("P||Cmax without campaigns")
        return found.makespan


def paper_setting(inst) -> bool:
    return all(u.release == 0 and all(c.think_time == 0 for c in u.campaigns) for u in inst.users)


def single_user(inst) -> bool:
    return inst.n_users == 1 and not inst.meta.get("construction")


def multi_user_paper(inst) -> bool:
    return inst.n_users > 1 and paper_setting(inst) and not inst.meta.get("construction")


def multi_user_extended(inst) -> bool:
    return inst.n_users > 1 and not paper_setting(inst) and not inst.meta.get("construction")


def multi_user(inst) -> bool:
    return inst.n_users > 1 and not inst.meta.get("construction")


def construction(name: str):
    return lambda inst: inst.meta.get("construction") == name


# --- FAIRCAMP paper -------------------------------------------------------

def prop2(case: CampaignCase) -> Check:
    """One user: F* <= γ C*max of the same jobs without campaigns."""
    f_star = case.flows_star[0]
    gamma = len(case.instance.users[0].campaigns)
    bound = gamma * case.no_campaign_optimum
    return Check(f_star <= bound, Fraction(f_star, bound), {"F*": f_star, "gamma": gamma,
                                                             "Cmax_nc*": case.no_campaign_optimum})


def prop3(case: CampaignCase) -> Check:
    """One user: camp(LPT) is within ρ of the optimal flow."""
    flow = user_flows(case.instance, camp(case.instance, "lpt"))[0]
    bound = case.rho * case.flows_star[0]
    return Check(flow <= bound, flow / bound, {"camp(LPT)": flow, "F*": case.flows_star[0], "rho": case.rho})


def prop4(case: CampaignCase) -> Check:
    """k users with n campaigns of m unit jobs: optimal max-user-stretch is k and
    optimal sum-user-flow is n k (k+1) / 2."""
    inst = case.instance
    k, n = inst.n_users, len(inst.users[0].campaigns)
    stretch = case.optimum("max-user-stretch")
    total = case.optimum("sum-user-flow")
    expected_total = Fraction(n * k * (k + 1), 2)
    ratio = max(stretch / k, k / stretch, total / expected_total, expected_total / total)
    return Check(stretch == k and total == expected_total, ratio,
                 {"max-user-stretch*": stretch, "k": k, "sum-user-flow*": total, "n k(k+1)/2": expected_total})


def prop5(case: CampaignCase) -> Check:
    """MULTICAMP: the user whose block is u-th has F_u <= u ρ F_u*."""
    inst = case.instance
    schedule = multicamp(inst, "lpt")
    flows = user_flows(inst, schedule)
    first_start = [min(schedule.start[j] for j in inst.user_slice(u)) for u in range(inst.n_users)]
    position = {u: rank + 1 for rank, u in enumerate(sorted(range(inst.n_users), key=lambda u: (first_start[u], u)))}
    ratios = [Fraction(flows[u]) / (position[u] * case.rho * case.flows_star[u]) for u in range(inst.n_users)]
    worst = max(range(inst.n_users), key=ratios.__getitem__)
    return Check(ratios[worst] <= 1, ratios[worst], {"user": worst, "position": position[worst],
                                                     "F_u": flows[worst], "F_u*": case.flows_star[worst]})


def prop6(case: CampaignCase) -> Check:
    """The FCFS construction (Fig. 3): FCFS's max-user-stretch is at least α
    times the optimum, α = longest / shortest workflow = p."""
    inst = case.instance
    alpha = Fraction(inst.meta["long"])
    value = objective_value(inst, fcfs(inst), "max-user-stretch", case.flows_star)
    ratio_to_opt = value / case.optimum("max-user-stretch")
    return Check(ratio_to_opt >= alpha, alpha / ratio_to_opt,
                 {"FCFS": value, "OPT": case.optimum("max-user-stretch"), "FCFS/OPT": ratio_to_opt, "alpha": alpha})


def prop7(case: CampaignCase, run: str = "faircamp") -> Check:
    """FAIRCAMP meets every deadline: C_i <= d_i. The largest C_i / d_i is 1
    on most instances (a campaign alone meets its deadline exactly), so the
    search also gets the mean C_i / d_i: instances whose campaigns all run
    close to their deadlines are the ones a little more contention breaks."""
    inst = case.instance
    found = getattr(case, run)
    times = campaign_times(inst, found.schedule)
    ratios = [(Fraction(t.completion, d), u, i) for u, (row, drow) in enumerate(zip(times, found.deadlines))
              for i, (t, d) in enumerate(zip(row, drow))]
    ratio, u, i = max(ratios)
    return Check(ratio <= 1, ratio, {"user": u, "campaign": i, "C_i": times[u][i].completion,
                                     "d_i": found.deadlines[u][i]},
                 sum(r for r, _, _ in ratios) / len(ratios))


def cor1(case: CampaignCase, run: str = "faircamp") -> Check:
    """FAIRCAMP: every user's flow is within k ρ of its optimum alone."""
    inst = case.instance
    flows = user_flows(inst, getattr(case, run).schedule)
    k = inst.n_users
    ratios = [Fraction(f) / (k * case.rho * star) for f, star in zip(flows, case.flows_star)]
    u = max(range(k), key=ratios.__getitem__)
    return Check(ratios[u] <= 1, ratios[u], {"user": u, "F_u": flows[u], "F_u*": case.flows_star[u], "k": k})


def thm1(case: CampaignCase, run: str = "faircamp") -> Check:
    """FAIRCAMP's max-user-stretch is within ρ of the optimal max-user-stretch."""
    inst = case.instance
    value = objective_value(inst, getattr(case, run).schedule, "max-user-stretch", case.flows_star)
    optimum = case.optimum("max-user-stretch")
    ratio = value / (case.rho * optimum)
    return Check(ratio <= 1, ratio, {run: value, "OPT": optimum, "rho": case.rho})


# --- OStrich paper --------------------------------------------------------

def ostrich_lemma1(case: CampaignCase) -> Check:
    """Lemma 1: from R's earliest to its latest job start, R's idle area
    exceeds V's by at most m p_max (V idles only while no campaign is active in it)."""
    inst = case.instance
    schedule, virtual = case.ostrich
    first, last = min(schedule.start), max(schedule.start)
    m, pmax = inst.machines, max(inst.lengths)

    def overlap(begin, end) -> Fraction:
        return max(Fraction(0), Fraction(min(end, last)) - max(begin, first))

    idle_real = m * (last - first) - sum(overlap(s, s + p) for s, p in zip(schedule.start, inst.lengths))
    idle_virtual = m * (last - first - sum(overlap(begin, end) for begin, end in virtual.busy_periods))
    excess = idle_real - idle_virtual
    return Check(excess <= m * pmax, excess / (m * pmax),
                 {"idle R": idle_real, "idle V": idle_virtual, "m p_max": m * pmax})


def _ostrich_terms(case: CampaignCase, users: str):
    """Per campaign of OStrich's schedule: (user, index, its times, W_{i-1},
    W_i, pmax_i, k). k is the largest number of users active in the virtual
    schedule V (k~(t), §4) while the campaign runs in R (``users``
    "active", footnote 5: "the biggest value it assumes during the
    execution of the campaign"), or every user ("all", the looser reading)."""
    inst = case.instance
    times = campaign_times(inst, case.ostrich[0])
    periods = case.ostrich_user_periods if users == "active" else None
    for u, user in enumerate(inst.users):
        for i, c in enumerate(user.campaigns):
            previous = user.campaigns[i - 1].work if i else 0
            t = times[u][i]
            k = inst.n_users if periods is None else most_active_users(periods, t.submission, t.completion)
            yield u, i, t, previous, c.work, max(c.jobs), k


def most_active_users(periods: list[list], begin, end) -> int:
    """The most users active at one instant of [begin, end), each user's
    activity given as [start, end) periods."""
    def active(at) -> int:
        return sum(any(start <= at < stop for start, stop in row) for row in periods)

    instants = {begin} | {start for row in periods for start, _ in row if begin < start < end}
    return max(active(at) for at in instants)


def ostrich_lemma2(case: CampaignCase, users: str = "active") -> Check:
    """Lemma 2 (5.1): C_i <= t_i + k W_{i-1}/m + p_max + (k-1) W_i/m + p_max + W_i/m + p_max^u."""
    inst = case.instance
    m, pmax = inst.machines, max(inst.lengths)

    def term(u, i, t, w_prev, w, pmax_i, k):
        bound = t.submission + Fraction(k * w_prev, m) + pmax + Fraction((k - 1) * w, m) + pmax + Fraction(w, m) + pmax_i
        return Fraction(t.flow) / (bound - t.submission), u, i, t.completion, bound, k

    ratio, u, i, completion, bound, k = max(term(*x) for x in _ostrich_terms(case, users))
    return Check(ratio <= 1, ratio, {"user": u, "campaign": i, "C_i": completion, "bound": bound, "k": k})


def ostrich_thm1(case: CampaignCase, users: str = "active") -> Check:
    """Theorem 1: D_i <= k (1 + W_{i-1}/W_i) + 3 m p_max."""
    m, pmax = case.instance.machines, max(case.instance.lengths)

    def term(u, i, t, w_prev, w, pmax_i, k):
        stretch = Fraction(t.flow) / max(Fraction(w, m), Fraction(pmax_i))
        bound = k * (1 + Fraction(w_prev, w)) + 3 * m * pmax
        return stretch / bound, u, i, stretch, bound, k

    ratio, u, i, stretch, bound, k = max(term(*x) for x in _ostrich_terms(case, users))
    return Check(ratio <= 1, ratio, {"user": u, "campaign": i, "stretch": stretch, "bound": bound, "k": k})


CLAIMS = [
    Claim("faircamp.prop2", "FAIRCAMP Prop. 2: one user, F* <= γ C*max(no campaigns)", single_user, prop2, PAPER),
    Claim("faircamp.prop3", "FAIRCAMP Prop. 3: camp(LPT) <= ρ F* (ρ = 4/3 - 1/3m)", single_user, prop3, PAPER),
    Claim("faircamp.prop4", "FAIRCAMP Prop. 4: unit construction, OPT max-user-stretch = k, "
                            "OPT sum-user-flow = n k(k+1)/2", construction("unit_campaigns"), prop4, PAPER),
    Claim("faircamp.prop5", "FAIRCAMP Prop. 5: MULTICAMP, u-th block F_u <= u ρ F_u*", multi_user_paper, prop5, PAPER),
    Claim("faircamp.prop6", "FAIRCAMP Prop. 6: FCFS construction, FCFS / OPT >= α", construction("fcfs_trap"), prop6, PAPER),
    Claim("faircamp.prop7", "FAIRCAMP Prop. 7: every deadline met (C_i <= d_i)", multi_user_paper, prop7, PAPER),
    Claim("faircamp.prop7.ext", "FAIRCAMP Prop. 7 with release and think times: every deadline met", multi_user_extended, prop7, PROJECT),
    Claim("faircamp.cor1", "FAIRCAMP Cor. 1: F_u <= k ρ F_u*", multi_user_paper, cor1, PAPER),
    Claim("faircamp.cor1.ext", "FAIRCAMP Cor. 1 with release and think times: F_u <= k ρ F_u*", multi_user_extended, cor1, PROJECT),
    Claim("faircamp.thm1", "FAIRCAMP Thm. 1: max-user-stretch <= ρ OPT", multi_user_paper, thm1, PAPER),
    Claim("faircamp.thm1.ext", "FAIRCAMP Thm. 1 with release and think times: max-user-stretch <= ρ OPT", multi_user_extended, thm1, PROJECT),
    Claim("faircamp_nondelay.prop7", "FAIRCAMP Prop. 7 for the non-delay variant: every deadline met", multi_user_paper,
          lambda case: prop7(case, "faircamp_nondelay"), PROJECT),
    Claim("faircamp_nondelay.cor1", "FAIRCAMP Cor. 1 for the non-delay variant: F_u <= k ρ F_u*", multi_user_paper,
          lambda case: cor1(case, "faircamp_nondelay"), PROJECT),
    Claim("faircamp_nondelay.thm1", "FAIRCAMP Thm. 1 for the non-delay variant: max-user-stretch <= ρ OPT", multi_user_paper,
          lambda case: thm1(case, "faircamp_nondelay"), PROJECT),
    Claim("ostrich.lemma1", "OStrich Lemma 1: from R's first to last job start, idle area of R <= idle area of V "
                            "+ m p_max", multi_user, ostrich_lemma1, PAPER),
    Claim("ostrich.lemma2", "OStrich Lemma 2: C_i <= t_i + k W_{i-1}/m + (k-1) W_i/m + W_i/m + 2 p_max + p_max^u",
          multi_user, ostrich_lemma2, PAPER),
    Claim("ostrich.thm1", "OStrich Thm. 1: D_i <= k (1 + W_{i-1}/W_i) + 3 m p_max", multi_user, ostrich_thm1, PAPER),
    Claim("ostrich.lemma2.all-users", "OStrich Lemma 2 with k = all users (footnote 5 reads k as the active users)",
          multi_user, lambda case: ostrich_lemma2(case, "all"), PROJECT),
    Claim("ostrich.thm1.all-users", "OStrich Thm. 1 with k = all users (footnote 5 reads k as the active users)",
          multi_user, lambda case: ostrich_thm1(case, "all"), PROJECT),
]


def smaller_instances(inst: CampaignInstance):
    """One-step reductions of a campaign instance, biggest first (for shrinking)."""
    users = list(inst.users)

    def rebuild(new_users, machines=inst.machines):
        return CampaignInstance(machines, tuple(new_users), inst.name, dict(inst.meta))

    if len(users) > 1:
        for u in range(len(users)):
            yield rebuild(users[:u] + users[u + 1:])
    for u, user in enumerate(users):
        camps = list(user.campaigns)
        for i in range(len(camps)):
            if len(camps) > 1:
                yield rebuild(users[:u] + [User(tuple(camps[:i] + camps[i + 1:]), user.release)] + users[u + 1:])
    if inst.machines > 1:
        yield rebuild(users, inst.machines - 1)
    for u, user in enumerate(users):
        camps = list(user.campaigns)
        for i, c in enumerate(camps):
            variants = []
            if len(c.jobs) > 1:
                variants += [Campaign(c.jobs[:j] + c.jobs[j + 1:], c.think_time) for j in range(len(c.jobs))]
            for j, p in enumerate(c.jobs):
                for q in sorted({1, p // 2, p - 1} - {0, p}):
                    variants.append(Campaign(c.jobs[:j] + (q,) + c.jobs[j + 1:], c.think_time))
            if c.think_time:
                variants += [Campaign(c.jobs, 0), Campaign(c.jobs, c.think_time - 1)]
            for v in variants:
                yield rebuild(users[:u] + [User(tuple(camps[:i] + [v] + camps[i + 1:]), user.release)] + users[u + 1:])
        if user.release:
            for r in sorted({0, user.release - 1}):
                yield rebuild(users[:u] + [User(user.campaigns, r)] + users[u + 1:])
