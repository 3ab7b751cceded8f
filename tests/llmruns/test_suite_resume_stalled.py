"""Suites whose worker vanished or whose message was lost are queued again by celery beat; state is in the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from llmruns import tasks
from llmruns.models import ItemResponse, Suite
from llmruns.services import suite_execute, suite_start, suites_stalled_resume

pytestmark = pytest.mark.django_db


def _suite(model, status: str, silent_for: float) -> Suite:
    suite = suite_start(model=model, min_runs=1, max_runs=1, seed=1, enqueue=False)
    heartbeat = timezone.now() - timedelta(seconds=silent_for)
    Suite.objects.filter(pk=suite.pk).update(status=status, heartbeat_at=heartbeat)
    return suite


def test_a_running_suite_silent_past_the_stall_time_is_queued_again_after_commit(
    instrument, fake_model, django_capture_on_commit_callbacks
):
    suite = _suite(fake_model, Suite.Status.RUNNING, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    with django_capture_on_commit_callbacks() as callbacks:
        assert suites_stalled_resume() == [suite.pk]
    suite.refresh_from_db()
    assert suite.status == Suite.Status.QUEUED
    assert timezone.now() - suite.heartbeat_at < timedelta(seconds=5)
    assert len(callbacks) == 1


def test_a_queued_suite_whose_message_was_lost_is_queued_again(instrument, fake_model):
    suite = _suite(fake_model, Suite.Status.QUEUED, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    assert suites_stalled_resume() == [suite.pk]


def test_a_suite_with_a_recent_heartbeat_is_left_alone(instrument, fake_model, django_capture_on_commit_callbacks):
    _suite(fake_model, Suite.Status.RUNNING, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS - 10)
    with django_capture_on_commit_callbacks() as callbacks:
        assert suites_stalled_resume() == []
    assert callbacks == []


@pytest.mark.parametrize("status", ["paused", "cancelled", "failed", "finished_at_cap"])
def test_suites_that_ended_or_wait_for_a_person_are_never_resumed(instrument, fake_model, status):
    _suite(fake_model, status, silent_for=10 * settings.LLMRUNS_SUITE_STALL_SECONDS)
    assert suites_stalled_resume() == []


def test_a_duplicate_message_for_a_suite_a_live_worker_runs_does_nothing(instrument, fake_model, fake_provider):
    suite = _suite(fake_model, Suite.Status.RUNNING, silent_for=1)
    assert suite_execute(suite_id=suite.pk).status == Suite.Status.RUNNING
    assert fake_provider.requests == []


def test_a_running_suite_whose_worker_died_is_claimed_and_finished(instrument, fake_model):
    suite = _suite(fake_model, Suite.Status.RUNNING, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    assert suite_execute(suite_id=suite.pk).status == Suite.Status.FINISHED_AT_CAP
    assert ItemResponse.objects.filter(run__suite=suite, valid=True).count() == 7


def test_a_resumed_suite_runs_to_its_end_once_its_message_is_delivered(
    instrument, fake_model, monkeypatch, django_capture_on_commit_callbacks
):
    # The broker is what leaves the process: the message is delivered in-process instead.
    monkeypatch.setattr(tasks.suite_run, "delay", lambda *args: tasks.suite_run.apply(args))
    suite = _suite(fake_model, Suite.Status.QUEUED, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        suites_stalled_resume()
    suite.refresh_from_db()
    assert suite.status == Suite.Status.FINISHED_AT_CAP


def test_the_worker_refreshes_the_heartbeat_while_the_suite_runs(instrument, fake_model, fake_provider, settings):
    settings.LLMRUNS_SUITE_STALL_SECONDS = 1
    fake_provider.delay = 0.1
    suite = suite_start(model=fake_model, min_runs=2, max_runs=2, seed=1, enqueue=False)
    queued_at = suite.heartbeat_at
    suite = suite_execute(suite_id=suite.pk)
    assert suite.status == Suite.Status.FINISHED_AT_CAP
    assert suite.heartbeat_at > queued_at


def test_a_task_at_its_soft_time_limit_hands_the_suite_to_a_new_task(
    instrument, fake_model, monkeypatch, django_capture_on_commit_callbacks
):
    suite = _suite(fake_model, Suite.Status.RUNNING, silent_for=0)

    def hang(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(tasks, "suite_execute", hang)
    with django_capture_on_commit_callbacks() as callbacks:
        assert tasks.suite_run.run(suite.pk) == "requeued"
    assert Suite.objects.get(pk=suite.pk).status == Suite.Status.QUEUED
    assert len(callbacks) == 1


def test_celery_beat_checks_for_stalled_suites(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["resume-stalled-suites"]
    assert entry["task"] == "llmruns.tasks.resume_stalled_suites"
    assert entry["schedule"] < settings.LLMRUNS_SUITE_STALL_SECONDS
