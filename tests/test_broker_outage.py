"""Redis stopped for 30 s during an LLM run under `make serve`: the worker keeps its process and reconnects, the run
finishes with every trial stored and asked once, the site answers 200 or 503 throughout, and a run queued after the
outage is taken. PostgreSQL only (the stack's processes share the test database); starts its own redis-server.

The stack is `scripts/serve` itself (supervisord running the Procfile: gunicorn, a worker with the Procfile's two
processes, beat) with production settings, Redis as broker and cache. The fake provider answers in 1 s, two requests
at a time, so the run's task is busy through the outage and after it; beat sends its periodic task every 5 s, so it
publishes during the outage too.

    DATABASE_URL=postgres://… .venv/bin/python -m pytest tests/test_broker_outage.py -s
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from pathlib import Path

import pytest
from django.db.models import Count

from benchmarks.serving import site_environment
from instruments.virtuemap.services import instrument_load_file
from llmruns.models import LLMModel, Run, Trial
from llmruns.tasks import run_task
from llmruns.testing import FakeProvider
from tests.llmruns.runs import suite_start
from tests.outage import wait_for
from virtuemap_site.celery import app

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[1]
OUTAGE_SECONDS = 30
RUNS = 16  # 112 trials, two at a time, 1 s each: about a minute of work
PAGES = ("/", "/api/v1/virtues/")


class SitePoller:
    """GETs the home page and an API read in a thread, four times a second, counting every status and failure."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.statuses: Counter = Counter()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stopped.is_set():
            for path in PAGES:
                try:
                    with urllib.request.urlopen(self.base + path, timeout=10) as response:
                        self.statuses[response.status] += 1
                except urllib.error.HTTPError as error:
                    self.statuses[error.code] += 1
                except OSError as error:
                    self.statuses[type(error).__name__] += 1
            time.sleep(0.25)

    def __enter__(self) -> SitePoller:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=20)


def _stored(run: Run) -> int:
    return Trial.objects.filter(run=run, status=Trial.Status.DONE).count()


def _ended(run: Run) -> bool:
    return Run.objects.get(pk=run.pk).status not in Run.ACTIVE_STATUSES


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to supervisord, which stops its processes; SIGKILL to the group if that takes too long."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
            process.wait(timeout=60)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def test_a_30_second_redis_outage_during_a_run_under_make_serve_loses_no_process_and_no_trial(
    database_url, own_redis, free_port, tmp_path, capsys
):
    instrument_load_file()
    port, queue = free_port(), f"outage-{uuid.uuid4().hex[:8]}"
    env = site_environment(
        database_url,
        REDIS_URL=own_redis.url,
        CACHE_URL=own_redis.url.removesuffix("/0") + "/1",
        HOST="127.0.0.1",
        PORT=str(port),
        WEB_CONCURRENCY="1",
        CELERY_QUEUE=queue,
        CELERY_BEAT_SCHEDULE_FILE=str(tmp_path / "beat-schedule"),
        LLMRUNS_SUITE_RESUME_INTERVAL="5",
        GUNICORN_ACCESS_LOG="off",
    )
    env.pop("CELERY_CONCURRENCY", None)  # the Procfile's own: two processes, one of them free to take the next task
    log = tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}"
    with FakeProvider(delay=1.0) as provider, log.open("wb") as handle:
        model = LLMModel.objects.create(
            slug="fake/outage", name="Fake (broker outage)", base_url=provider.base_url, model_id="fake",
            requests_per_minute=0, concurrency=2,
        )  # fmt: skip
        serve = subprocess.Popen(
            [ROOT / "scripts" / "serve"], cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            assert wait_for(lambda: _up(base + "/"), timeout=240), log.read_text(errors="replace")[-3000:]
            run = suite_start(model, min_runs=RUNS, max_runs=RUNS, seed=11)
            with SitePoller(base) as poller, app.connection_for_write(own_redis.url) as connection:
                run_task.apply_async(args=[run.pk], queue=queue, connection=connection)
                assert wait_for(lambda: _stored(run) >= 6, timeout=120), log.read_text(errors="replace")[-3000:]
                stored_at_stop = _stored(run)
                own_redis.stop()
                stopped_at = time.monotonic()
                time.sleep(OUTAGE_SECONDS)
                own_redis.start()
                stored_at_restart = _stored(run)
                assert wait_for(lambda: _ended(run), timeout=240), log.read_text(errors="replace")[-3000:]
                finished_after = time.monotonic() - stopped_at
                after = suite_start(model, min_runs=1, max_runs=1, seed=12)
                run_task.apply_async(args=[after.pk], queue=queue, connection=connection)
                assert wait_for(lambda: _ended(after), timeout=120), log.read_text(errors="replace")[-3000:]
            output = log.read_text(errors="replace")  # before the stop, whose lines say that each process exited
        finally:
            _stop(serve)

    assert "Unrecoverable error" not in output
    assert "exited:" not in output, "supervisord had to restart a process"
    for done, runs in ((run, RUNS), (after, 1)):
        done.refresh_from_db()
        assert done.is_finished
        trials = Trial.objects.filter(run=done)
        assert trials.count() == runs * 7
        assert not trials.annotate(requests=Count("attempts")).exclude(requests=1).exists()
    assert len(provider.requests) == (RUNS + 1) * 7
    assert set(poller.statuses) <= {200, 503}, poller.statuses
    assert stored_at_restart < RUNS * 7, "the task must still be running when Redis comes back"
    with capsys.disabled():
        print(
            f"\nbroker outage: Redis stopped {OUTAGE_SECONDS} s with {stored_at_stop} of {RUNS * 7} trials stored "
            f"({stored_at_restart} when it came back); the run finished {finished_after:.0f} s after the stop with "
            f"every trial asked and stored once, the worker kept its process; web {dict(poller.statuses)}"
        )
