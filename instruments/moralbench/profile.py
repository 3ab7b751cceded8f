"""MoralBench on the cross-instrument pages: each set's foundation scores and total as figures (with the spread of
the replicates), people's scores beside them, and the set's foundation bars (`charts.foundation_chart`), the same
bars as the instrument's own pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from instruments.base import Figure, FigureContext, PeopleFigure, ProfileSection
from instruments.moralbench.charts import foundation_chart
from instruments.moralbench.reports import SET_TITLES, foundation_name
from scoring import moralbench as scorer
from scoring.compare import std_from_interval


def set_title(name: str) -> str:
    if name in scorer.COMPARATIVE_SETS:
        return _("%(set)s, comparative") % {"set": SET_TITLES[name]}
    return _("%(set)s, binary") % {"set": SET_TITLES[name]}


def set_maxima(items: Sequence[scorer.Item]) -> dict[str, dict[str, float]]:
    """Set → foundation → the most points an answer set can score there."""
    return {name: scorer.foundation_maxima([item for item in items if item.set_name == name]) for name in scorer.SETS}


def figure_context() -> FigureContext:
    """The sets' maxima and people's scores per set and foundation: two queries (the items, the people's answers)."""
    from instruments.moralbench.selectors import people_reference, scorer_items

    items = scorer_items()
    people = {
        f"{name}/{part}": PeopleFigure(key=f"{name}/{part}", **spread)
        for name, per_set in people_reference(items=items).items()
        for part, spread in per_set.items()
    }
    return FigureContext(people=people, extra={"maxima": set_maxima(items)})


def _std(interval: Mapping[str, Any]) -> float | None:
    n, mean, high = interval.get("n") or 0, interval.get("mean"), interval.get("high")
    return std_from_interval(mean, high, n) if n >= 2 and mean is not None and high is not None else None


def figures(summary: Mapping[str, Any], context: FigureContext) -> list[Figure]:
    """Per set measured, one figure per foundation and one for the total, each the replicate mean with the standard
    deviation recovered from its stored t-interval (`scoring.compare.std_from_interval`)."""
    found = []
    for name, record in (summary.get("sets") or {}).items():
        intervals = record.get("intervals") or {}
        parts = [*record.get("foundations", {}), "total"]
        for part in parts:
            # A person's answer set has one score and no interval (`letters_score`).
            one = record.get("total") if part == "total" else record.get("foundations", {}).get(part)
            interval = intervals.get(part) or {"mean": one, "n": 1}
            found.append(
                Figure(
                    key=f"{name}/{part}",
                    label=_("Total") if part == "total" else foundation_name(part),
                    mean=interval.get("mean"),
                    std=_std(interval),
                    n=int(interval.get("n") or 0),
                    group=set_title(name),
                    maximum=record.get("max_total") if part == "total" else (record.get("max") or {}).get(part),
                )
            )
    return found


def foundation_charts(
    subjects: Sequence[tuple[str, Mapping[str, Any]]],
    maxima: Mapping[str, Mapping[str, float]],
    people: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """Per set anyone measured, the foundation bars of every subject ((name, summary) pairs) and of people's median
    where people answered the whole set (``people``: `selectors.people_reference`)."""
    charts = []
    for name in scorer.SETS:
        if not maxima.get(name):
            continue
        rows = [(subject, s["sets"][name]["foundations"]) for subject, s in subjects if name in s.get("sets", {})]
        if rows and name in people:
            medians = {foundation: spread["median"] for foundation, spread in people[name].items()}
            rows.append((f"People, median (N = {people[name]['total']['n']})", medians))
        if rows:
            charts.append(
                {
                    "id": f"chart-{name.lower().replace('_', '-')}",
                    "title": set_title(name),
                    "chart": foundation_chart(foundations=list(maxima[name]), rows=rows, maxima=maxima[name]),
                }
            )
    return charts


def section(summaries: Sequence[tuple[str, Mapping[str, Any]]], context: FigureContext) -> ProfileSection:
    people: dict[str, dict[str, Any]] = {}
    for key, figure in context.people.items():
        name, part = key.split("/", 1)
        people.setdefault(name, {})[part] = figure.record()
    charts = foundation_charts(summaries, context.extra.get("maxima") or {}, people)
    return ProfileSection(template="moralbench/_profile_section.html", context={"charts": charts})


def report_url(slug: str) -> str:
    return reverse("moralbench:model-report", args=[slug])
