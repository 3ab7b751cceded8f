"""Server-rendered SVG pentagon (radar) charts: geometry only, drawn by `components/radar_chart.html`.

Server-side SVG needs no JavaScript and no chart library, so the chart renders offline, without JavaScript
and under a strict Content Security Policy. Scores are on 0–100; the chart may start its axis above 0 so
differences are visible, and then says so (`RadarChart.caption`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 540
HEIGHT = 360
CENTRE = (WIDTH / 2, 185.0)
RADIUS = 130.0
LABEL_GAP = 24.0
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
    axis_min: float
    axes: tuple[tuple[Point, Point], ...]  # centre → outer end of each axis
    rings: tuple[tuple[float, str], ...]  # (level, polygon points) from the inside out
    ring_labels: tuple[tuple[str, Point], ...]
    labels: tuple[AxisLabel, ...]
    series: tuple[DrawnSeries, ...]
    caption: str


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
    # Beside the upright first axis, not on it.
    ring_labels = tuple((f"{level:g}", Point(at(0, level).x + 4, at(0, level).y)) for level in [axis_min, *levels])
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
        caption = (
            f"Scores are on a 0–100 scale. To make differences easier to see, the centre of the chart is "
            f"{axis_min:g}, not 0."
        )
    else:
        caption = "Scores are on a 0–100 scale; the centre of the chart is 0."
    return RadarChart(
        width=WIDTH,
        height=HEIGHT,
        axis_min=axis_min,
        axes=tuple((Point(*CENTRE), at(i, SCALE_MAX)) for i in range(n)),
        rings=rings,
        ring_labels=ring_labels,
        labels=tuple(labels),
        series=tuple(drawn),
        caption=caption,
    )
