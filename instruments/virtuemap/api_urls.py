"""Routes of the validation study's JSON API, included under /api/v1/study/."""

from __future__ import annotations

from django.urls import path

from instruments.virtuemap import study_api as api

urlpatterns = [
    path("consent/", api.ConsentApi.as_view(), name="study-api-consent"),
    path("next/", api.NextItemApi.as_view(), name="study-api-next"),
    path("responses/", api.ResponseCreateApi.as_view(), name="study-api-responses"),
    path("respondent/", api.RespondentApi.as_view(), name="study-api-respondent"),
]
