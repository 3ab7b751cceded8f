"""Server-rendered SVG bar chart of MoralBench results: one group of bars per foundation, one bar per model.

As the other instruments' charts: geometry here, drawing in a template (`moralbench/_foundation_chart.html`), no
JavaScript, readable under a strict Content Security Policy and on a phone. A bar is the score as a share of the
foundation's maximum, so foundations with different maxima compare; every bar carries its number as text, and the
page puts the same numbers in a table beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from instruments.moralbench.reports import foundation_name

WIDTH = 640
LABEL_WIDTH = 150
BAR_HEIGHT = 14
BAR_GAP = 3
GROUP_GAP = 14
TOP = 22
# Up to six models get their own colour (blue/orange first: apart for colour-blind readers); beyond, they repeat.
STYLES = 6


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str
    x: int
    y: float
    width: float
    style: int
    text_x: float
    text_y: float


@dataclass(frozen=True)
class Group:
    name: str
    label_y: float
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class FoundationChart:
    width: int
    height: float
    label_x: int
    ticks: tuple[tuple[float, str], ...]
    groups: tuple[Group, ...]
    legend: tuple[tuple[str, int], ...]


def foundation_chart(
    *, foundations: Sequence[str], rows: Sequence[tuple[str, Mapping[str, float | None]]], maxima: Mapping[str, float]
) -> FoundationChart:
    """The chart of one set: ``rows`` are (model name, foundation → score or None); bars are score / max."""
    plot = WIDTH - LABEL_WIDTH - 60
    groups = []
    y = float(TOP)
    for foundation in foundations:
        bars = []
        for index, (name, scores) in enumerate(rows):
            score = scores.get(foundation)
            share = None if score is None or not maxima.get(foundation) else score / maxima[foundation]
            width = 0.0 if share is None else max(0.0, min(1.0, share)) * plot
            text = _("no score") if score is None else f"{score:.2f} / {maxima[foundation]:g}"
            bars.append(
                Bar(
                    label=name,
                    value=share,
                    text=text,
                    x=LABEL_WIDTH,
                    y=y,
                    width=width,
                    style=index % STYLES,
                    text_x=LABEL_WIDTH + width + 4,
                    text_y=y + BAR_HEIGHT - 3,
                )
            )
            y += BAR_HEIGHT + BAR_GAP
        label_y = (bars[0].y + bars[-1].y + BAR_HEIGHT) / 2 + 4 if bars else y
        groups.append(Group(foundation_name(foundation), label_y, tuple(bars)))
        y += GROUP_GAP
    ticks = tuple((LABEL_WIDTH + plot * share, f"{round(share * 100)} %") for share in (0.0, 0.25, 0.5, 0.75, 1.0))
    legend = tuple((name, index % STYLES) for index, (name, _) in enumerate(rows))
    return FoundationChart(WIDTH, y, LABEL_WIDTH - 6, ticks, tuple(groups), legend)
