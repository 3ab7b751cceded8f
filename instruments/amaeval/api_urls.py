"""The AMAeval part of the public REST API (mounted at /api/v1/amaeval/)."""

from __future__ import annotations

from django.urls import path

from instruments.amaeval import api

urlpatterns: list = [
    path("results/", api.AmaevalResultListApi.as_view(), name="api-amaeval-results"),
]
