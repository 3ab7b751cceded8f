"""Reads for the llmruns app: the published model profiles shown in the gallery and the API."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max, QuerySet

from llmruns.models import ModelProfile
from virtuemap_site.snapshots import CachedSnapshot


def published_profile_list() -> QuerySet[ModelProfile]:
    """Every published profile with its model, by model name. A model is published once it has a profile."""
    return ModelProfile.objects.select_related("model").order_by("model__name", "model__slug")


def published_profile_get(*, slug: str) -> ModelProfile | None:
    return published_profile_list().filter(model__slug=slug).first()


PUBLISHED_PROFILE_SCORES = CachedSnapshot("llmruns:published-profile-scores")


def published_profile_scores() -> dict[str, tuple[str, dict[str, float | None]]]:
    """Model slug → (display name, virtue id → mean score) for every published profile, kept in memory.

    A `CachedSnapshot` like `surveys.selectors.profile_scoring_context`: saving or deleting a model or a profile
    forgets it when its transaction commits (`llmruns.apps`).
    """
    return PUBLISHED_PROFILE_SCORES.get(_published_profile_scores_load)


def published_profile_scores_forget() -> None:
    PUBLISHED_PROFILE_SCORES.forget()


def _published_profile_scores_load() -> dict[str, tuple[str, dict[str, float | None]]]:
    rows = published_profile_list().values_list("model__slug", "model__name", "profile_stats")
    return {
        slug: (name, {virtue: (stats or {}).get("mean") for virtue, stats in (profile_stats or {}).items()})
        for slug, name, profile_stats in rows
    }


def published_profile_last_modified() -> datetime | None:
    return ModelProfile.objects.aggregate(latest=Max("published_at"))["latest"]
