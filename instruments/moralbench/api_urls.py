"""The MoralBench part of the public REST API (mounted at /api/v1/instruments/moralbench/)."""

from __future__ import annotations

from django.urls import path

from instruments.moralbench import api

urlpatterns: list = [
    path("score/", api.MoralBenchScoreApi.as_view(), name="api-moralbench-score"),
    path("results/", api.MoralBenchResultListApi.as_view(), name="api-moralbench-results"),
]
