"""A real Celery worker on Redis, killed mid-suite and restarted: the suite finishes with no item lost or doubled.

The worker is a separate process, so it needs a database both processes can see (PostgreSQL) and a broker
(Redis): the test is marked `postgres` and skipped on SQLite. Each test uses its own queue, so messages left
by an earlier run can never reach it. Short visibility timeout and item lease stand in for the hour-long
production values.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from llmruns.models import ItemResponse, LLMModel, QuestionnaireRun, Suite
from llmruns.services import suite_start
from llmruns.tasks import suite_run
from llmruns.testing import FakeProvider
from surveys.services import instrument_load_file

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
WAIT_LIMIT = 120.0


def _database_url() -> str:
    database = settings.DATABASES["default"]
    user = database.get("USER") or "postgres"
    password = f":{database['PASSWORD']}" if database.get("PASSWORD") else ""
    host = f"{database.get('HOST') or '127.0.0.1'}:{database.get('PORT') or 5432}"
    return f"postgres://{user}{password}@{host}/{database['NAME']}"


def _start_worker(queue: str, log: Path) -> subprocess.Popen:
    env = os.environ | {
        "DATABASE_URL": _database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        "LLMRUNS_ITEM_LEASE_SECONDS": "3",
    }
    command = [sys.executable, "-m", "celery", "-A", "virtuemap_site", "worker", "--pool", "solo", "-Q", queue]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO"]
    with log.open("ab") as handle:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        process.send_signal(sig)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


def test_a_suite_survives_a_killed_worker_with_exactly_one_valid_item_per_run_and_dilemma(tmp_path):
    instrument_load_file()
    queue = f"wt-test-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    with FakeProvider(delay=0.3) as provider:
        model = LLMModel.objects.create(
            slug="fake/killed",
            name="Fake (killed worker)",
            base_url=provider.base_url,
            model_id="fake",
            requests_per_minute=0,
            concurrency=2,
        )
        suite = suite_start(model=model, min_runs=3, max_runs=3, seed=11, enqueue=False)
        worker = _start_worker(queue, log)
        try:
            suite_run.apply_async(args=[suite.pk], queue=queue)
            _wait_for(
                lambda: ItemResponse.objects.filter(run__suite=suite, status="done").count() >= 5, "the first items"
            )
            _stop(worker, signal.SIGKILL)
            suite.refresh_from_db()
            assert suite.status == Suite.Status.RUNNING

            worker = _start_worker(queue, log)
            _wait_for(lambda: Suite.objects.get(pk=suite.pk).status != Suite.Status.RUNNING, "the suite to finish")
        finally:
            _stop(worker)

    suite.refresh_from_db()
    assert suite.status == Suite.Status.FINISHED_AT_CAP, log.read_text()[-3000:]
    assert QuestionnaireRun.objects.filter(suite=suite).count() == 3
    for run in QuestionnaireRun.objects.filter(suite=suite):
        items = run.items.all()
        assert items.count() == 7
        assert sorted(item.dilemma_id for item in items) == [f"D{n}" for n in range(1, 8)]
        assert all(item.valid and item.status == ItemResponse.Status.DONE for item in items)
