"""The transitivity part of the public REST API (mounted at /api/v1/transitivity/)."""

from __future__ import annotations

from django.urls import path

from instruments.transitivity import api

urlpatterns: list = [
    path("test/", api.TransitivityTestApi.as_view(), name="api-transitivity-test"),
    path("summary/", api.TransitivitySummaryApi.as_view(), name="api-transitivity-summary"),
]
