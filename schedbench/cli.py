"""The ``schedbench`` command (SPEC.md, "Command contract").

Bad input (instance, schedule, option) prints one line on stderr and exits
with code 2; it never shows a traceback.
"""

import json
import sys
from pathlib import Path

import click

from schedbench.errors import UserInputError

EXIT_BAD_INPUT = 2


def _emit(obj) -> None:
    click.echo(json.dumps(obj, sort_keys=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Exact optima, heuristics and claim checks for multi-user scheduling.

    Instances are JSON files in the formats of SPEC.md (pcmax, campaign,
    mosp, three_partition, dssp, knapsack, workflow). Every schedule printed
    passes the independent validator. Experiments (run, merge, export,
    table, plot, report) and certified ground truth (certify, regress)
    work on a results store.
    """


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--objective", help="Objective name; default: the family's first (pcmax: makespan, campaign: user-flow).")
@click.option("--solver", default="cpsat", show_default=True,
              help="Exact backend: cpsat (OR-Tools CP-SAT) or milp (campaign: PuLP + CBC; pcmax: arc-flow through "
                   "OR-Tools); pcmax also takes portfolio (arc-flow LP bound, arc-flow MILP, CP-SAT).")
@click.option("--time-limit", type=float, default=None, help="Seconds for the whole solve (default 60).")
@click.option("--formulation", default="default", show_default=True,
              help="Campaign models only: cpsat cumulative|machines, milp time-indexed|big-m.")
@click.option("--json", "as_json", is_flag=True, help="Print SPEC's JSON result object.")
def solve(file, objective, solver, time_limit, formulation, as_json) -> None:
    """Solve FILE exactly (or return the best schedule and proven bound on a time limit).

    The status is "optimal" only when proven; the objective is recomputed
    exactly from the returned schedule; ratio objectives also give
    objective_fraction [num, den].
    """
    from schedbench.model import load_instance
    from schedbench.report import result_json
    from schedbench.solvers import solve as run_solve
    from schedbench.validator import validate

    instance = load_instance(file)
    _check_formulation(instance, solver, formulation)
    result = run_solve(instance, objective, solver, time_limit, formulation)
    objective = objective or _default_objective(instance)
    if result.schedule is not None:
        violations = validate(instance, result.schedule, objective)
        if violations:
            raise AssertionError(f"solver produced an invalid schedule: {violations[0]}")
    out = result_json(instance, result, objective)
    if as_json:
        _emit(out)
    else:
        click.echo(f"{out['status']}: {objective} = {_show(result.objective)} (bound {_show(result.bound)}), "
                   f"{solver} {result.method}, {result.wall_time:.3f} s")


@cli.command()
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--inner", default=None, help="Inner algorithm A (list, lpt, spt, mlpt; OStrich: lpt, spt, list).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds per campaign for the P||Cmax optima behind F_u* (max-user-stretch).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="workflow: drives the cascade of jobs to clusters, Random and the normal estimate error.")
@click.option("--estimate", default=None, metavar="normal:N|log:M",
              help="workflow: inaccurate estimates (§2.2), normal error of N percent or log rounding to base M.")
@click.option("--ccr", default=None, help="workflow: network delays (§2.4) with this CCR in (0, 1], e.g. 0.2 or 1/5.")
@click.option("--network-exponent", type=int, default=None,
              help="workflow: p of the network speed levels^p (Eq. 3), with --ccr; default -1.")
@click.option("--json", "as_json", is_flag=True, help="Print the schedule and its metrics as JSON.")
def heuristic(name, file, inner, time_limit, seed, estimate, ccr, network_exponent, as_json) -> None:
    """Run heuristic NAME on FILE and print the schedule with its exact metrics.

    pcmax: list, lpt, spt, mlpt. campaign: fcfs, faircamp, faircamp_nondelay,
    ostrich, multicamp, camp (one user). max-user-stretch is reported only
    when every F_u* is proven within --time-limit. mosp: ilba, lpt-lpt,
    spt-lpt, less-helped-first; the schedule must keep the local constraints
    against the heuristic's own local schedule, and any breach of SPEC's
    reference (ref_k) is reported, not hidden. dssp: lcpf, stcpu, random
    (two-phase, §4.4's tuned r), lcpf-r0 (Theorem 1's r_0), priority (no
    selection); reward with the paper's knapsack bound and the LP bound.
    workflow: random, fifo-task, fifo-job, fair-share, srtf, lrtf, pslr
    (online list scheduling on the instance's clusters, §4.2), with exact
    SLRs, their Gini coefficient, the worst wait and the §3 class.
    knapsack: dp, ortools (the exact selectors of the DSSP selection phase).
    """
    from schedbench.heuristics import registry
    from schedbench.model import load_instance, schedule_to_json
    from schedbench.validator import validate

    instance = load_instance(file)
    heuristics = registry(instance.family)
    if inner and instance.family != "campaign":
        raise UserInputError("--inner", f"only campaign heuristics take an inner algorithm, not {instance.family}")
    if name not in heuristics:
        raise UserInputError("NAME", f"unknown {instance.family} heuristic {name!r} "
                                     f"(known: {', '.join(heuristics) or 'none for this family'})")
    options = _workflow_options(instance, seed, estimate, ccr, network_exponent)
    schedule = heuristics[name](instance, **({"inner": inner} if inner else {}), **options)
    if instance.family == "mosp":
        from schedbench.report import mosp_metrics_json

        metrics = mosp_metrics_json(instance, schedule, name, time_limit)
    elif instance.family == "dssp":
        from schedbench.report import dssp_metrics_json

        metrics = dssp_metrics_json(instance, schedule)
    elif instance.family == "workflow":
        from schedbench.report import workflow_metrics_json

        metrics = workflow_metrics_json(instance, schedule)
    else:
        violations = validate(instance, schedule)
        if violations:
            raise AssertionError(f"heuristic produced an invalid schedule: {violations[0]}")
        metrics = _metrics(instance, schedule, time_limit)
    out = {"heuristic": name, "family": instance.family, "metrics": metrics,
           "schedule": schedule_to_json(instance, schedule)}
    if as_json:
        _emit(out)
    else:
        click.echo(json.dumps(out["metrics"], indent=1))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("schedule", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print {valid, violations} as JSON.")
def validate(file, schedule, as_json) -> None:
    """Check SCHEDULE against FILE, independently of the code that made it.

    SCHEDULE is a schedule object or the whole output of solve/heuristic
    --json. Exit 0 if valid, 1 if not, 2 on unreadable input.
    """
    from schedbench.model import load_instance, load_schedule
    from schedbench.validator import validate as check

    instance = load_instance(file)
    violations = check(instance, load_schedule(instance, schedule))
    if as_json:
        _emit({"valid": not violations, "violations": [vars(v) for v in violations]})
    elif violations:
        for v in violations:
            click.echo(str(v))
    else:
        click.echo("valid")
    sys.exit(1 if violations else 0)


@cli.command()
@click.argument("generator", type=click.Choice(["faircamp", "ostrich", "small", "swf", "mosp-swf", "unit-campaigns",
                                                "fcfs-trap", "pcmax-uniform", "mosp-paper", "mosp-small",
                                                "mosp-figure1", "mosp-figure2", "mosp-stretch-tight",
                                                "three-partition", "three-partition-random", "three-partition-no",
                                                "mosp-two-jobs", "dssp-standard", "dssp-t1", "dssp-t2",
                                                "dssp-small", "dssp-scaled", "workflow-synthetic", "workflow-small",
                                                "workflow-swf", "starvation-stream"]))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--users", type=click.IntRange(min=1), default=5, show_default=True, help="k (faircamp, ostrich, small, unit-campaigns).")
@click.option("--jobs", "n_jobs", type=click.IntRange(min=1), default=None, help="Number of jobs (faircamp, ostrich: 10^4; pcmax-uniform: 20).")
@click.option("--machines", type=click.IntRange(min=1), default=None, help="m (faircamp 10, ostrich 64, swf: the trace's size; mosp-swf: per organization, 1).")
@click.option("--campaigns", type=click.IntRange(min=1), default=3, show_default=True, help="Campaigns per user (unit-campaigns, fcfs-trap).")
@click.option("--long", "long_", type=click.IntRange(min=2), default=5, show_default=True, help="p of the FCFS trap.")
@click.option("--trace", type=click.Path(dir_okay=False), help="SWF trace file (swf, mosp-swf), .gz allowed.")
@click.option("--gap", type=click.IntRange(min=0), default=1200, show_default=True,
              help="swf: a gap longer than this (seconds) between a user's jobs starts a new campaign.")
@click.option("--max-jobs", type=click.IntRange(min=1), default=None, help="swf, mosp-swf: keep the first N trace jobs.")
@click.option("--organizations", type=click.IntRange(min=2), default=5, show_default=True,
              help="N (mosp-paper, mosp-small: up to N, mosp-figure1/2).")
@click.option("--local-objective", type=click.Choice(["cmax", "sum_ci"]), default="cmax", show_default=True)
@click.option("--selfish/--no-selfish", default=None, help="mosp: selfishness restriction (figures: on).")
@click.option("--triples", type=click.IntRange(min=1), default=3, show_default=True, help="q (three-partition).")
@click.option("--bound", type=click.IntRange(min=12), default=40, show_default=True, help="B (three-partition).")
@click.option("--from", "source", type=click.Path(dir_okay=False),
              help="mosp-two-jobs: the 3-PARTITION file; dssp-t2: the dssp file.")
@click.option("--reward", type=click.Choice(["size", "unit"]), default="size", show_default=True,
              help="dssp: R_j = T_1(j) (the paper's) or 1.")
@click.option("--stages", type=click.IntRange(min=1, max=10), default=6, show_default=True, help="dssp-t1: stages per job.")
@click.option("--max-critical-path", type=click.IntRange(min=1), default=2340, show_default=True,
              help="dssp-t2: the new T_inf^max.")
@click.option("--scale", type=click.IntRange(min=1), default=50, show_default=True,
              help="dssp-scaled: P, D, lengths and tasks per stage divided by this.")
@click.option("--load", default="6/5", show_default=True,
              help="workflow-synthetic: arrival rate as a fraction of the platform's capacity (6/5: §4.1's 120%).")
@click.option("--chains", is_flag=True, help="workflow-swf: chain each user's session of jobs into one workflow.")
@click.option("--length", type=click.IntRange(min=1), default=600, show_default=True,
              help="starvation-stream: how long the overload stream lasts.")
@click.option("--lone", type=click.Choice(["long", "short", "wide"]), default="long", show_default=True,
              help="starvation-stream: the lone job (long, short, or wide: 2 cores) in a stream of other jobs.")
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
def generate(generator, seed, users, n_jobs, machines, campaigns, long_, trace, gap, max_jobs, organizations,
             local_objective, selfish, triples, bound, source, reward, stages, max_critical_path, scale, load,
             chains, length, lone, out) -> None:
    """Write a seeded, reproducible instance (same arguments, same bytes).

    faircamp: FAIRCAMP §VII; ostrich: OStrich §6; small: small random
    campaign instance for exact solving; swf: campaigns from a real trace;
    mosp-swf: a multi-site MOSP workload from a real trace (organizations:
    the N user groups with the most work);
    unit-campaigns: FAIRCAMP Prop. 4; fcfs-trap: FAIRCAMP Prop. 6;
    pcmax-uniform: P||Cmax with U[1,100] lengths. mosp-paper: MOSP §6
    (N organizations, one machine each, U[1,1000], Zipf owners);
    mosp-small: small random MOSP; mosp-figure1/2: Prop. 1 and 2;
    mosp-stretch-tight: §5.1's Stretch = N instance;
    three-partition: a planted yes-instance (certificate in meta);
    three-partition-random: yes or no, for the solver;
    three-partition-no: a no-instance proven by the solver; mosp-two-jobs:
    Theorem 2's reduction of --from (threshold L in meta). dssp-standard:
    DSSP §4.1 (P = 100, D = 4680 units of 10 s); dssp-t1: T1, --stages per
    job; dssp-t2: T2 of --from down to --max-critical-path; dssp-small,
    dssp-scaled: small enough for exact solving. workflow-synthetic: DAG
    jobs on the P-SLR paper's platform, a --load transient overload
    (--jobs, default 1000); workflow-small: for exact max-SLR;
    workflow-swf: workflows with a trace's arrivals and run times;
    starvation-stream: §3's lone job in an overload stream.
    """
    from schedbench.instances import campaign as gen
    from schedbench.instances.pcmax import uniform
    from schedbench.model import instance_to_json

    if generator == "faircamp":
        inst = gen.faircamp_paper(users, seed, n_jobs or 10_000, machines or 10)
    elif generator == "ostrich":
        inst = gen.ostrich_paper(users, seed, n_jobs or 10_000, machines or 64)
    elif generator == "small":
        inst = gen.random_small(seed, users=(1, users))
    elif generator == "unit-campaigns":
        inst = gen.unit_campaigns(users, campaigns, machines or 2)
    elif generator == "fcfs-trap":
        inst = gen.fcfs_trap(machines or 2, campaigns, long_)
    elif generator == "pcmax-uniform":
        inst = uniform(seed, n_jobs or 20, machines or 5)
    elif generator == "mosp-swf":
        if not trace:
            raise UserInputError("--trace", "the mosp-swf generator needs --trace FILE")
        from schedbench.instances.mosp import organizations_from_swf

        inst = organizations_from_swf(trace, organizations, machines or 1, max_jobs, local_objective, bool(selfish))
    elif generator.startswith(("dssp", "mosp", "three", "workflow", "starvation")):
        try:
            if generator.startswith(("workflow", "starvation")):
                inst = _generate_workflow(generator, seed, n_jobs, load, trace, max_jobs, chains, gap, length, lone)
            elif generator.startswith("dssp"):
                inst = _generate_dssp(generator, seed, reward, stages, max_critical_path, scale, source)
            else:
                inst = _generate_mosp(generator, seed, organizations, n_jobs, local_objective, selfish, triples,
                                      bound, source)
        except ValueError as exc:  # parameters the generator cannot honour
            raise UserInputError(generator, str(exc)) from None
    else:
        if not trace:
            raise UserInputError("--trace", "the swf generator needs --trace FILE")
        from schedbench.instances.swf import campaigns_from_swf

        inst = campaigns_from_swf(trace, gap=gap, machines=machines, max_jobs=max_jobs)
    text = json.dumps(instance_to_json(inst)) + "\n"
    if out:
        Path(out).write_text(text)
    else:
        click.echo(text, nl=False)


def _generate_mosp(generator, seed, organizations, n_jobs, local_objective, selfish, triples, bound, source):
    from schedbench.instances import mosp as gen

    if generator == "mosp-paper":
        return gen.paper_workload(organizations, n_jobs or 100, seed, local_objective=local_objective,
                                  selfish=bool(selfish))
    if generator == "mosp-small":
        return gen.random_small(seed, organizations=(2, organizations), local_objective=local_objective,
                                selfish=bool(selfish))
    if generator == "mosp-figure1":
        return gen.figure1(organizations, local_objective, selfish is not False)
    if generator == "mosp-figure2":
        return gen.figure2(organizations, selfish is not False)
    if generator == "three-partition":
        return gen.planted_three_partition(triples, bound, seed)
    if generator == "three-partition-random":
        return gen.random_three_partition(triples, bound, seed)
    if generator == "three-partition-no":
        return gen.proven_no_three_partition(triples, bound, seed)
    if generator == "mosp-stretch-tight":
        return gen.stretch_tight(organizations)
    if not source:
        raise UserInputError("--from", "mosp-two-jobs needs --from FILE, a three_partition instance")
    from schedbench.model import load_instance

    three = load_instance(source)
    if three.family != "three_partition":
        raise UserInputError("--from", f"{source} is a {three.family} instance, not three_partition")
    return gen.mosp_two_jobs(three)[0]


def _generate_workflow(generator, seed, n_jobs, load, trace, max_jobs, chains, gap, length, lone):
    from schedbench.instances import workflow as gen

    if generator == "workflow-synthetic":
        return gen.synthetic_workload(seed, n_jobs or 1000, load)
    if generator == "workflow-small":
        return gen.small_workload(seed)
    if generator == "starvation-stream":
        return gen.starvation_stream(length, lone)
    if not trace:
        raise UserInputError("--trace", "the workflow-swf generator needs --trace FILE")
    return gen.workflows_from_swf(trace, max_jobs, chains, gap)


def _generate_dssp(generator, seed, reward, stages, max_critical_path, scale, source):
    from schedbench.instances import dssp as gen

    if generator == "dssp-standard":
        return gen.standard_workload(seed, reward=reward)
    if generator == "dssp-t1":
        return gen.fixed_stages(seed, stages, reward=reward)
    if generator == "dssp-small":
        return gen.small_workload(seed, reward=reward)
    if generator == "dssp-scaled":
        return gen.scaled_workload(seed, scale, reward=reward)
    if not source:
        raise UserInputError("--from", "dssp-t2 needs --from FILE, a dssp instance")
    from schedbench.model import load_instance

    base = load_instance(source)
    if base.family != "dssp":
        raise UserInputError("--from", f"{source} is a {base.family} instance, not dssp")
    return gen.transform_t2(base, max_critical_path)


@cli.command()
@click.argument("family", type=click.Choice(["campaign", "mosp", "dssp", "workflow"]))
@click.option("--instances", "count", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Random small instances (the papers' constructions are added; mosp: and Theorem 2's reductions).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--solver", default="cpsat", show_default=True, type=click.Choice(["cpsat", "milp"]))
@click.option("--time-limit", type=float, default=20.0, show_default=True, help="Seconds per exact solve.")
@click.option("--out", type=click.Path(file_okay=False), default="counterexamples", show_default=True,
              help="Where shrunk counterexamples are saved.")
def bounds(family, count, seed, solver, time_limit, out) -> None:
    """Check every claim of FAMILY's papers against exact optima; print the ledger.

    Each violation is shrunk to a smallest instance that still violates and
    saved as an instance file under --out.
    """
    from tqdm import tqdm

    from importlib import import_module

    from schedbench.claims import table

    ledger = import_module(f"schedbench.claims.{family}_run")
    items = list(ledger.instances(count, seed))
    with tqdm(total=len(items), desc="instances", unit="inst", file=sys.stderr, disable=None) as bar:
        tallies = ledger.run(items, solver, time_limit, Path(out), progress=bar.update)
    click.echo(getattr(ledger, "report", table)(tallies))  # a ledger may add its own tables
    for t in tallies:
        for path in t.counterexamples[:3]:
            click.echo(f"{t.claim.key}: counterexample {path}")


def _workflow_options(instance, seed: int, estimate: str | None, ccr: str | None, exponent: int | None) -> dict:
    """The simulation options of a workflow heuristic; refused for other families."""
    given = {name: value for name, value in (("estimate", estimate), ("ccr", ccr), ("network_exponent", exponent))
             if value is not None}
    if instance.family != "workflow":
        if given:
            raise UserInputError(_flag(next(iter(given))), "only workflow heuristics take it")
        return {}
    from schedbench.heuristics.workflow import options

    return options(instance, {"seed": seed, **given}, field=_flag)


def _flag(option: str) -> str:
    """The command-line flag of a heuristic option: network_exponent -> --network-exponent."""
    return "--" + option.replace("_", "-")


def _check_formulation(instance, solver: str, formulation: str) -> None:
    if formulation == "default" or instance.family != "campaign":
        return
    if solver == "cpsat":
        from schedbench.solvers.cpsat.campaign import FORMULATIONS
    elif solver == "milp":
        from schedbench.solvers.milp.campaign import FORMULATIONS
    else:
        return
    if formulation not in FORMULATIONS:
        raise UserInputError("--formulation", f"{solver} knows {', '.join(FORMULATIONS)}, not {formulation!r}")


def _default_objective(instance) -> str:
    from schedbench.model import family_module

    return family_module(instance.family).OBJECTIVES[0]


def _show(value) -> str:
    return "-" if value is None else str(value)


def _metrics(instance, schedule, time_limit: float) -> dict:
    """Exact metrics; max-user-stretch only when every F_u* is proven in time."""
    from schedbench.metrics.pcmax import makespan
    from schedbench.solvers.pcmax_bounds import lower_bound

    if instance.family == "pcmax":
        bound, name = lower_bound(instance.jobs, instance.machines)
        return {"makespan": makespan(instance.jobs, schedule), "lower_bound": bound, "lower_bound_name": name}
    if instance.family == "knapsack":
        return {"profit": instance.profit_of(schedule), "weight": instance.weight_of(schedule)}
    from schedbench.report import campaign_metrics_json
    from schedbench.solvers.campaign import optimal_user_flows

    return campaign_metrics_json(instance, schedule, optimal_user_flows(instance, "cpsat", time_limit))


def _register_harness() -> None:
    from schedbench.commands import register

    register(cli)


_register_harness()


def main() -> None:
    """Entry point: click's errors and ``UserInputError`` become one line and exit 2."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("schedbench: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        message = exc.format_message().replace("\n", " ")
        click.echo(f"schedbench: {message}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except UserInputError as exc:
        click.echo(f"schedbench: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
