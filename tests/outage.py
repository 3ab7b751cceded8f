"""Respondent traffic for the outage tests (PostgreSQL stopped, Redis stopped): API and page respondents and a reader
in threads against a served site, recording every status, every 503 and every acknowledged answer."""

from __future__ import annotations

import re
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import psycopg
import redis
import requests

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

    def scorer(self) -> None:
        """Scoring requests, each of which reads the scoring snapshot's generation number from the cache."""
        session = requests.Session()
        body = {"rankings": {"D1": list("CBADE")}}
        while not self.stopped.is_set():
            self.call(session, "POST", "/api/v1/profiles/score/", {200}, json=body)
            time.sleep(0.05)

    @contextmanager
    def running(self, *extra: Callable[[], None]) -> Iterator[None]:
        """Two API respondents, a page respondent and a reader (and the `extra` workers) in threads, until the
        block ends."""
        workers = [self.api_respondent, self.api_respondent, self.page_respondent, self.reader, *extra]
        threads = [threading.Thread(target=work, daemon=True) for work in workers]
        for thread in threads:
            thread.start()
        try:
            yield
        finally:
            self.stopped.set()
            for thread in threads:
                thread.join(timeout=20)

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
                "SELECT respondent_id, candidate_id FROM virtuemap_validationresponse"
            )
        }
        pages = {
            row[0]
            for row in connection.execute(
                "SELECT a.id FROM virtuemap_assignment a JOIN virtuemap_validationresponse v "
                "ON v.respondent_id = a.respondent_id AND v.candidate_id = a.candidate_id WHERE a.id = ANY(%s)",
                [traffic.acknowledged_pages],
            )
        }
    return api & set(traffic.acknowledged_api), pages


class OwnRedis:
    """A redis-server on 127.0.0.1:``port`` that keeps nothing on disk, started and restarted by the test."""

    def __init__(self, port: int, directory) -> None:
        self.port = port
        self.command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                        "no", "--dir", str(directory)]  # fmt: skip
        self.process: subprocess.Popen | None = None
        self.client = redis.Redis(host="127.0.0.1", port=port)
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
