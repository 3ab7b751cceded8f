"""`make serve` (scripts/serve) brings up the production stack: gunicorn answers, the Celery worker answers a ping,
celery beat starts; a process that dies is started again while the others carry on; the access log holds neither the
panel ID of a URL nor the user agent. PostgreSQL and Redis."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from virtuemap_site.celery import app

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[1]
# make serve migrates, collects static files and loads the instruments before it starts anything: minutes on a busy
# machine.
LIMIT = 240.0


def _get(url: str, agent: str = "test") -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": agent})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.read()


def _until(condition, what: str, log: Path) -> None:
    deadline = time.monotonic() + LIMIT
    while True:
        # A server still starting may also close a connection before its status line (HTTPException).
        with contextlib.suppress(OSError, http.client.HTTPException):
            if condition():
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)


def _spawned(program: str, log: Path) -> list[int]:
    """The process ids supervisord gave `program`, in order."""
    found = re.findall(rf"spawned: '{program}' with pid (\d+)", log.read_text(errors="replace"))
    return list(dict.fromkeys(int(pid) for pid in found))


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to supervisord, which stops its three processes; SIGKILL to the group if that takes too long."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def test_make_serve_runs_web_worker_and_beat_restarts_a_dead_one_and_logs_no_client_data(
    database_url, settings, free_port, tmp_path
):
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (set REDIS_URL): make serve runs a Celery worker and beat")
    port = free_port()
    log = tmp_path / "serve.log"
    env = os.environ | {
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "1",
        "CELERY_CONCURRENCY": "1",
        "CELERY_QUEUE": f"serve-{uuid.uuid4().hex[:8]}",
        "CELERY_BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule"),
    }
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [ROOT / "scripts" / "serve"], env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        _until(lambda: _get(f"{base}/")[0] == 200, "the home page", log)
        status, body = _get(f"{base}/api/v1/virtues/")
        assert status == 200 and b"wisdom" in body
        assert _get(f"{base}/?PROLIFIC_PID=PANEL-5EC2E7&STUDY_ID=s1", agent="Agent-7f3a/1.0")[0] == 200
        _until(lambda: bool(app.control.ping(timeout=1.0)), "the worker's answer to a ping", log)
        _until(lambda: "beat: Starting" in log.read_text(errors="replace"), "celery beat", log)

        [worker] = _spawned("worker", log)
        os.kill(worker, signal.SIGKILL)
        _until(lambda: len(_spawned("worker", log)) == 2, "the worker started again", log)
        _until(lambda: bool(app.control.ping(timeout=1.0)), "the new worker's answer to a ping", log)
        assert _get(f"{base}/")[0] == 200
        assert len(_spawned("web", log)) == len(_spawned("beat", log)) == 1
    finally:
        _stop(process)

    output = log.read_text(errors="replace")
    assert '"GET /api/v1/virtues/ HTTP/1.1" 200' in output
    assert "PANEL-5EC2E7" not in output
    assert "Agent-7f3a" not in output
