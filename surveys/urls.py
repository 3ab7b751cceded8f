"""URLs of the shared questionnaire: /take/<study>/ for every study with one (namespace "surveys").

An instrument whose study already has public URLs mounts the same pages under them with
`questionnaire_urlpatterns(study=...)`, so the links panels were given keep working.
"""

from __future__ import annotations

from django.urls import path

from surveys import questionnaire_views as views

app_name = "surveys"


def questionnaire_urlpatterns(*, study: str | None = None, prefix: str = "") -> list:
    """The pages (and the private results link), with ``study`` fixed (an instrument's own URLs) or captured from
    the path (None)."""
    fixed = {"study": study} if study else {}
    root = prefix if study else f"{prefix}<slug:study>/"
    return [
        path(root, views.questionnaire_start, fixed, name="questionnaire-start"),
        path(f"{root}next/", views.questionnaire_item, fixed, name="questionnaire-item"),
        path(f"{root}results/", views.questionnaire_results, fixed, name="questionnaire-results"),
        path(f"{root}results/<str:token>/", views.questionnaire_results_link, fixed, name="questionnaire-results-link"),
        path(f"{root}withdraw/", views.questionnaire_withdraw, fixed, name="questionnaire-withdraw"),
    ]


urlpatterns = questionnaire_urlpatterns()
