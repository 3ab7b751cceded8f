"""Server-rendered SVG charts of the transitivity reports: geometry only, drawn by templates in `transitivity/`.

As VirtueMap's charts (`instruments/virtuemap/charts.py`): SVG from the server needs no JavaScript and no chart
library, so the charts render offline, under a strict Content Security Policy and on a phone (a viewBox, scaled by
CSS). Every cell carries its number as text, and the templates put the same numbers in a table, so colour is never the
only carrier of information.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from scoring.transitivity import pairs

CELL = 46
LABEL_WIDTH = 44
LABEL_HEIGHT = 30
# Diverging scale around ½: orange (0), white (½), blue (1); blue and orange stay apart for colour-blind readers.
LOW = (196, 98, 16)
MIDDLE = (255, 255, 255)
HIGH = (31, 95, 174)


@dataclass(frozen=True)
class HeatmapCell:
    row: int
    column: int
    x: float
    y: float
    value: float | None  # None on the diagonal and for a missing pair
    fill: str
    text: str
    dark: bool  # light text on a dark fill
    in_triad: bool  # the edge row ≻ column of a violating triad

    @property
    def text_x(self) -> float:
        return self.x + CELL / 2

    @property
    def text_y(self) -> float:
        return self.y + CELL / 2 + 5


@dataclass(frozen=True)
class HeatmapLabel:
    text: str
    x: float
    y: float


@dataclass(frozen=True)
class HeatmapChart:
    width: int
    height: int
    cell: int
    cells: tuple[HeatmapCell, ...]
    row_labels: tuple[HeatmapLabel, ...]
    column_labels: tuple[HeatmapLabel, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # the same numbers for a table: (row name, cell texts)
    description: str


def colour(value: float) -> str:
    """The fill for a probability: linear from LOW at 0 through MIDDLE at ½ to HIGH at 1, as #rrggbb."""
    start, end, t = (LOW, MIDDLE, value * 2) if value <= 0.5 else (MIDDLE, HIGH, value * 2 - 1)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(start, end, strict=True))


def preference_matrix(vector: Sequence[float | None], n: int) -> list[list[float | None]]:
    """Return M with M[x][y] = P(x ≻ y): P_xy above the diagonal, 1 − P_yx below it, None on it or when missing."""
    matrix: list[list[float | None]] = [[None] * n for _ in range(n)]
    for (x, y), value in zip(pairs(n), vector, strict=True):
        matrix[x][y] = value
        matrix[y][x] = None if value is None else 1.0 - value
    return matrix


def heatmap_chart(
    *,
    alternatives: Sequence[str],
    vector: Sequence[float | None],
    triads: Sequence[Sequence[int]] = (),
    subject: str = "",
) -> HeatmapChart:
    """Return the geometry of an n × n heatmap of P(row ≻ column) for one choice vector.

    Cell (x, y) sits at column y, row x; its fill is `colour(P)`; the diagonal is blank. ``triads``: violating
    triads (x, y, z) whose edges x ≻ y, y ≻ z, z ≻ x are outlined.
    """
    n = len(alternatives)
    matrix = preference_matrix(vector, n)
    edges = {(t[i], t[(i + 1) % 3]) for t in triads for i in range(3)}
    cells = []
    for x in range(n):
        for y in range(n):
            value = matrix[x][y]
            cells.append(
                HeatmapCell(
                    row=x,
                    column=y,
                    x=LABEL_WIDTH + y * CELL,
                    y=LABEL_HEIGHT + x * CELL,
                    value=value,
                    fill="#eef0f3" if value is None else colour(value),
                    text="" if x == y else ("–" if value is None else f"{value:.2f}"),
                    dark=value is not None and abs(value - 0.5) > 0.3,
                    in_triad=(x, y) in edges,
                )
            )
    row_labels = tuple(
        HeatmapLabel(text=name, x=LABEL_WIDTH - 6, y=LABEL_HEIGHT + i * CELL + CELL / 2 + 5)
        for i, name in enumerate(alternatives)
    )
    column_labels = tuple(
        HeatmapLabel(text=name, x=LABEL_WIDTH + i * CELL + CELL / 2, y=LABEL_HEIGHT - 10)
        for i, name in enumerate(alternatives)
    )
    rows = tuple((name, tuple(cells[x * n + y].text or "—" for y in range(n))) for x, name in enumerate(alternatives))
    description = _(
        "%(subject)s for the principles %(principles)s. Blue cells are above ½, orange below, white at ½; each cell "
        "shows its value."
    ) % {"subject": subject or _("P(row judged worse than column)"), "principles": ", ".join(alternatives)}
    if edges:
        description += " " + _("Outlined cells belong to a violating triad.")
    return HeatmapChart(
        width=LABEL_WIDTH + n * CELL + 2,
        height=LABEL_HEIGHT + n * CELL + 2,
        cell=CELL,
        cells=tuple(cells),
        row_labels=row_labels,
        column_labels=column_labels,
        rows=rows,
        description=description,
    )


# --- the paper's Figure 2: per model, choice sets satisfying each model ------------------------------------

# The bar chart is drawn 360 units wide, about the width it gets on a phone, so its 13-unit text stays at least
# 12 px there; each model's name has a line (or more) of its own above its bars, whole, never cut.
CHART_WIDTH = 360
BAR_HEIGHT = 16
BAR_GAP = 4
GROUP_GAP = 14
NAME_LINE = 18
NAME_CHARS = 40  # about 320 units of 14-unit text: a longer name is wrapped
BAR_LEFT = 58
BAR_WIDTH = 240
TICKS_HEIGHT = 22
SERIES = (("wum", "WUM"), ("hcm", "HCM"), ("grum", "G-RUM"))


@dataclass(frozen=True)
class Bar:
    label: str
    style: str
    x: float
    y: float
    width: float
    count: int
    total: int

    @property
    def label_x(self) -> float:
        return self.x + self.width + 4

    @property
    def label_y(self) -> float:
        return self.y + BAR_HEIGHT - 3


@dataclass(frozen=True)
class BarGroup:
    name: str
    name_lines: tuple[tuple[float, str], ...]  # (y, text) of each line of the name
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class CountsChart:
    width: int
    height: int
    left: int
    bar_height: int
    scale_width: int
    ticks: tuple[tuple[float, str], ...]
    groups: tuple[BarGroup, ...]


def name_lines(name: str, width: int = NAME_CHARS) -> list[str]:
    """``name`` in lines of at most ``width`` characters, broken after a space, slash or hyphen where it can be."""
    lines, rest = [], name
    while len(rest) > width:
        cut = max(rest.rfind(mark, 0, width) for mark in " /-:")
        cut = cut + 1 if cut > 0 else width
        lines.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return [*lines, rest]


def counts_chart(*, rows: Sequence[tuple[str, dict[str, int], int]]) -> CountsChart:
    """Return a horizontal grouped bar chart: per subject, its name, then one bar per model with its count out of
    ``total``.

    ``rows``: (subject name, {"wum": k, "hcm": k, "grum": k}, total choice sets). Bars share one scale, 0 to the
    largest total, so subjects compare.
    """
    top = max((total for _, _, total in rows), default=12) or 12
    groups = []
    y = float(TICKS_HEIGHT)
    for name, counts, total in rows:
        lines = []
        for line in name_lines(name):
            y += NAME_LINE
            lines.append((y - 4, line))
        bars = []
        for index, (key, label) in enumerate(SERIES):
            count = counts.get(key, 0)
            bars.append(
                Bar(
                    label=label,
                    style=key,
                    x=BAR_LEFT,
                    y=y + index * (BAR_HEIGHT + BAR_GAP),
                    width=BAR_WIDTH * count / top,
                    count=count,
                    total=total,
                )
            )
        groups.append(BarGroup(name=name, name_lines=tuple(lines), bars=tuple(bars)))
        y += len(SERIES) * (BAR_HEIGHT + BAR_GAP) + GROUP_GAP
    ticks = tuple((BAR_LEFT + BAR_WIDTH * k / top, str(k)) for k in range(0, top + 1, max(1, top // 6)))
    return CountsChart(
        width=CHART_WIDTH,
        height=int(y) + 4,
        left=BAR_LEFT,
        bar_height=BAR_HEIGHT,
        scale_width=BAR_WIDTH,
        ticks=ticks,
        groups=tuple(groups),
    )
