from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from llmruns.models import ItemResponse, LLMModel, ModelProfile, Suite
from llmruns.services import suite_execute, suite_start

pytestmark = pytest.mark.django_db

RUNS_PATH = Path(__file__).resolve().parents[1] / "data" / "reference_runs_sample.jsonl"


@pytest.fixture
def finished_suite(instrument, fake_model):
    suite = suite_start(model=fake_model, min_runs=2, max_runs=2, seed=1, enqueue=False)
    return suite_execute(suite_id=suite.pk)


def test_the_suite_list_shows_runs_means_and_the_interval(admin_client, finished_suite):
    page = admin_client.get("/admin/llmruns/suite/").content.decode()

    assert "2 / 2 (max 2)" in page
    assert "wisd " in page
    assert "Finished at cap" in page


def test_an_item_response_shows_the_raw_text_of_every_attempt(admin_client, finished_suite):
    item = ItemResponse.objects.filter(run__suite=finished_suite).first()
    item.attempts = [{"attempt": 1, "status": "refusal", "raw_text": "I'm sorry <no>", "detail": "declined"}]
    item.save()

    page = admin_client.get(f"/admin/llmruns/itemresponse/{item.pk}/change/").content.decode()

    assert "I&#x27;m sorry &lt;no&gt;" in page
    assert "refusal" in page


def test_item_responses_cannot_be_edited_in_admin(admin_client, finished_suite):
    item = ItemResponse.objects.filter(run__suite=finished_suite).first()

    response = admin_client.post(f"/admin/llmruns/itemresponse/{item.pk}/change/", {"canonical_ranking": "EDCBA"})

    assert response.status_code == 403


def test_the_publish_action_writes_the_model_profile(admin_client, finished_suite):
    admin_client.post(
        "/admin/llmruns/suite/", {"action": "publish", "_selected_action": [finished_suite.pk]}, follow=True
    )

    assert ModelProfile.objects.get(model=finished_suite.model).source == ModelProfile.Source.SUITE


def test_the_cancel_action_cancels_a_queued_suite(admin_client, instrument, fake_model):
    suite = suite_start(model=fake_model, enqueue=False)

    admin_client.post("/admin/llmruns/suite/", {"action": "cancel", "_selected_action": [suite.pk]}, follow=True)

    suite.refresh_from_db()
    assert suite.status == Suite.Status.CANCELLED


def test_the_resume_action_queues_a_cancelled_suite_again(admin_client, instrument, fake_model):
    suite = suite_start(model=fake_model, enqueue=False)
    admin_client.post("/admin/llmruns/suite/", {"action": "cancel", "_selected_action": [suite.pk]})

    admin_client.post("/admin/llmruns/suite/", {"action": "resume", "_selected_action": [suite.pk]})

    suite.refresh_from_db()
    assert suite.status == Suite.Status.QUEUED


def test_the_start_action_creates_a_queued_suite(admin_client, instrument, fake_model):
    admin_client.post("/admin/llmruns/llmmodel/", {"action": "start_suite", "_selected_action": [fake_model.pk]})

    assert Suite.objects.get(model=fake_model).status == Suite.Status.QUEUED


def test_imported_suites_appear_in_the_suite_list(admin_client, instrument):
    call_command("import_runs", str(RUNS_PATH), stdout=io.StringIO())

    page = admin_client.get("/admin/llmruns/suite/").content.decode()

    assert page.count("Imported records") >= 3
    assert LLMModel.objects.filter(slug="openai/gpt-5").exists()


def test_the_model_list_links_each_model_to_its_latest_suite(admin_client, finished_suite):
    page = admin_client.get("/admin/llmruns/llmmodel/").content.decode()

    assert f"/admin/llmruns/suite/{finished_suite.pk}/change/" in page
    assert f"#{finished_suite.pk} finished_at_cap" in page
