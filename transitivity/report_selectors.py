"""Reads for the report pages: every language model with a choice run, and its results.

A model's results are `services.transitivity_model_results` (its latest finished run, else its latest run with
stored items), the one source the pages, the downloads, the CLI and admin share.
"""

from __future__ import annotations

from typing import Any

from llmruns.models import LLMModel
from transitivity.services import transitivity_model_results


def models_with_runs_count() -> int:
    return LLMModel.objects.filter(transitivity_runs__isnull=False).distinct().count()


def model_results_list() -> list[dict[str, Any]]:
    """The results of every model with at least one choice run, by model name."""
    models = LLMModel.objects.filter(transitivity_runs__isnull=False).distinct().order_by("name", "slug")
    return [results for model in models if (results := transitivity_model_results(model=model)) is not None]


def model_results_get(*, slug: str) -> dict[str, Any] | None:
    model = LLMModel.objects.filter(slug=slug, transitivity_runs__isnull=False).first()
    return transitivity_model_results(model=model) if model is not None else None
