"""Pages of VirtueMap's model side: the gallery of published model profiles."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from instruments.virtuemap.plugin import VirtueMap
from instruments.virtuemap.selectors import profile_scores, published_profile_list
from llmruns.results import result_is_stale
from surveys import selectors as survey_selectors
from surveys.charts import RadarSeries, axis_minimum, radar_chart


def gallery(request: HttpRequest) -> HttpResponse:
    virtues = list(survey_selectors.virtue_list())
    results = list(published_profile_list())
    current = {VirtueMap.identity.slug: VirtueMap().result_dependencies()}
    names = [virtue.name for virtue in virtues]
    values = {result.pk: [profile_scores(result).get(virtue.id) for virtue in virtues] for result in results}
    # One axis for every chart, so the pentagons can be compared by eye.
    axis_min = axis_minimum([value for row in values.values() for value in row])
    cards = []
    for result in results:
        summary = result.summary
        profile = {
            "id": result.pk,
            "model": result.model,
            "runs": summary.get("runs"),
            "consistency": summary.get("consistency"),
            "max_ci_half_width": summary.get("max_ci_half_width"),
            "source_display": result.get_source_display(),
            "stale": result_is_stale(result, current=current),
        }
        stats = summary.get("profile_stats") or {}
        cards.append(
            {
                "profile": profile,
                "chart": radar_chart(
                    axis_labels=names,
                    series=[RadarSeries(result.model.name, values[result.pk], "model")],
                    axis_min=axis_min,
                ),
                "rows": [{"virtue": virtue, "stats": stats.get(virtue.id) or {}} for virtue in virtues],
            }
        )
    return render(request, "virtuemap/gallery.html", {"cards": cards})
