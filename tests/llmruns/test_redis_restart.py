"""Figure 4: Redis restarted in the middle of a suite (without persistence, so every message it held is lost):
both the running suite and the one waiting in the queue finish, nothing lost or doubled.

The test starts its own redis-server on a free port and restarts that one only. PostgreSQL and Redis only.
"""

from __future__ import annotations

import base64
import json
import time

import pytest
from django.db.models import Count

from instruments.virtuemap.services import instrument_load_file
from llmruns.models import LLMModel, Run, Trial
from llmruns.tasks import run_task
from llmruns.testing import FakeProvider
from tests.llmruns.runs import suite_start
from virtuemap_site.celery import app

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _ended(run: Run) -> bool:
    return Run.objects.get(pk=run.pk).status not in Run.ACTIVE_STATUSES


def _queued_runs(client, queue: str) -> list[int]:
    """The runs whose `run_task` messages wait in the queue (celery beat's messages are other tasks)."""
    runs = []
    for raw in client.lrange(queue, 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] == run_task.name:
            args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
            runs.append(args[0])
    return runs


def _stored(run: Run) -> int:
    return Trial.objects.filter(run=run, status=Trial.Status.DONE).count()


def test_a_redis_restart_mid_suite_loses_no_suite_and_no_item(own_redis, celery_stack, capsys):
    instrument_load_file()
    with FakeProvider(delay=0.3) as provider:
        model = LLMModel.objects.create(
            slug="fake/redis", name="Fake (Redis restart)", base_url=provider.base_url, model_id="fake",
            requests_per_minute=0, concurrency=2,
        )  # fmt: skip
        running = suite_start(model, min_runs=6, max_runs=6, seed=5)
        waiting = suite_start(model, min_runs=3, max_runs=3, seed=6)
        stack = celery_stack(own_redis.url)
        stack.start_beat()
        stack.start_worker()
        started = time.monotonic()
        with app.connection_for_write(own_redis.url) as connection:
            run_task.apply_async(args=[running.pk], queue=stack.queue, connection=connection)
            stack.wait_for(lambda: _stored(running) >= 10, "the first suite's first items")
            # One worker process, busy: the second suite's message waits in Redis.
            run_task.apply_async(args=[waiting.pk], queue=stack.queue, connection=connection)
        assert waiting.pk in _queued_runs(own_redis.client, stack.queue)

        own_redis.stop()
        time.sleep(1.0)
        own_redis.start()
        # The waiting suite's message is gone with the old server. (Celery beat, which asks every second for stalled
        # runs, may already have queued its own message on the new one: under load it reconnects that fast.)
        assert waiting.pk not in _queued_runs(own_redis.client, stack.queue)
        stored_at_restart = _stored(running) + _stored(waiting)

        stack.wait_for(lambda: _ended(running) and _ended(waiting), "both suites to end")
        duration = time.monotonic() - started

    items = 0
    for run, runs in ((running, 6), (waiting, 3)):
        run.refresh_from_db()
        assert run.is_finished, stack.tail()
        assert run.progress["runs"] == runs
        stored = Trial.objects.filter(run=run)
        assert stored.count() == runs * 7
        assert not stored.annotate(n=Count("attempts")).exclude(n=1).exists()
        items += stored.count()
    with capsys.disabled():
        print(
            f"\nfigure 4: Redis restarted with {stored_at_restart} of {items} items stored and one suite's message "
            f"queued: {items} items stored, 0 lost, 0 duplicates, both suites finished in {duration:.1f} s"
        )
