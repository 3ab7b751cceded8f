"""Fixtures of the run engine tests: quick provider retries, PostgreSQL-only tests, a real Celery stack."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _quick_provider_retries(settings):
    # Real waits, but short: a test of Retry-After must not sleep a minute.
    settings.LLMRUNS_MAX_RETRY_WAIT = 2.0
    settings.LLMRUNS_REQUEST_TIMEOUT = 5.0
    settings.LLMRUNS_PROVIDER_RETRIES = 3


@pytest.fixture(autouse=True)
def _skip_without_postgres(request):
    """Skip tests marked `postgres` on SQLite, saying why (pytest -rs shows the reason)."""
    if request.node.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL): a real worker shares the database")


class CeleryStack:
    """A real Celery worker and celery beat, each in its own process group, on PostgreSQL and ``redis_url``.

    They use their own queue, so messages left by an earlier run never reach them, and short stall, lease and
    beat intervals stand in for the production minutes.
    """

    def __init__(self, *, tmp_path: Path, database_url: str, redis_url: str) -> None:
        self.queue = f"test-{uuid.uuid4().hex[:8]}"
        self.log = tmp_path / "celery.log"
        self.env = os.environ | {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "CELERY_QUEUE": self.queue,
            "CELERY_BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule"),
            "LLMRUNS_ITEM_LEASE_SECONDS": "3",
            "LLMRUNS_SUITE_STALL_SECONDS": "2",
            "LLMRUNS_SUITE_RESUME_INTERVAL": "1",
        }
        self.worker: subprocess.Popen | None = None
        self.beat: subprocess.Popen | None = None

    def _start(self, *arguments: str) -> subprocess.Popen:
        command = [sys.executable, "-m", "celery", "-A", "virtuemap_site", *arguments, "--loglevel", "INFO"]
        with self.log.open("ab") as handle:
            return subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
            )

    def start_worker(self) -> None:
        """The production pool (prefork), one process running tasks."""
        self.worker = self._start("worker", "--pool", "prefork", "--concurrency", "1", "-Q", self.queue,
                                  "--without-gossip", "--without-mingle", "--without-heartbeat")  # fmt: skip

    def start_beat(self) -> None:
        self.beat = self._start("beat")

    def kill_worker(self) -> None:
        """SIGKILL to the worker's whole process group, as a crashed machine would."""
        assert self.worker is not None
        _end(self.worker, signal.SIGKILL)
        self.worker = None

    def stop(self) -> None:
        for process in (self.worker, self.beat):
            if process is not None:
                _end(process, signal.SIGTERM)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def wait_for(self, condition: Callable[[], bool], what: str, limit: float = 120.0) -> float:
        """Poll ``condition`` every 0.2 s until true; return the seconds waited. Fails after ``limit`` seconds
        with the end of the processes' log."""
        start = time.monotonic()
        while not condition():
            if time.monotonic() - start > limit:
                raise AssertionError(f"timed out after {limit:.0f} s waiting for {what}\n{self.tail()}")
            time.sleep(0.2)
        return time.monotonic() - start


def _end(process: subprocess.Popen, sig: int) -> None:
    """Send ``sig`` to the group of a process this test started, then make sure the whole group is gone."""
    for attempt_sig in (sig, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, attempt_sig)
        try:
            process.wait(timeout=15)
            break
        except subprocess.TimeoutExpired:
            continue
    # Prefork children may outlive their parent for a moment; they are in the same group.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture
def celery_stack(tmp_path, database_url, settings):
    """A factory of `CeleryStack`s (default: on the test settings' Redis); all are stopped at the end."""
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (set REDIS_URL): a real worker takes the suite from the broker")
    stacks: list[CeleryStack] = []

    def make(redis_url: str | None = None) -> CeleryStack:
        stack = CeleryStack(tmp_path=tmp_path, database_url=database_url, redis_url=redis_url or settings.REDIS_URL)
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        stack.stop()
