"""The site as a user starts it: a fresh database set up by `make setup` (the steps `make run` takes), then
`manage.py runserver` on 127.0.0.1, in a process of its own, stopped by its id at the end.

The audit reads the same database through the ORM, so this module also gives the environment both processes share.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.rehearsal.pace import Pace

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
ADMIN_USERNAME = "rehearsal"
ADMIN_PASSWORD = "rehearsal-only-password-7f3k"
# The environment of a CI pass (a PostgreSQL URL, a Redis broker) must not reach the rehearsal's embedded defaults.
NOT_INHERITED = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG", "STUDY_ACCESS", "PYTEST_ADDOPTS")


@dataclass
class Site:
    url: str
    directory: Path
    environment: dict[str, str]
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def site_environment(*, directory: Path, port: int, pace: Pace, size: int) -> dict[str, str]:
    """`make run`'s defaults (SQLite, in-process tasks, DEBUG) on a database of the rehearsal's own, with the few
    settings a pilot in a lab changes: its one machine is a lab network (a pilot's hundreds of consents would pass a
    single person's rate limits), the pace's consent minimum, and a panel return link that stays on this machine."""
    environment = {name: value for name, value in os.environ.items() if name not in NOT_INHERITED}
    consents = 20 * (size + 4) * 10
    environment.update(
        DATABASE_URL=f"sqlite:///{directory / 'rehearsal.sqlite3'}",
        SECRET_KEY="rehearsal-secret-key-not-for-production-0123456789abcdef",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        STUDY_LAB_NETWORKS="127.0.0.0/8",
        STUDY_LAB_CONSENT_RATE=f"{consents}/hour",
        STUDY_LAB_SUBMIT_RATE="6000/minute",
        STUDY_LAB_REFERENCE_RATE=f"{consents}/hour",
        STUDY_CONSENT_MIN_SECONDS=str(pace.consent_min_seconds),
        STUDY_PANEL_REDIRECT_URL=f"http://127.0.0.1:{port}/?cc={{code}}",
        DJANGO_SUPERUSER_USERNAME=ADMIN_USERNAME,
        DJANGO_SUPERUSER_PASSWORD=ADMIN_PASSWORD,
        DJANGO_SUPERUSER_EMAIL="",
        PYTHONUNBUFFERED="1",
    )
    return environment


def site_start(*, pace: Pace, size: int, port: int = 0) -> Site:
    """Set up a fresh database with `make setup`, add the researcher who audits the exports, start the server and
    wait until its home page answers (at most 120 s)."""
    directory = Path(tempfile.mkdtemp(prefix="virtuemap-rehearsal-"))
    port = port or free_port()
    environment = site_environment(directory=directory, port=port, pace=pace, size=size)
    log = directory / "server.log"
    with open(log, "w") as output:
        for command in (
            ["make", "--no-print-directory", "setup"],
            [str(PYTHON), "manage.py", "createsuperuser", "--noinput"],
        ):
            done = subprocess.run(command, cwd=ROOT, env=environment, stdout=output, stderr=subprocess.STDOUT)
            if done.returncode:
                raise RuntimeError(f"{' '.join(command)} failed: {log.read_text()[-3000:]}")
    process = subprocess.Popen(
        [str(PYTHON), "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=environment,
        stdout=open(log, "a"),  # noqa: SIM115 - the server writes to it until stopped
        stderr=subprocess.STDOUT,
    )
    site = Site(f"http://127.0.0.1:{port}", directory, environment, process, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(site.url + "/", timeout=5) as response:
                if response.status == 200:
                    return site
        except OSError:
            time.sleep(0.5)
    site.stop()
    raise RuntimeError(f"the server did not answer within 120 s: {log.read_text()[-2000:]}")
