from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from llmruns.engine import run_execute
from llmruns.models import Attempt, LLMModel, Result, Run, Trial
from tests.llmruns.runs import suite_start

pytestmark = pytest.mark.django_db

RUNS_PATH = Path(__file__).resolve().parents[1] / "data" / "reference_runs_sample.jsonl"


@pytest.fixture
def finished_suite(instrument, fake_model):
    return run_execute(run_id=suite_start(fake_model, min_runs=2, max_runs=2).pk)


def test_the_run_list_shows_runs_means_and_the_interval(admin_client, finished_suite):
    page = admin_client.get("/admin/llmruns/run/").content.decode()

    assert "2 valid of 2 runs" in page
    assert "wisd " in page
    assert "14 / 14" in page
    assert "Finished" in page


def test_a_trial_shows_the_raw_text_of_every_attempt(admin_client, finished_suite):
    trial = Trial.objects.filter(run=finished_suite).first()
    Attempt.objects.filter(trial=trial).update(raw_text="I'm sorry <no>", status="refusal", detail="declined")

    page = admin_client.get(f"/admin/llmruns/trial/{trial.pk}/change/").content.decode()

    assert "I&#x27;m sorry &lt;no&gt;" in page
    assert "refusal" in page


def test_trials_cannot_be_edited_in_admin(admin_client, finished_suite):
    trial = Trial.objects.filter(run=finished_suite).first()

    response = admin_client.post(f"/admin/llmruns/trial/{trial.pk}/change/", {"answer_status": "valid"})

    assert response.status_code == 403


def test_the_publish_action_writes_the_model_result(admin_client, finished_suite):
    admin_client.post(
        "/admin/llmruns/run/", {"action": "publish", "_selected_action": [finished_suite.pk]}, follow=True
    )

    result = Result.objects.get(model=finished_suite.model, instrument="virtuemap")
    assert result.source == Result.Source.RUN and result.run == finished_suite


def test_the_cancel_action_cancels_a_queued_run(admin_client, instrument, fake_model):
    run = suite_start(fake_model)

    admin_client.post("/admin/llmruns/run/", {"action": "cancel", "_selected_action": [run.pk]}, follow=True)

    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_the_resume_action_queues_a_cancelled_run_again(admin_client, instrument, fake_model):
    run = suite_start(fake_model)
    admin_client.post("/admin/llmruns/run/", {"action": "cancel", "_selected_action": [run.pk]})

    admin_client.post("/admin/llmruns/run/", {"action": "resume", "_selected_action": [run.pk]})

    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED


@pytest.mark.parametrize("slug", ["virtuemap", "transitivity"])
def test_the_model_list_starts_a_run_of_each_registered_instrument(
    admin_client, instrument, transitivity_instrument, fake_model, slug
):
    admin_client.post("/admin/llmruns/llmmodel/", {"action": f"start_{slug}", "_selected_action": [fake_model.pk]})

    assert Run.objects.get(model=fake_model, instrument=slug).status == Run.Status.QUEUED


@pytest.mark.django_db(transaction=True)
def test_without_a_celery_worker_a_run_started_from_admin_runs_in_the_background_and_the_page_returns_at_once(
    admin_client, instrument, fake_provider, fake_model, settings
):
    settings.LLM_RUNS_IN_BACKGROUND = True  # the embedded defaults' value: tasks execute in-process
    fake_provider.delay = 0.2  # 21 calls, four at a time: the run takes over a second

    page = admin_client.post(
        "/admin/llmruns/llmmodel/", {"action": "start_virtuemap", "_selected_action": [fake_model.pk]}, follow=True
    )

    run = Run.objects.get(model=fake_model)
    assert "queued in the background of this server process" in page.text
    assert run.status in Run.ACTIVE_STATUSES  # the request did not wait for the run
    deadline = time.monotonic() + 120
    while run.status in Run.ACTIVE_STATUSES and time.monotonic() < deadline:
        time.sleep(0.2)
        run.refresh_from_db()
    assert run.status == Run.Status.FINISHED and run.trials_done == run.trials_total > 0
    assert admin_client.get(f"/admin/llmruns/run/{run.pk}/change/").status_code == 200


def test_imported_runs_appear_in_the_run_list(admin_client, instrument):
    call_command("import_runs", str(RUNS_PATH), stdout=io.StringIO())

    page = admin_client.get("/admin/llmruns/run/").content.decode()

    assert page.count("Imported records") >= 3
    assert LLMModel.objects.filter(slug="openai/gpt-5").exists()


def test_the_model_list_links_each_model_to_its_latest_run(admin_client, finished_suite):
    page = admin_client.get("/admin/llmruns/llmmodel/").content.decode()

    assert f"/admin/llmruns/run/{finished_suite.pk}/change/" in page
    assert f"#{finished_suite.pk} virtuemap finished" in page


LONG_FLOAT = re.compile(r"\d\.\d{8,}")


def test_a_run_s_page_shows_its_plan_and_progress_formatted_without_a_save_button(admin_client, finished_suite):
    page = admin_client.get(f"/admin/llmruns/run/{finished_suite.pk}/change/").content.decode()

    assert "min_runs: 2" in page and "ci_threshold: 5" in page
    assert "2 valid of 2 runs" in page
    assert not LONG_FLOAT.findall(page)
    assert 'name="_save"' not in page


def test_a_run_cannot_be_changed_by_posting_to_its_page(admin_client, finished_suite):
    response = admin_client.post(f"/admin/llmruns/run/{finished_suite.pk}/change/", {"status": "queued"})

    assert response.status_code == 403
    finished_suite.refresh_from_db()
    assert finished_suite.status == Run.Status.FINISHED


def test_a_result_s_summary_is_shown_as_lines_with_short_numbers(admin_client, finished_suite):
    admin_client.post("/admin/llmruns/run/", {"action": "publish", "_selected_action": [finished_suite.pk]})
    result = Result.objects.get(run=finished_suite)

    page = admin_client.get(f"/admin/llmruns/result/{result.pk}/change/").content.decode()

    assert "profile_stats:" in page and "runs: 2" in page
    assert not LONG_FLOAT.findall(page)
    assert 'name="_save"' not in page


def test_the_run_list_keeps_its_actions(admin_client, finished_suite):
    page = admin_client.get("/admin/llmruns/run/").content.decode()

    assert 'value="resume"' in page and 'value="publish"' in page
