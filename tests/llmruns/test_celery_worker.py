"""Figure 3: a real Celery worker killed (SIGKILL) three times mid-suite and restarted; the suite of 203 item calls
finishes with every item stored exactly once.

The worker is a separate process, so it needs a database both processes can see (PostgreSQL) and a broker
(Redis): the test is marked `postgres` and skipped on SQLite. A killed worker's message stays unacknowledged in
Redis for hours (the visibility timeout outlasts every task); celery beat's `resume_stalled_suites` notices the
silent suite and queues it again, which is what brings the suite back here.
"""

from __future__ import annotations

import time

import pytest
from django.db.models import Count

from llmruns.models import ItemResponse, LLMModel, QuestionnaireRun, Suite
from llmruns.services import suite_start
from llmruns.tasks import suite_run
from llmruns.testing import FakeProvider
from surveys.services import instrument_load_file

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RUNS = 29  # × 7 dilemmas = 203 item calls
KILLS_AT = (30, 90, 150)  # stored items at which the worker is killed


def _done(suite: Suite) -> int:
    return ItemResponse.objects.filter(run__suite=suite, status=ItemResponse.Status.DONE).count()


def test_a_suite_of_203_items_survives_three_killed_workers_with_every_item_stored_once(celery_stack, capsys):
    instrument_load_file()
    with FakeProvider(delay=0.3) as provider:
        model = LLMModel.objects.create(
            slug="fake/killed", name="Fake (killed worker)", base_url=provider.base_url, model_id="fake",
            requests_per_minute=0, concurrency=4,
        )  # fmt: skip
        suite = suite_start(model=model, min_runs=RUNS, max_runs=RUNS, seed=11, enqueue=False)
        stack = celery_stack()
        stack.start_beat()
        stack.start_worker()
        started = time.monotonic()
        suite_run.apply_async(args=[suite.pk], queue=stack.queue)
        for threshold in KILLS_AT:
            stack.wait_for(lambda threshold=threshold: _done(suite) >= threshold, f"{threshold} stored items")
            stack.kill_worker()
            assert Suite.objects.get(pk=suite.pk).status in Suite.ACTIVE_STATUSES
            stack.start_worker()
        stack.wait_for(lambda: Suite.objects.get(pk=suite.pk).status not in Suite.ACTIVE_STATUSES, "the suite's end")
        duration = time.monotonic() - started
        calls = len(provider.requests)

    suite.refresh_from_db()
    # Ended by the stopping rule at the minimum (= maximum) of runs: "stopped early" or "finished at cap".
    assert suite.is_finished, stack.tail()
    items = ItemResponse.objects.filter(run__suite=suite)
    assert QuestionnaireRun.objects.filter(suite=suite, valid=True).count() == RUNS
    assert items.count() == RUNS * 7
    assert not items.values("run", "dilemma").annotate(n=Count("id")).filter(n__gt=1).exists()
    # Exactly once: one stored answer per item, none asked again after it was stored.
    duplicates = sum(1 for attempts in items.values_list("attempts", flat=True) if len(attempts) != 1)
    assert duplicates == 0
    assert all(item.valid and item.status == ItemResponse.Status.DONE for item in items)
    with capsys.disabled():
        print(
            f"\nfigure 3: {items.count()} items stored, {len(KILLS_AT)} worker kills, {duplicates} duplicates, "
            f"{calls} provider calls ({calls - items.count()} lost with the killed workers), {duration:.1f} s"
        )
