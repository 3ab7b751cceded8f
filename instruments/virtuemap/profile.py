"""VirtueMap on the cross-instrument pages: the five virtue means as figures, people's scores beside them, and the
pentagon of one or several subjects (the gallery's chart, `charts.radar_chart`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from instruments.base import Figure, FigureContext, PeopleFigure, ProfileSection
from instruments.virtuemap.charts import RadarSeries, radar_chart
from instruments.virtuemap.editions import item_text
from scoring.moralbench import distribution

# The radar component's series styles: the first subject drawn as the model, the others in turn.
SERIES_STYLES = ("model", "second", "third", "fourth", "fifth", "sixth")
PEOPLE_STYLE = "person"


def _group() -> str:
    return _("Virtue scores and consistency (0–100)")


def figure_context() -> FigureContext:
    """The virtues' names and, once enough people consented (PROFILE_REFERENCE_MIN_RESPONDENTS, the results page's
    rule), their scores' median and quartiles: two queries."""
    from instruments.virtuemap.selectors import profile_reference_minimum, profiling_reference_scores, virtue_list

    labels = {virtue.id: item_text(virtue, "name") for virtue in virtue_list()}
    people_count, reference = profiling_reference_scores(virtues=list(labels))
    people = {}
    if people_count >= profile_reference_minimum():
        people = {virtue: PeopleFigure(key=virtue, **distribution(scores)) for virtue, scores in reference.items()}
    return FigureContext(labels=labels, people=people)


def figures(summary: Mapping[str, Any], context: FigureContext) -> list[Figure]:
    """One figure per virtue (mean, std and number of valid full runs), then the consistency (0–100, no
    replicates of its own: it is computed over all pairs of runs)."""
    stats = summary.get("profile_stats") or {}
    runs = int(summary.get("runs") or 0)
    order = list(context.labels) or list(stats)
    group = _group()
    found = [
        Figure(
            key=virtue,
            label=context.labels.get(virtue, virtue),
            mean=(stats.get(virtue) or {}).get("mean"),
            std=(stats.get(virtue) or {}).get("std"),
            n=runs,
            group=group,
        )
        for virtue in order
        if virtue in stats
    ]
    found.append(Figure(key="consistency", label=_("Consistency"), mean=summary.get("consistency"), group=group))
    return found


def section(summaries: Sequence[tuple[str, Mapping[str, Any]]], context: FigureContext) -> ProfileSection:
    """The pentagon of every subject on one axis, people's medians drawn as a further series when there are any."""
    virtues = list(context.labels)
    names = [context.labels[virtue] for virtue in virtues]
    series = []
    for index, (name, summary) in enumerate(summaries):
        stats = summary.get("profile_stats") or {}
        values = [(stats.get(virtue) or {}).get("mean") for virtue in virtues]
        series.append(RadarSeries(name, values, SERIES_STYLES[index % len(SERIES_STYLES)]))
    people_n = max((figure.n for figure in context.people.values()), default=0)
    if context.people:
        medians = [context.people[virtue].median if virtue in context.people else None for virtue in virtues]
        label = _("People, median (N = %(people)s)") % {"people": people_n}
        series.append(RadarSeries(label, medians, PEOPLE_STYLE))
    return ProfileSection(
        template="virtuemap/_profile_section.html",
        context={"chart": radar_chart(axis_labels=names, series=series), "people_n": people_n},
    )


def report_url(slug: str) -> str:
    return reverse("model-gallery") + f"#model-{slug}"
