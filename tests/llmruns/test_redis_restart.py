"""Figure 4: Redis restarted in the middle of a suite (without persistence, so every message it held is lost):
both the running suite and the one waiting in the queue finish, nothing lost or doubled.

The test starts its own redis-server on a free port and restarts that one only. PostgreSQL and Redis only.
"""

from __future__ import annotations

import time

import pytest

from llmruns.models import ItemResponse, LLMModel, QuestionnaireRun, Suite
from llmruns.services import suite_start
from llmruns.tasks import suite_run
from llmruns.testing import FakeProvider
from surveys.services import instrument_load_file
from virtuemap_site.celery import app

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _ended(suite: Suite) -> bool:
    return Suite.objects.get(pk=suite.pk).status not in Suite.ACTIVE_STATUSES


def _stored(suite: Suite) -> int:
    return ItemResponse.objects.filter(run__suite=suite, status=ItemResponse.Status.DONE).count()


def test_a_redis_restart_mid_suite_loses_no_suite_and_no_item(own_redis, celery_stack, capsys):
    instrument_load_file()
    with FakeProvider(delay=0.3) as provider:
        model = LLMModel.objects.create(
            slug="fake/redis", name="Fake (Redis restart)", base_url=provider.base_url, model_id="fake",
            requests_per_minute=0, concurrency=2,
        )  # fmt: skip
        running = suite_start(model=model, min_runs=6, max_runs=6, seed=5, enqueue=False)
        waiting = suite_start(model=model, min_runs=3, max_runs=3, seed=6, enqueue=False)
        stack = celery_stack(own_redis.url)
        stack.start_beat()
        stack.start_worker()
        started = time.monotonic()
        with app.connection_for_write(own_redis.url) as connection:
            suite_run.apply_async(args=[running.pk], queue=stack.queue, connection=connection)
            stack.wait_for(lambda: _stored(running) >= 10, "the first suite's first items")
            # One worker process, busy: the second suite's message waits in Redis.
            suite_run.apply_async(args=[waiting.pk], queue=stack.queue, connection=connection)
        assert own_redis.client.llen(stack.queue) >= 1

        own_redis.stop()
        time.sleep(1.0)
        own_redis.start()
        assert own_redis.client.llen(stack.queue) == 0  # every message is gone with the old server
        stored_at_restart = _stored(running) + _stored(waiting)

        stack.wait_for(lambda: _ended(running) and _ended(waiting), "both suites to end")
        duration = time.monotonic() - started

    items = 0
    for suite, runs in ((running, 6), (waiting, 3)):
        suite.refresh_from_db()
        assert suite.is_finished, stack.tail()
        assert QuestionnaireRun.objects.filter(suite=suite, valid=True).count() == runs
        stored = ItemResponse.objects.filter(run__suite=suite)
        assert stored.count() == runs * 7
        assert all(len(attempts) == 1 for attempts in stored.values_list("attempts", flat=True))
        items += stored.count()
    with capsys.disabled():
        print(
            f"\nfigure 4: Redis restarted with {stored_at_restart} of {items} items stored and one suite's message "
            f"queued: {items} items stored, 0 lost, 0 duplicates, both suites finished in {duration:.1f} s"
        )
