"""Pages of the llmruns app: the gallery of published model profiles."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from llmruns import selectors
from surveys import selectors as survey_selectors
from surveys.charts import RadarSeries, axis_minimum, radar_chart


def gallery(request: HttpRequest) -> HttpResponse:
    virtues = list(survey_selectors.virtue_list())
    profiles = list(selectors.published_profile_list())
    names = [virtue.name for virtue in virtues]
    values = {profile.pk: [profile.scores.get(virtue.id) for virtue in virtues] for profile in profiles}
    # One axis for every chart, so the pentagons can be compared by eye.
    axis_min = axis_minimum([value for row in values.values() for value in row])
    cards = [
        {
            "profile": profile,
            "chart": radar_chart(
                axis_labels=names,
                series=[RadarSeries(profile.model.name, values[profile.pk], "model")],
                axis_min=axis_min,
            ),
            "rows": [
                {"virtue": virtue, "stats": (profile.profile_stats or {}).get(virtue.id) or {}} for virtue in virtues
            ],
        }
        for profile in profiles
    ]
    return render(request, "llmruns/gallery.html", {"cards": cards})
