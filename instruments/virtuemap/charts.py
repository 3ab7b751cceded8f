"""Server-rendered SVG pentagon (radar) charts: geometry only, drawn by `components/radar_chart.html`.

Server-side SVG needs no JavaScript and no chart library, so the chart renders offline, without JavaScript
and under a strict Content Security Policy. Scores are on 0–100; the chart may start its axis above 0 so
differences are visible, and then says so (`RadarChart.caption`).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

WIDTH = 540
HEIGHT = 360
CENTRE = (WIDTH / 2, 185.0)
RADIUS = 110.0
# Text sizes in the chart's own units. A phone shows the chart about 0.6 times its size, so these stay at 12 px or
# more on screen; the view box is widened to fit the axis labels (`_label_extent`), so none is cut at the edge.
LABEL_FONT = 22
RING_FONT = 21
# The widest a character of the label font can be, as a fraction of the font size: bold sans-serif capitals, and a
# whole em for a wide (Chinese, Japanese, Korean) character.
CHAR_WIDTH_EM = 0.7
WIDE_CHAR_WIDTH_EM = 1.0
LABEL_GAP = 24.0
# Ring values sit on the bisector between the first axis and the last, where no marker can be (markers are on the
# axes), at the far side of the point from both axes.
RING_LABEL_OFFSET = 4.0
SCALE_MAX = 100.0


@dataclass(frozen=True)
class RadarSeries:
    """One profile to draw: a label for the legend, one value per axis (None = no score), a CSS modifier."""

    label: str
    values: Sequence[float | None]
    style: str = "person"


@dataclass(frozen=True)
class Point:
    x: float
    y: float

    @property
    def svg(self) -> str:
        return f"{self.x:.1f},{self.y:.1f}"


@dataclass(frozen=True)
class AxisLabel:
    text: str
    x: float
    y: float
    anchor: str


@dataclass(frozen=True)
class DrawnSeries:
    label: str
    style: str
    points: tuple[Point, ...]  # only the scored axes
    polygon: str  # empty when fewer than three axes are scored: a polygon would invent a shape


@dataclass(frozen=True)
class RadarChart:
    width: int
    height: int
    min_x: float  # the view box runs from min_x to min_x + width, wide enough for every axis label
    axis_min: float
    axes: tuple[tuple[Point, Point], ...]  # centre → outer end of each axis
    rings: tuple[tuple[float, str], ...]  # (level, polygon points) from the inside out
    ring_labels: tuple[tuple[str, Point], ...]
    labels: tuple[AxisLabel, ...]
    series: tuple[DrawnSeries, ...]
    caption: str
    label_font: int = LABEL_FONT
    ring_font: int = RING_FONT


def _text_width_em(text: str) -> float:
    """A generous width of ``text`` in ems: full-width characters (East Asian width W or F) take a whole em."""
    return sum(WIDE_CHAR_WIDTH_EM if unicodedata.east_asian_width(char) in "WF" else CHAR_WIDTH_EM for char in text)


def _label_extent(labels: Sequence[AxisLabel]) -> tuple[float, float]:
    """The leftmost and rightmost x any axis label can reach, from its anchor and a generous width estimate."""
    left, right = [], []
    for label in labels:
        extent = _text_width_em(label.text) * LABEL_FONT
        start = {"start": label.x, "middle": label.x - extent / 2, "end": label.x - extent}[label.anchor]
        left.append(start)
        right.append(start + extent)
    return (min(left, default=0.0), max(right, default=float(WIDTH)))


def axis_minimum(values: Sequence[float | None]) -> float:
    """The lowest axis value: 40 or 20 when every score is well above it, else 0 (a multiple of 20)."""
    scored = [value for value in values if value is not None]
    if not scored:
        return 0.0
    return float(max(0, min(40, 20 * math.floor((min(scored) - 5) / 20))))


def radar_chart(
    *, axis_labels: Sequence[str], series: Sequence[RadarSeries], axis_min: float | None = None
) -> RadarChart:
    """Return the geometry of a pentagon chart with one axis per label and one polygon per series.

    Axis i points at -90° + i·360°/n (the first straight up, then clockwise). A value v sits at distance
    RADIUS·(v - axis_min)/(100 - axis_min) from the centre; values below axis_min sit at the centre.
    ``axis_min`` defaults to `axis_minimum` of every value drawn.
    """
    n = len(axis_labels)
    if axis_min is None:
        axis_min = axis_minimum([value for one in series for value in one.values])
    span = SCALE_MAX - axis_min

    def at(index: int, value: float) -> Point:
        angle = -math.pi / 2 + 2 * math.pi * index / n
        distance = RADIUS * max(0.0, min(1.0, (value - axis_min) / span))
        return Point(CENTRE[0] + distance * math.cos(angle), CENTRE[1] + distance * math.sin(angle))

    levels = [axis_min + span * step / 4 for step in range(1, 5)]
    rings = tuple((level, " ".join(at(i, level).svg for i in range(n))) for level in levels)
    # Between the first axis and the last, never on an axis (where the markers are). The innermost ring and the
    # centre are left unlabelled: that close to the centre a label would reach the last axis's markers (the
    # centre's value is in the caption).
    between = -math.pi / 2 - math.pi / n
    ring_labels = tuple(
        (
            f"{level:g}",
            Point(
                CENTRE[0] + RADIUS * (level - axis_min) / span * math.cos(between) - RING_LABEL_OFFSET,
                CENTRE[1] + RADIUS * (level - axis_min) / span * math.sin(between),
            ),
        )
        for level in levels[1:]
    )
    labels = []
    for index, text in enumerate(axis_labels):
        end = at(index, SCALE_MAX)
        dx, dy = end.x - CENTRE[0], end.y - CENTRE[1]
        x = end.x + LABEL_GAP * dx / RADIUS
        y = end.y + LABEL_GAP * dy / RADIUS + 5
        anchor = "middle" if abs(dx) < 1 else ("start" if dx > 0 else "end")
        labels.append(AxisLabel(text=text, x=x, y=y, anchor=anchor))
    drawn = []
    for one in series:
        points = tuple(at(i, value) for i, value in enumerate(one.values) if value is not None)
        polygon = " ".join(point.svg for point in points) if len(points) >= 3 else ""
        drawn.append(DrawnSeries(label=one.label, style=one.style, points=points, polygon=polygon))
    if axis_min > 0:
        caption = _(
            "Scores are on a 0–100 scale. To make differences easier to see, the centre of the chart is %(centre)s, "
            "not 0."
        ) % {"centre": f"{axis_min:g}"}
    else:
        caption = _("Scores are on a 0–100 scale; the centre of the chart is 0.")
    left, right = _label_extent(labels)
    min_x = min(0.0, left - 4)
    width = max(float(WIDTH), right + 4) - min_x
    return RadarChart(
        width=round(width),
        height=HEIGHT,
        min_x=round(min_x),
        axis_min=axis_min,
        axes=tuple((Point(*CENTRE), at(i, SCALE_MAX)) for i in range(n)),
        rings=rings,
        ring_labels=ring_labels,
        labels=tuple(labels),
        series=tuple(drawn),
        caption=caption,
    )
