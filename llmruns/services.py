"""Writes for the llmruns app that the website needs: the reference model profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction

from llmruns.models import LLMModel, ModelProfile

REFERENCE_PROFILES = Path(__file__).resolve().parent / "fixtures" / "reference_profiles.json"


@transaction.atomic
def model_profile_import_reference(*, data: dict[str, Any]) -> list[ModelProfile]:
    """Publish the profiles of the original VirtueMap run-suite (`reference_profiles.json`) as source IMPORT.

    Creates each model (an OpenRouter model id, key from OPENROUTER_API_KEY) if it is missing and writes its
    profile. A profile entered in admin or published by a suite is left alone: those are newer evidence.
    Re-running with the same data changes nothing. Returns the profiles written.
    """
    written = []
    for entry in data["models"]:
        model, _ = LLMModel.objects.get_or_create(
            slug=entry["slug"],
            defaults={
                "name": entry["name"],
                "family": entry["name"],
                "model_id": entry["slug"],
                "api_key_env": "OPENROUTER_API_KEY",
            },
        )
        existing = ModelProfile.objects.filter(model=model).first()
        if existing is not None and existing.source != ModelProfile.Source.IMPORT:
            continue
        values = {
            "source": ModelProfile.Source.IMPORT,
            "runs": entry["runs"],
            "profile_stats": entry["profile_stats"],
            "max_ci_half_width": entry.get("max_ci_half_width"),
            "mean_pairwise_kendall_tau": entry.get("mean_pairwise_kendall_tau"),
            "consistency": entry.get("consistency_0_100"),
            "consistency_stats": entry.get("consistency_stats"),
            "invalid_count": entry.get("invalid_count", 0),
            "failure_counts": entry.get("failure_counts", {}),
        }
        if existing is not None and all(getattr(existing, name) == value for name, value in values.items()):
            continue  # unchanged: keep its published_at
        profile, _ = ModelProfile.objects.update_or_create(model=model, defaults=values)
        written.append(profile)
    return written


def model_profile_import_reference_file(*, path: Path = REFERENCE_PROFILES) -> list[ModelProfile]:
    with path.open(encoding="utf-8") as handle:
        return model_profile_import_reference(data=json.load(handle))
