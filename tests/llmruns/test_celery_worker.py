"""Figure 3: a real Celery worker killed (SIGKILL) three times in the middle of a VirtueMap suite (203 calls) and a
transitivity run (252 calls) queued together; both finish with every trial stored exactly once. And a transitivity
run whose message never reached the broker is started by celery beat.

The worker is a separate process, so it needs a database both processes can see (PostgreSQL) and a broker
(Redis): the tests are marked `postgres` and skipped on SQLite. A killed worker's message stays unacknowledged in
Redis for hours (the visibility timeout outlasts every task); celery beat's `resume_stalled_runs` notices the silent
run and queues it again, which is what brings the runs back here.
"""

from __future__ import annotations

import time

import pytest
from django.db.models import Count

from instruments.transitivity.services import transitivity_instrument_load_file
from instruments.transitivity.testing import scripted_logprobs
from instruments.virtuemap.services import instrument_load_file
from llmruns.engine import run_start
from llmruns.models import LLMModel, Run, Trial
from llmruns.tasks import run_task
from llmruns.testing import FakeProvider

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RUNS = 29  # × 7 dilemmas = 203 calls
CHOICES = 252  # 6 blocks × 21 pairs × 2 orders
KILLS_AT = (60, 200, 340)  # stored trials (of both runs) at which the worker is killed


def _stored() -> int:
    return Trial.objects.filter(status=Trial.Status.DONE).count()


def _ended(*runs: Run) -> bool:
    return all(Run.objects.get(pk=run.pk).status not in Run.ACTIVE_STATUSES for run in runs)


def _model(provider: FakeProvider) -> LLMModel:
    return LLMModel.objects.create(
        slug="fake/killed", name="Fake (killed worker)", base_url=provider.base_url, model_id="fake",
        requests_per_minute=0, concurrency=4, top_logprobs=20,
    )  # fmt: skip


def test_a_suite_and_a_transitivity_run_survive_three_killed_workers_with_every_trial_stored_once(celery_stack, capsys):
    instrument_load_file()
    transitivity_instrument_load_file()
    with FakeProvider(delay=0.2, logprobs=scripted_logprobs) as provider:
        model = _model(provider)
        plan = {"min_runs": RUNS, "max_runs": RUNS}
        suite = run_start(instrument="virtuemap", model=model, plan=plan, seed=11, enqueue=False)
        choices = run_start(instrument="transitivity", model=model, seed=11, enqueue=False)
        stack = celery_stack()
        stack.start_beat()
        stack.start_worker()
        started = time.monotonic()
        for run in (suite, choices):
            run_task.apply_async(args=[run.pk], queue=stack.queue)
        for threshold in KILLS_AT:
            stack.wait_for(lambda threshold=threshold: _stored() >= threshold, f"{threshold} stored trials", 180)
            stack.kill_worker()
            stack.start_worker()
        stack.wait_for(lambda: _ended(suite, choices), "the end of both runs", 240)
        duration = time.monotonic() - started
        calls = len(provider.requests)

    for run, expected in ((suite, RUNS * 7), (choices, CHOICES)):
        run.refresh_from_db()
        assert run.status == Run.Status.FINISHED, (run.stop_detail, stack.tail())
        trials = Trial.objects.filter(run=run)
        assert trials.count() == expected
        assert not trials.values("item", "presentation", "replicate").annotate(n=Count("id")).filter(n__gt=1).exists()
        assert all(trial.valid and trial.status == Trial.Status.DONE for trial in trials)
    # Exactly once: one stored request per trial, none asked again after it was stored.
    stored = Trial.objects.count()
    duplicates = Trial.objects.annotate(n=Count("attempts")).exclude(n=1).count()
    assert duplicates == 0
    with capsys.disabled():
        print(
            f"\nfigure 3: {stored} trials stored (VirtueMap {RUNS * 7}, transitivity {CHOICES}), {len(KILLS_AT)} "
            f"worker kills, {duplicates} duplicates, {calls} provider calls ({calls - stored} lost with the killed "
            f"workers), {duration:.1f} s"
        )


def test_a_transitivity_run_whose_message_was_lost_is_started_by_celery_beat(celery_stack):
    transitivity_instrument_load_file()
    with FakeProvider(logprobs=scripted_logprobs) as provider:
        model = _model(provider)
        # Created and committed, but its message never sent: what a broker outage at the wrong moment leaves.
        run = run_start(instrument="transitivity", model=model, plan={"blocks": ["1"]}, seed=3, enqueue=False)
        stack = celery_stack()
        stack.start_beat()
        stack.start_worker()
        stack.wait_for(lambda: _ended(run), "the lost run's end", 120)

    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert Trial.objects.filter(run=run, answer_status="valid").count() == 42
