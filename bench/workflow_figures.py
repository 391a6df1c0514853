"""The P-SLR paper's Figures 3, 4 and 5: worst-case SLR and the Gini
coefficient of the SLRs against estimate error and against CCR.

    python -m schedbench.bench.workflow_figures [--trials 20] [--jobs 1000] [--results run.jsonl] [--figure DIR]

Each trial is one ``synthetic_workload`` (seed = trial) on the paper's
platform (4 clusters of 400 cores, Fig. 1's tree) at a 120% transient
overload, simulated by every policy. As the paper: responsiveness is the
median over trials of each trial's worst-case SLR, fairness the median of
each trial's Gini coefficient; P-SLR against SRTF by a paired t-test over
the trials (same workloads), 5% level.
- Fig. 3a / 4a: normal error N in 0 (exact), 1, 10, ..., 10^8 percent.
- Fig. 3b / 4b: log rounding to base M in 1 (none), 10, ..., 10^7.
- Fig. 5: network delays with CCR in 4/5, 3/5, 2/5, 1/5 (Eq. 4 as printed:
  data of 25%, 67%, 150%, 400% of the execution time) and none, exact
  estimates. SLRs there are over critical paths that include the delays
  on the job's allocated clusters, as the paper's §5.2 reads them (SPEC's
  max-slr has no network).
Random, FIFO Task, FIFO Job and Fair Share ignore estimates (§5.1): they
run once per trial for Figs. 3-4. Also printed: the §3 class reading
(Spearman rho of SLR against CP, exact estimates) and the mean SLR per
critical-path decade, the shape the classes describe. ``--results`` makes
an interrupted run resume (one JSON line per finished trial and figure);
``--figure DIR`` draws fig3.png, fig4.png, fig5.png (matplotlib).
"""

import argparse
import math
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

from tqdm import tqdm

from schedbench.bench.results_log import append_row, resume
from schedbench.heuristics.workflow import ESTIMATE_POLICIES, POLICIES, simulate
from schedbench.heuristics.workflow_estimates import log_rounding, normal_error
from schedbench.instances.workflow import synthetic_workload
from schedbench.metrics.workflow import critical_path, gini, slr_class, slrs
from schedbench.model.workflow import Network

NORMAL = [0] + [10**e for e in range(9)]          # percent
LOG = [10**e for e in range(8)]                   # base M (1: none)
CCR = [None, Fraction(4, 5), Fraction(3, 5), Fraction(2, 5), Fraction(1, 5)]
EXPERIMENTS = ("normal", "log", "ccr")
BLIND = tuple(p for p in POLICIES if p not in ESTIMATE_POLICIES)
PAPER = {
    "normal": "paper (Fig. 3a/4a): P-SLR has the lowest worst-case SLR up to N = 1000%, not significantly "
              "different from SRTF there; LRTF worst; P-SLR nears the estimate-blind policies near 10^7%",
    "log": "paper (Fig. 3b/4b): P-SLR dominates worst-case SLR up to M = 10, indistinguishable from SRTF; "
           "SRTF better above; SRTF significantly fairer once estimates are rounded",
    "ccr": "paper (Fig. 5): network costs improve worst-case SLR; P-SLR and SRTF alike in responsiveness; "
           "P-SLR significantly fairer than SRTF except at CCR 0.2; LRTF worst",
}


def levels(experiment: str) -> list:
    return {"normal": NORMAL, "log": LOG, "ccr": CCR}[experiment]


def _label(experiment: str, level) -> str:
    if experiment == "ccr":
        return "none" if level is None else f"{level} ({float((1 - level) / level):.0%} data)"
    return f"{level}%" if experiment == "normal" else f"M={level}"


def _measure(inst, schedule) -> dict:
    ratios = slrs(inst, schedule, with_network=True)
    return {"max_slr": float(max(ratios)), "gini": float(gini(ratios))}


def trial(experiment: str, seed: int, jobs: int) -> dict:
    """One workload, every level and policy of one figure: a pure function of its inputs."""
    inst = synthetic_workload(seed, jobs=jobs)
    out: dict = {"key": f"{experiment}:{seed}:{jobs}", "cells": {}}
    for i, level in enumerate(levels(experiment)):
        for policy in POLICIES:
            if experiment == "ccr":
                schedule = simulate(inst, policy, network=None if level is None else Network(level), seed=seed)
            elif policy in BLIND and i:
                continue  # blind to estimates: the level-0 run stands for every level
            else:
                estimates = normal_error(inst, level, seed) if experiment == "normal" else log_rounding(inst, level)
                schedule = simulate(inst, policy, estimates=estimates, seed=seed)
            out["cells"][f"{i}:{policy}"] = _measure(inst, schedule)
            if experiment == "normal" and i == 0:
                out["cells"][f"{i}:{policy}"].update(_shape(inst, schedule))
    return out


def _shape(inst, schedule) -> dict:
    """§3 class: Spearman rho, and the mean SLR per decade of critical path."""
    rho, found = slr_class(inst, schedule)
    decades: dict[int, list[float]] = defaultdict(list)
    for job, ratio in zip(inst.jobs, slrs(inst, schedule)):
        decades[int(math.log10(critical_path(job)))].append(float(ratio))
    return {"rho": rho, "class": found, "decades": {str(d): statistics.mean(v) for d, v in sorted(decades.items())}}


def cell(rows: list[dict], i: int, policy: str, metric: str) -> list[float]:
    """A metric over the trials, level i of a figure (blind policies: their level-0 run)."""
    key = f"{0 if f'{i}:{policy}' not in rows[0]['cells'] else i}:{policy}"
    return [row["cells"][key][metric] for row in rows]


def paired_p(a: list[float], b: list[float]) -> float:
    from scipy.stats import ttest_rel

    if a == b:
        return 1.0
    return float(ttest_rel(a, b).pvalue)


def figure_table(experiment: str, rows: list[dict], metric: str) -> str:
    lines = ["| level | " + " | ".join(POLICIES) + " | P-SLR vs SRTF p |", "|---|" + "---:|" * (len(POLICIES) + 1)]
    for i, level in enumerate(levels(experiment)):
        medians = [statistics.median(cell(rows, i, p, metric)) for p in POLICIES]
        best = min(medians)
        shown = [f"**{m:.4g}**" if m == best else f"{m:.4g}" for m in medians]
        p = paired_p(cell(rows, i, "pslr", metric), cell(rows, i, "srtf", metric))
        lines.append(f"| {_label(experiment, level)} | " + " | ".join(shown) + f" | {p:.3f} |")
    return "\n".join(lines)


def shape_table(rows: list[dict]) -> str:
    """Class reading and the mean SLR per CP decade, exact estimates, averaged over trials."""
    decades = sorted({int(d) for row in rows for d in row["cells"]["0:pslr"]["decades"]})
    lines = ["| policy | Spearman rho (median) | class (trials) | " + " | ".join(f"CP 10^{d}" for d in decades) + " |",
             "|---|---:|---|" + "---:|" * len(decades)]
    for policy in POLICIES:
        entries = [row["cells"][f"0:{policy}"] for row in rows]
        classes = defaultdict(int)
        for entry in entries:
            classes[entry["class"]] += 1
        means = [statistics.mean(e["decades"][str(d)] for e in entries if str(d) in e["decades"]) for d in decades]
        rhos = [e["rho"] for e in entries if e["rho"] is not None]
        lines.append(f"| {policy} | {statistics.median(rhos) if rhos else float('nan'):+.3f} | "
                     + ", ".join(f"{c}: {n}" for c, n in sorted(classes.items())) + " | "
                     + " | ".join(f"{m:.3g}" for m in means) + " |")
    return "\n".join(lines)


def draw(experiment_rows: dict[str, list[dict]], directory: Path) -> list[Path]:
    """fig3 (worst-case SLR), fig4 (Gini) against both estimate errors, fig5 against CCR: medians, log axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    panels = {"fig3": [("normal", "max_slr"), ("log", "max_slr")], "fig4": [("normal", "gini"), ("log", "gini")],
              "fig5": [("ccr", "max_slr"), ("ccr", "gini")]}
    names = {"max_slr": "median worst-case SLR", "gini": "median Gini coefficient of SLRs"}
    paths = []
    for name, specs in panels.items():
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        for ax, (experiment, metric) in zip(axes, specs):
            rows = experiment_rows[experiment]
            xs = ([max(level, 0.1) for level in NORMAL] if experiment == "normal" else LOG if experiment == "log"
                  else [0.0] + [float((1 - c) / c) for c in CCR[1:]])
            for policy in POLICIES:
                ys = [statistics.median(cell(rows, i, policy, metric)) for i in range(len(xs))]
                ax.plot(xs, ys, marker="o", label=policy)
            ax.set_xscale("log" if experiment != "ccr" else "linear")
            if metric == "max_slr":
                ax.set_yscale("log")
            ax.set_xlabel({"normal": "normal error N (%; 0 shown at 0.1)", "log": "log rounding base M",
                           "ccr": "data sent / execution time (Eq. 4)"}[experiment])
            ax.set_ylabel(names[metric])
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        path = directory / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=20, help="workloads (seeds 0..K-1)")
    parser.add_argument("--jobs", type=int, default=1000, help="jobs per workload")
    parser.add_argument("--workers", type=int, default=2, help="processes (one trial and figure each)")
    parser.add_argument("--results", type=Path, help="JSON lines of finished trials; resumed from if present")
    parser.add_argument("--figure", type=Path, help="draw fig3.png, fig4.png, fig5.png in this folder")
    args = parser.parse_args()
    tasks = [(experiment, seed) for experiment in EXPERIMENTS for seed in range(args.trials)]
    rows = resume(args.results, {f"{e}:{s}:{args.jobs}" for e, s in tasks}, lambda row: row["key"])
    done = {row["key"] for row in rows}
    todo = [(e, s) for e, s in tasks if f"{e}:{s}:{args.jobs}" not in done]
    with ProcessPoolExecutor(args.workers) as pool:
        futures = [pool.submit(trial, e, s, args.jobs) for e, s in todo]
        for future in tqdm(futures, disable=None):
            row = future.result()
            rows.append(row)
            append_row(args.results, row)
    by_experiment = {e: sorted((r for r in rows if r["key"].startswith(e + ":")), key=lambda r: r["key"])
                     for e in EXPERIMENTS}
    print(f"{args.trials} trials of synthetic_workload(seed, jobs={args.jobs}) at 120% transient overload on the "
          f"paper's platform ({len(tasks) - len(todo)} trial-figures resumed); medians over trials, bold: lowest")
    for experiment, caption in (("normal", "Fig. 3a / 4a, normal error"), ("log", "Fig. 3b / 4b, log rounding"),
                                ("ccr", "Fig. 5, network delays")):
        for metric, what in (("max_slr", "worst-case SLR"), ("gini", "Gini coefficient of the SLRs")):
            print(f"\n{caption}: median {what}\n")
            print(figure_table(experiment, by_experiment[experiment], metric))
        print(PAPER[experiment])
    print("\n§3 classes, exact estimates: Spearman rho of SLR against CP, and mean SLR per critical-path decade\n")
    print(shape_table(by_experiment["normal"]))
    if args.figure:
        for path in draw(by_experiment, args.figure):
            print(f"figure: {path}")


if __name__ == "__main__":
    main()
