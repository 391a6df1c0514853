"""The MOSP paper's Figure 6: each heuristic's makespan / LB on its §6 workload.

    python -m schedbench.bench.mosp_figure6 [--instances 20000] [--figure fig6.png]

N = 20 organizations with one machine each, n = 100 jobs, lengths U[1,1000],
Zipf(1.4267) owners (``paper_workload(20, 100, seed)``, seeds 0..K-1); LB =
max(sum p / m, p_max). The paper draws 20 000 instances; the default here is
the same. Ratios are exact; prints per heuristic their mean, median,
min and max, the share of instances where it is best of the four (ties count
for each), and a histogram with bins of width 0.05 from 1.0. ``--figure``
also draws the four histograms as the paper's panels.
"""

import argparse
import statistics
from collections import Counter
from fractions import Fraction
from pathlib import Path

from tqdm import tqdm

from schedbench.heuristics.mosp import HEURISTICS
from schedbench.instances.mosp import paper_workload
from schedbench.metrics.mosp import lower_bound, makespan

PANELS = {"ilba": "(a) ILBA", "lpt-lpt": "(b) LPT-LPT", "spt-lpt": "(c) SPT-LPT",
          "less-helped-first": "(d) Less Helped First"}
BIN = Fraction(1, 20)
PAPER = ("paper (20 000 instances): LPT-LPT outperforms ILBA and SPT-LPT on most instances, "
         "its mean ratio to LB below 1.3; Less Helped First the worst")


def ratios(count: int) -> dict[str, list[Fraction]]:
    """ratios[heuristic][seed] = makespan / LB on the instance of that seed."""
    out: dict[str, list[Fraction]] = {name: [] for name in HEURISTICS}
    for seed in tqdm(range(count), disable=None):
        inst = paper_workload(20, 100, seed)
        bound = lower_bound(inst)
        for name, heuristic in HEURISTICS.items():
            out[name].append(makespan(inst, heuristic(inst)) / bound)
    return out


def summary(data: dict[str, list[Fraction]]) -> str:
    best = [min(values) for values in zip(*data.values())]
    lines = ["| heuristic | mean | median | min | max | best of the four |", "|---|---:|---:|---:|---:|---:|"]
    for name, values in data.items():
        wins = sum(v == b for v, b in zip(values, best))
        lines.append(f"| {name} | {float(statistics.mean(values)):.4f} | {float(statistics.median(values)):.4f} | "
                     f"{float(min(values)):.4f} | {float(max(values)):.4f} | {wins / len(values):.1%} |")
    return "\n".join(lines)


def histogram(data: dict[str, list[Fraction]], width: int = 20) -> str:
    """Instances per bin [1 + i/20, 1 + (i+1)/20), a bar of '#' scaled to the fullest bin."""
    counts = {name: Counter((v - 1) // BIN for v in values) for name, values in data.items()}
    last = max(max(c) for c in counts.values())
    fullest = max(max(c.values()) for c in counts.values())
    lines = ["| ratio | " + " | ".join(data) + " |", "|---|" + "---|" * len(data)]
    for i in range(last + 1):
        low = 1 + i * BIN
        cells = (f"{c[i]} {'#' * round(width * c[i] / fullest)}".rstrip() for c in counts.values())
        lines.append(f"| [{float(low):.2f}, {float(low + BIN):.2f}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure(data: dict[str, list[Fraction]], path: Path) -> None:
    """Four histogram panels on one bin grid, as the paper's Fig. 6."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    top = max(max(values) for values in data.values())
    edges = [float(1 + i * BIN) for i in range((top - 1) // BIN + 2)]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True, sharey=True)
    for ax, (name, values) in zip(axes.flat, data.items()):
        ax.hist([float(v) for v in values], bins=edges, edgecolor="black")
        ax.set_title(PANELS[name])
        ax.set_xlabel("Cmax / LB")
        ax.set_ylabel("instances")
        ax.label_outer()  # shared axes: labels on the outer panels only
    fig.suptitle(f"N = 20, n = 100, {len(next(iter(data.values())))} instances")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=20_000, help="seeds 0..K-1 (the paper draws 20 000)")
    parser.add_argument("--figure", type=Path, help="also draw the four histograms to this PNG")
    args = parser.parse_args()
    data = ratios(args.instances)
    print(f"makespan / LB on {args.instances} instances: N = 20 organizations, one machine each, n = 100 jobs, "
          f"lengths U[1,1000], Zipf(1.4267) owners; exact ratios shown as floats")
    print(summary(data))
    print()
    print(histogram(data))
    print(PAPER)
    if args.figure:
        figure(data, args.figure)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
