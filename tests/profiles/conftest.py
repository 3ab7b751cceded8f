"""Fixtures of the cross-instrument pages: the three reference models of VirtueMap, the first of them also measured
on the transitivity test, MoralBench and AMAeval (through the scripted provider), as the engine stores them."""

from __future__ import annotations

import pytest

from llmruns.models import LLMModel

GPT = "openai/gpt-5"
CLAUDE = "anthropic/claude-sonnet-4.6"
GEMINI = "google/gemini-3.5-flash"


@pytest.fixture
def four_instruments(published_models, transitivity_instrument, fake_provider):
    """GPT with a published result on all four instruments; Claude and Gemini on VirtueMap only."""
    from instruments.amaeval.services import amaeval_instrument_load_file
    from instruments.moralbench.services import moralbench_load_file
    from llmruns.engine import run_execute, run_start
    from tests.instruments.amaeval.test_amaeval_runs import _reply
    from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

    moralbench_load_file()
    amaeval_instrument_load_file()
    LLMModel.objects.filter(slug=GPT).update(
        base_url=fake_provider.base_url, model_id="fake-model", requests_per_minute=0, concurrency=4
    )
    model = LLMModel.objects.get(slug=GPT)
    choice_run_store(slug=GPT, name=model.name, vectors=vectors_for_model(1), model=model)
    fake_provider.answer = lambda body: "A"
    plan = {"replicates": 2, "sets": ["MFQ_30", "6_concepts_compare"]}
    run_execute(run_id=run_start(instrument="moralbench", model=model, plan=plan, enqueue=False).pk)
    fake_provider.answer = _reply
    judge = LLMModel.objects.create(
        slug="fake/judge", name="Fake judge", provider="openai_compatible", base_url=fake_provider.base_url,
        model_id="fake-judge", requests_per_minute=0,
    )  # fmt: skip
    run = run_start(
        instrument="amaeval", model=model, judge=judge, plan={"limit": 2, "scenarios": 1, "replicates": 2},
        enqueue=False,
    )  # fmt: skip
    run_execute(run_id=run.pk)
    return model
