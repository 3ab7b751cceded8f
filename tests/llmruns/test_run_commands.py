"""The commands every instrument shares: run_instrument, show_results, cancel_run, add_model, rescore_results."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from instruments.transitivity.testing import scripted_logprobs
from instruments.virtuemap.models import KeyCandidate
from llmruns.models import LLMModel, Result, Run

pytestmark = pytest.mark.django_db


def _call(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_run_instrument_runs_a_virtuemap_suite_with_its_plan_options_and_prints_the_run_id(instrument, fake_model):
    out = _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--min-runs", "2", "--max-runs", "2")

    run = Run.objects.get()
    assert out.startswith(f"Run {run.pk}: virtuemap for {fake_model}")
    assert run.plan["min_runs"] == 2 and run.status == Run.Status.FINISHED
    assert '"profile_stats"' in out


def test_run_instrument_runs_the_transitivity_test_with_its_own_plan_options(
    transitivity_instrument, fake_model, fake_provider
):
    fake_provider.logprobs = scripted_logprobs
    out = _call("run_instrument", "transitivity", "--model", fake_model.slug, "--blocks", "2", "--orders", "original")

    run = Run.objects.get()
    assert (run.plan["blocks"], run.plan["orders"], run.trials_done) == ([2], ["original"], 21)
    assert json.loads(out[out.index("{") :])["vectors"][0]["result"]["wum"] is True


def test_run_instrument_refuses_a_plan_the_instrument_cannot_work_with(instrument, fake_model):
    with pytest.raises(CommandError, match="min runs ≤ max runs"):
        _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--min-runs", "5", "--max-runs", "2")
    with pytest.raises(CommandError, match="--min-runs: 'many' is not a valid int"):
        _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--min-runs", "many")
    assert not Run.objects.exists()


def test_run_instrument_queues_a_run_with_async(instrument, fake_model, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        out = _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--async")
    assert "queued" in out and len(callbacks) == 1
    assert Run.objects.get().status == Run.Status.QUEUED


def test_show_results_prints_any_run_as_json_with_its_instrument(instrument, fake_model):
    _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--min-runs", "1", "--max-runs", "1")
    run = Run.objects.get()

    shown = json.loads(_call("show_results", str(run.pk), "--format", "json"))

    assert shown["instrument"] == "virtuemap" and shown["run"]["id"] == run.pk and shown["runs"] == 1
    assert set(shown["profile_stats"]) == {"wisdom", "justice", "truthfulness", "courage", "temperance"}
    table = _call("show_results", str(run.pk))
    assert "profile_stats:" in table and "Finished" in table


def test_show_results_names_a_missing_run(db):
    with pytest.raises(CommandError, match="no run 99"):
        _call("show_results", "99")


def test_cancel_run_cancels_and_resumes(instrument, fake_model):
    _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--async")
    run = Run.objects.get()

    assert "Cancelled" in _call("cancel_run", str(run.pk))
    with pytest.raises(CommandError, match="is cancelled; nothing to do"):
        _call("cancel_run", str(run.pk))
    assert "Queued" in _call("cancel_run", str(run.pk), "--resume")


def test_add_model_creates_an_openai_compatible_model_and_updates_only_what_is_given(db):
    out = _call(
        "add_model", "lab/qwen", "--backend", "openai_compatible", "--base-url", "http://127.0.0.1:8080/v1",
        "--model-name", "qwen2.5-7b", "--api-key-env", "LAB_KEY", "--logprobs", "--concurrency", "4",
        "--requests-per-minute", "120",
    )  # fmt: skip
    model = LLMModel.objects.get(slug="lab/qwen")
    assert out.startswith("Created lab/qwen")
    assert (model.model_id, model.api_key_env, model.top_logprobs, model.concurrency) == (
        "qwen2.5-7b",
        "LAB_KEY",
        20,
        4,
    )

    _call("add_model", "lab/qwen", "--concurrency", "2", "--no-logprobs")

    model.refresh_from_db()
    assert (model.concurrency, model.top_logprobs, model.base_url) == (2, 0, "http://127.0.0.1:8080/v1")


def test_add_model_refuses_a_pasted_key_and_saves_nothing(db):
    with pytest.raises(CommandError, match="api_key_env: Give the name of an environment variable"):
        _call("add_model", "lab/leaky", "--api-key-env", "sk-or-v1-0123456789abcdef")
    assert not LLMModel.objects.filter(slug="lab/leaky").exists()


def test_a_newly_retained_key_marks_a_profile_stale_and_rescoring_uses_the_stored_answers(
    instrument, fake_model, fake_provider
):
    _call("run_instrument", "virtuemap", "--model", fake_model.slug, "--min-runs", "1", "--max-runs", "1")
    run = Run.objects.get()
    _call("publish", str(run.pk))
    calls = len(fake_provider.requests)
    key = KeyCandidate.objects.get(dilemma_id="D1", virtue_id="wisdom", status="retained")
    key.status = "superseded"
    key.save()
    KeyCandidate.objects.create(
        dilemma_id="D1", virtue_id="wisdom", ordering="EDCBA", round=1, provenance="consensus", status="retained"
    )

    assert json.loads(_call("show_results", str(run.pk), "--format", "json"))["runs"] == 1
    assert "1 stale result(s) re-scored" in _call("rescore_results")

    result = Result.objects.get(model=fake_model, instrument="virtuemap")
    assert KeyCandidate.objects.get(ordering="EDCBA").pk in result.dependencies["keys"]
    assert len(fake_provider.requests) == calls  # no model was asked
    assert "0 stale result(s) re-scored" in _call("rescore_results")
