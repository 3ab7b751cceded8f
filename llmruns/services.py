"""Writes of the llmruns app besides the run engine (`engine`) and the result store (`results`): models."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from llmruns.models import LLMModel


@transaction.atomic
def llm_model_save(*, slug: str, **fields: Any) -> tuple[LLMModel, bool]:
    """Create the model ``slug`` or update the given fields of the existing one; return (model, created).

    A new model without a display name or provider model name takes the slug for both; one without log-probabilities
    said (``top_logprobs``) gets 0 unless it is local. Raises ValidationError (by field) for values the model refuses,
    e.g. an API key pasted where the name of its environment variable belongs; nothing is saved then.
    """
    model = LLMModel.objects.select_for_update().filter(slug=slug).first()
    created = model is None
    if created:
        model = LLMModel(slug=slug, name=slug, model_id=slug)
        if fields.get("provider") != LLMModel.Provider.LOCAL:
            fields.setdefault("top_logprobs", 0)
    for name, value in fields.items():
        setattr(model, name, value)
    model.full_clean()
    model.save()
    return model, created
