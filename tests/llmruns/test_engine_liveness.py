"""Runs of every instrument survive lost messages, dead workers and duplicate deliveries the same way: the state is in
the database, celery beat queues silent runs again, and only a stale run is claimed twice."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from instruments.transitivity.testing import scripted_logprobs
from llmruns import engine, tasks
from llmruns.engine import run_execute, run_start, runs_stalled_resume
from llmruns.models import Attempt, Run, Trial

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def runs_go_to_the_broker(settings):
    """These tests model a Celery worker and its broker, so a run is sent as a task message, never to the process's
    own background thread (`llmruns.background`, the embedded defaults' way)."""
    settings.LLM_RUNS_IN_BACKGROUND = False


PLANS = {"virtuemap": {"min_runs": 1, "max_runs": 1}, "transitivity": {"blocks": ["1"], "orders": ["original"]}}
TRIALS = {"virtuemap": 7, "transitivity": 21}


@pytest.fixture(params=["virtuemap", "transitivity"])
def instrument_slug(request, instrument, transitivity_instrument, fake_provider):
    fake_provider.logprobs = scripted_logprobs
    return request.param


def _run(model, slug: str, status: str, silent_for: float) -> Run:
    run = run_start(instrument=slug, model=model, plan=PLANS[slug], seed=1, enqueue=False)
    heartbeat = timezone.now() - timedelta(seconds=silent_for)
    Run.objects.filter(pk=run.pk).update(status=status, heartbeat_at=heartbeat)
    return run


def test_a_running_run_silent_past_the_stall_time_is_queued_again_after_commit(
    instrument_slug, fake_model, django_capture_on_commit_callbacks
):
    run = _run(fake_model, instrument_slug, Run.Status.RUNNING, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    with django_capture_on_commit_callbacks() as callbacks:
        assert runs_stalled_resume() == [run.pk]
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED
    assert timezone.now() - run.heartbeat_at < timedelta(seconds=5)
    assert len(callbacks) == 1


def test_a_queued_run_whose_message_was_lost_is_queued_again(instrument_slug, fake_model):
    run = _run(fake_model, instrument_slug, Run.Status.QUEUED, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    assert runs_stalled_resume() == [run.pk]


def test_a_run_with_a_recent_heartbeat_is_left_alone(instrument_slug, fake_model, django_capture_on_commit_callbacks):
    _run(fake_model, instrument_slug, Run.Status.RUNNING, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS - 10)
    with django_capture_on_commit_callbacks() as callbacks:
        assert runs_stalled_resume() == []
    assert callbacks == []


@pytest.mark.parametrize("status", ["paused", "cancelled", "failed", "finished"])
def test_runs_that_ended_or_wait_for_a_person_are_never_resumed(instrument_slug, fake_model, status):
    _run(fake_model, instrument_slug, status, silent_for=10 * settings.LLMRUNS_SUITE_STALL_SECONDS)
    assert runs_stalled_resume() == []


def test_a_duplicate_message_for_a_run_a_live_worker_holds_does_nothing(instrument_slug, fake_model, fake_provider):
    run = _run(fake_model, instrument_slug, Run.Status.RUNNING, silent_for=1)
    assert run_execute(run_id=run.pk).status == Run.Status.RUNNING
    assert fake_provider.requests == []


def test_a_running_run_whose_worker_died_is_claimed_and_finished(instrument_slug, fake_model):
    run = _run(fake_model, instrument_slug, Run.Status.RUNNING, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    assert run_execute(run_id=run.pk).status == Run.Status.FINISHED
    assert Trial.objects.filter(run=run, answer_status="valid").count() == TRIALS[instrument_slug]


def test_a_resumed_run_runs_to_its_end_once_its_message_is_delivered(
    instrument_slug, fake_model, monkeypatch, django_capture_on_commit_callbacks
):
    # The broker is what leaves the process: the message is delivered in-process instead.
    monkeypatch.setattr(
        tasks.run_task, "apply_async", lambda args=None, kwargs=None, **options: tasks.run_task.apply(args, kwargs)
    )
    run = _run(fake_model, instrument_slug, Run.Status.QUEUED, silent_for=settings.LLMRUNS_SUITE_STALL_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        runs_stalled_resume()
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED


def test_the_worker_refreshes_the_heartbeat_while_the_run_goes_on(instrument_slug, fake_model, fake_provider, settings):
    settings.LLMRUNS_SUITE_STALL_SECONDS = 1
    fake_provider.delay = 0.1
    run = run_start(instrument=instrument_slug, model=fake_model, plan=PLANS[instrument_slug], seed=1, enqueue=False)
    queued_at = run.heartbeat_at
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.FINISHED
    assert run.heartbeat_at > queued_at


def test_a_task_at_its_soft_time_limit_hands_the_run_to_a_new_task(
    instrument_slug, fake_model, monkeypatch, django_capture_on_commit_callbacks
):
    run = _run(fake_model, instrument_slug, Run.Status.RUNNING, silent_for=0)

    def hang(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(tasks, "run_execute", hang)
    with django_capture_on_commit_callbacks() as callbacks:
        assert tasks.run_task.run(run.pk) == "requeued"
    assert Run.objects.get(pk=run.pk).status == Run.Status.QUEUED
    assert len(callbacks) == 1


def test_reaching_the_cost_budget_pauses_a_run_of_any_instrument(instrument_slug, fake_model, fake_provider):
    fake_model.concurrency = 1
    fake_model.save()
    fake_provider.cost = 0.01
    run = run_start(
        instrument=instrument_slug, model=fake_model, plan=PLANS[instrument_slug], seed=1, cost_budget=0.025,
        enqueue=False,
    )  # fmt: skip

    run = run_execute(run_id=run.pk)

    assert run.status == Run.Status.PAUSED and run.stop_reason == "cost_budget"
    # The third answer reaches the budget; the fourth was already asked (one in flight) and is kept.
    assert Trial.objects.filter(run=run, status=Trial.Status.DONE).count() == 4


def test_an_unexpected_error_is_stored_with_secrets_redacted_for_any_instrument(
    instrument_slug, fake_model, monkeypatch
):
    from llmruns.backends.openai_compatible import OpenAICompatibleBackend
    from virtuemap_site.log_filters import register_secret

    register_secret("sk-live-abcdef0123456789")

    def explode(self, *args, **kwargs):
        raise RuntimeError("client broke with key sk-live-abcdef0123456789 in its message")

    monkeypatch.setattr(OpenAICompatibleBackend, "complete", explode)
    monkeypatch.setattr(OpenAICompatibleBackend, "first_token", explode)
    run = run_start(instrument=instrument_slug, model=fake_model, plan=PLANS[instrument_slug], seed=1, enqueue=False)

    run = run_execute(run_id=run.pk)

    assert run.status == Run.Status.FAILED
    stored = [run.stop_detail, *Trial.objects.filter(run=run).values_list("last_error", flat=True)]
    assert all("sk-live-abcdef0123456789" not in text for text in stored)
    assert "client broke" in run.stop_detail


def test_celery_beat_checks_for_stalled_runs(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["resume-stalled-runs"]
    assert entry["task"] == "llmruns.tasks.resume_stalled_runs"
    assert entry["schedule"] < settings.LLMRUNS_SUITE_STALL_SECONDS


@pytest.mark.django_db(transaction=True)
def test_a_live_worker_keeps_a_trial_slower_than_the_lease(instrument, fake_model, fake_provider, settings):
    """A trial answered for longer than the lease (a judged AMAeval chain on a small machine) stays with the live
    worker answering it, which renews its claim: no other worker can take it over, and its answer is stored once."""
    settings.LLMRUNS_ITEM_LEASE_SECONDS = 2
    fake_provider.delay = 4.0
    fake_model.concurrency = TRIALS["virtuemap"]  # every trial in flight at once
    fake_model.save()
    run = run_start(instrument="virtuemap", model=fake_model, plan=PLANS["virtuemap"], seed=1, enqueue=False)
    worker = threading.Thread(target=run_execute, kwargs={"run_id": run.pk})
    worker.start()
    try:
        time.sleep(3.0)  # past the lease, while the trials are still being answered
        lease = timedelta(seconds=settings.LLMRUNS_ITEM_LEASE_SECONDS)
        in_flight = list(Trial.objects.filter(run=run, status=Trial.Status.RUNNING))
        taken_over = [engine._trial_claim(trial, lease) for trial in in_flight]
    finally:
        worker.join(timeout=60)
    assert in_flight and taken_over == [None] * len(in_flight)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert Trial.objects.filter(run=run, answer_status="valid").count() == TRIALS["virtuemap"]
    assert Attempt.objects.filter(trial__run=run).count() == TRIALS["virtuemap"]  # none asked twice
