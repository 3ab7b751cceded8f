"""PostgreSQL stopped for a few seconds under respondent traffic: a friendly 503, recovery without a restart, and no
acknowledged answer lost.

The test starts its own PostgreSQL (initdb into a temporary directory, a free port of 127.0.0.1), serves the site
from it with gunicorn (2 sync workers, persistent connections with health checks, DEBUG off), drives respondents
through the study pages and the JSON API from threads, stops PostgreSQL (`pg_ctl stop -m fast`), starts it again
4 s later and lets the traffic run on. The shared server on 5432 is never touched.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import psycopg
import pytest
import requests
from django.db import connection

from benchmarks.serving import (
    PYTHON,
    ROOT,
    database_copy_schema,
    database_url,
    free_port,
    gunicorn_start,
    manage,
    postgres_bin_dir,
    process_stop,
    site_environment,
    temporary_postgres,
    wait_until_up,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="runs in the PostgreSQL pass (it starts its own server; once per CI run is enough): "
        "DATABASE_URL=postgres://…",
    ),
    pytest.mark.skipif(postgres_bin_dir() is None, reason="needs PostgreSQL's initdb (/usr/lib/postgresql/*/bin)"),
    pytest.mark.skipif(
        shutil.which("runuser") is None, reason="needs runuser to run PostgreSQL as 'postgres' when root"
    ),
]

OUTAGE_SECONDS = 4
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ASSIGNMENT = re.compile(r'name="assignment" value="(\d+)"')


@dataclass
class Traffic:
    """Respondents in threads, with what they saw: every status, the 503s' bodies, and what was acknowledged."""

    base: str
    stopped: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    unavailable: Counter = field(default_factory=Counter)  # 503s by kind: "page" or "api"
    acknowledged_api: list[tuple[str, int]] = field(default_factory=list)  # (respondent, candidate)
    acknowledged_pages: list[int] = field(default_factory=list)  # assignment ids answered with a redirect
    successes: list[float] = field(default_factory=list)  # monotonic times of 2xx/3xx answers

    def call(self, session: requests.Session, method: str, path: str, expected: set[int], **kwargs):
        """The response once it is not a 503 (a 503 is checked, counted and retried after 0.2 s); None when the
        traffic stops first or the status is unexpected (recorded as a problem)."""
        kind = "api" if path.startswith("/api/") else "page"
        while not self.stopped.is_set():
            try:
                response = session.request(method, self.base + path, timeout=15, allow_redirects=False, **kwargs)
            except requests.RequestException as error:
                return self._problem(f"{method} {path}: {type(error).__name__}")
            with self.lock:
                self.statuses[response.status_code] += 1
            if response.status_code != 503:
                if response.status_code not in expected:
                    return self._problem(f"{method} {path}: {response.status_code} {response.text[:200]!r}")
                with self.lock:
                    self.successes.append(time.monotonic())
                return response
            self._check_unavailable(kind, method, path, response)
            time.sleep(0.2)
        return None

    def _check_unavailable(self, kind: str, method: str, path: str, response: requests.Response) -> None:
        with self.lock:
            self.unavailable[kind] += 1
        if not response.headers.get("Retry-After", "").isdigit():
            self._problem(f"{method} {path}: 503 without Retry-After")
        if kind == "api":
            if response.headers.get("Content-Type") != "application/json" or "message" not in response.json():
                self._problem(f"{method} {path}: 503 not in the API's error shape: {response.text[:200]!r}")
        elif "Temporarily unavailable" not in response.text or "Traceback" in response.text:
            self._problem(f"{method} {path}: 503 page is not the friendly one: {response.text[:200]!r}")

    def _problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)
        return None

    def api_respondent(self) -> None:
        """Consent through the API and confirm every item served, then start over as a new respondent."""
        while not self.stopped.is_set():
            session = requests.Session()
            body = {"consent_version": "1", "accept": True}
            consent = self.call(session, "POST", "/api/v1/study/consent/", {201}, json=body)
            if consent is None:
                return
            respondent = consent.json()["respondent"]
            session.headers["X-Respondent-Token"] = consent.json()["token"]
            while (item := self.call(session, "GET", "/api/v1/study/next/", {200, 204})) is not None:
                if item.status_code == 204:
                    break
                answer = {"candidate": item.json()["candidate"], "confirmed": True}
                if self.call(session, "POST", "/api/v1/study/responses/", {200, 201}, json=answer) is None:
                    return
                with self.lock:
                    self.acknowledged_api.append((respondent, answer["candidate"]))

    def page_respondent(self) -> None:
        """Consent on the pages and confirm every item (a redirect acknowledges it), then start over."""
        while not self.stopped.is_set():
            session = requests.Session()
            page = self.call(session, "GET", "/study/consent/", {200})
            if page is None:
                return
            data = {"csrfmiddlewaretoken": CSRF.search(page.text).group(1), "agree": "on"}
            if self.call(session, "POST", "/study/consent/", {302}, data=data) is None:
                return
            while (item := self.call(session, "GET", "/study/item/", {200, 302})) is not None:
                if item.status_code == 302:  # to the thank-you page
                    break
                assignment = int(ASSIGNMENT.search(item.text).group(1))
                data = {
                    "csrfmiddlewaretoken": CSRF.search(item.text).group(1),
                    "assignment": str(assignment),
                    "action": "confirm",
                }
                if self.call(session, "POST", "/study/item/", {302}, data=data) is None:
                    return
                with self.lock:
                    self.acknowledged_pages.append(assignment)

    def reader(self) -> None:
        """Pages that read the database without a session: the home page and the study's landing page."""
        session = requests.Session()
        while not self.stopped.is_set():
            for path in ("/", "/study/"):
                self.call(session, "GET", path, {200})
            time.sleep(0.05)

    def acknowledged(self) -> int:
        with self.lock:
            return len(self.acknowledged_api) + len(self.acknowledged_pages)


def wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def stored(url: str, traffic: Traffic) -> tuple[set, set]:
    """The acknowledged API answers and page assignments that have a stored response."""
    with psycopg.connect(url) as connection:
        api = {
            (str(respondent), candidate)
            for respondent, candidate in connection.execute(
                "SELECT respondent_id, candidate_id FROM surveys_validationresponse"
            )
        }
        pages = {
            row[0]
            for row in connection.execute(
                "SELECT a.id FROM surveys_assignment a JOIN surveys_validationresponse v "
                "ON v.respondent_id = a.respondent_id AND v.candidate_id = a.candidate_id WHERE a.id = ANY(%s)",
                [traffic.acknowledged_pages],
            )
        }
    return api & set(traffic.acknowledged_api), pages


def test_a_postgres_outage_gives_friendly_503s_recovers_by_itself_and_loses_no_acknowledged_answer(transactional_db):
    with temporary_postgres() as postgres:
        env = site_environment(
            postgres.url,
            STUDY_ATTENTION_CHECKS="0",
            KEY_MIN_EVALUATIONS="100000",  # the study stays open through the test
            API_ANON_POST_RATE="100000/minute",  # one test client is one address
        )
        # The migrated test database's tables, instead of a minute of `migrate`.
        database_copy_schema(database_url(connection.settings_dict), postgres.url)
        manage(env, ["load_instrument"], ["open_validation"])
        port = free_port()
        server = gunicorn_start(env, port=port, workers=2)
        try:
            wait_until_up(f"http://127.0.0.1:{port}/study/")
            traffic = Traffic(base=f"http://127.0.0.1:{port}")
            workers = [traffic.api_respondent, traffic.api_respondent, traffic.page_respondent, traffic.reader]
            threads = [threading.Thread(target=work, daemon=True) for work in workers]
            for thread in threads:
                thread.start()
            try:
                assert wait_for(lambda: traffic.acknowledged() >= 10, timeout=30), "no traffic before the outage"
                postgres.stop()
                time.sleep(OUTAGE_SECONDS)
                postgres.start()
                restarted_at, before = time.monotonic(), traffic.acknowledged()
                recovered = wait_for(lambda: traffic.acknowledged() >= before + 10, timeout=30)
            finally:
                traffic.stopped.set()
                for thread in threads:
                    thread.join(timeout=20)
            gunicorn_survived = server.poll() is None
        finally:
            process_stop(server)

        assert traffic.problems == []
        assert traffic.unavailable["page"] > 0 and traffic.unavailable["api"] > 0, traffic.unavailable
        assert 500 not in traffic.statuses
        assert recovered and gunicorn_survived, "the site must recover by itself, without a restart"
        assert any(moment > restarted_at for moment in traffic.successes)
        api, pages = stored(postgres.url, traffic)
        assert len(api) == len(traffic.acknowledged_api) and len(pages) == len(set(traffic.acknowledged_pages))
        recount = subprocess.run(
            [PYTHON, "manage.py", "verify_key_counts"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert recount.returncode == 0, recount.stdout + recount.stderr
