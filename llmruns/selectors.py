"""Reads for the llmruns app: the published model profiles shown in the gallery and the API."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max, QuerySet

from llmruns.models import ModelProfile


def published_profile_list() -> QuerySet[ModelProfile]:
    """Every published profile with its model, by model name. A model is published once it has a profile."""
    return ModelProfile.objects.select_related("model").order_by("model__name", "model__slug")


def published_profile_get(*, slug: str) -> ModelProfile | None:
    return published_profile_list().filter(model__slug=slug).first()


def published_profile_scores() -> dict[str, tuple[str, dict[str, float | None]]]:
    """Model slug → (display name, virtue id → mean score) for every published profile, in one query."""
    rows = published_profile_list().values_list("model__slug", "model__name", "profile_stats")
    return {
        slug: (name, {virtue: (stats or {}).get("mean") for virtue, stats in (profile_stats or {}).items()})
        for slug, name, profile_stats in rows
    }


def published_profile_last_modified() -> datetime | None:
    return ModelProfile.objects.aggregate(latest=Max("published_at"))["latest"]
