"""How every figure looks: one colour and marker per series, the same in
every figure, from a colour-blind-safe palette, and the two figure styles.

The palette is Okabe and Ito's eight colours ("Color Universal Design",
2002), safe for the common colour-vision deficiencies and in greyscale
print. Every registered heuristic and solver gets its own slot by sorted
name within its family; a slot is a (colour, marker, line style) triple,
so that series stay distinguishable in greyscale too (a filled shape,
a bar or a box, takes a hatch past the eighth colour). Any other label gets
a slot from its hash, the same in every run.

``screen`` is for the report and the docs (PNG at 120 dpi and PDF);
``paper`` gives each panel one column of a two-column paper (3.5 in wide,
so a two-panel figure spans both columns), with 8 pt fonts, and writes
vector PDF and SVG beside a 300 dpi PNG.
"""

import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from schedbench import families
from schedbench.errors import UserInputError

OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")
HATCHES = ("", "//", "..", "xx")   # filled shapes (bars, boxes) past the eighth colour


@dataclass(frozen=True)
class SeriesStyle:
    colour: str
    marker: str
    linestyle: str
    hatch: str


@dataclass(frozen=True)
class FigureStyle:
    """Size (inches), font size (points) and the files a figure is written as."""

    name: str
    size: tuple[float, float]
    font: float
    dpi: int
    suffixes: tuple[str, ...]


STYLES = {
    "screen": FigureStyle("screen", (7.0, 4.5), 10.0, 120, ("png", "pdf")),
    "paper": FigureStyle("paper", (3.5, 2.4), 8.0, 300, ("pdf", "svg", "png")),
}


def figure_style(name: str) -> FigureStyle:
    if name not in STYLES:
        raise UserInputError("--style", f"unknown style {name!r} (known: {', '.join(STYLES)})")
    return STYLES[name]


def series_style(label: str) -> SeriesStyle:
    """The slot of ``label``: its place among the registered names, else its hash."""
    index = slots().get(label)
    if index is None:
        index = int(hashlib.sha256(label.encode()).hexdigest(), 16) % (len(OKABE_ITO) * len(MARKERS))
    return SeriesStyle(OKABE_ITO[index % len(OKABE_ITO)], MARKERS[(index + index // len(MARKERS)) % len(MARKERS)],
                       LINESTYLES[index % len(LINESTYLES)], HATCHES[(index // len(OKABE_ITO)) % len(HATCHES)])


@functools.cache
def slots() -> dict[str, int]:
    """Each registered heuristic and backend's slot: the first slot that no
    other name of its families holds yet (families taken alphabetically, a
    name keeping the slot of the first family that shows it), so a figure,
    which shows one family's series, never repeats a slot among them."""
    slot: dict[str, int] = {}
    for family in sorted(families.names()):
        names = family_series(family)
        for name in names:
            if name not in slot:
                taken = {slot[other] for other in names if other in slot}
                slot[name] = next(index for index in range(len(names) + len(slot) + 1) if index not in taken)
    return slot


def family_series(family: str) -> list[str]:
    """The names a figure of ``family`` can show: its backends (the strong
    colours first: they are drawn together in every time-to-proof figure),
    then its heuristics."""
    return [*sorted(families.backends(family)), *sorted(families.heuristics(family))]


def new_figure(style: FigureStyle, width_factor: float = 1.0) -> Any:
    """A matplotlib Figure (object interface, no pyplot state) in ``style``."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(style.size[0] * width_factor, style.size[1]), layout="constrained")
    figure.set_dpi(style.dpi)
    return figure


def font_context(style: FigureStyle) -> Any:
    """rc settings for drawing in ``style`` (a context manager)."""
    from matplotlib import rc_context

    return rc_context({"font.size": style.font, "axes.titlesize": style.font + 1, "legend.fontsize": style.font - 1,
                       "xtick.labelsize": style.font - 1, "ytick.labelsize": style.font - 1,
                       "lines.linewidth": 1.2 if style.name == "paper" else 1.5, "lines.markersize": 4
                       if style.name == "paper" else 6, "pdf.fonttype": 42, "svg.fonttype": "none"})
