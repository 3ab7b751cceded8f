"""Secrets stay in the environment and out of stored text, logs and error reports; logs hold no client address,
user agent or panel ID; gunicorn's logs neither."""

from __future__ import annotations

import io
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.test import RequestFactory

from benchmarks.serving import free_port
from llmruns.backends.base import Backend
from llmruns.engine import run_backend_config, run_execute
from llmruns.models import Attempt, LLMModel, Run, Trial
from tests.llmruns.runs import suite_start
from virtuemap_site.errors import AnonymousExceptionReporterFilter
from virtuemap_site.log_filters import AnonymousLogFilter, register_secret, scrub

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "203.0.113.9"
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; SecretsTest) Gecko/20100101 Firefox/140.0"


@contextmanager
def console_output(level: int = logging.DEBUG):
    """What the project's own log handler (the one with the anonymising filter) writes, at `level`."""
    root = logging.getLogger()
    handler = next(h for h in root.handlers if any(isinstance(f, AnonymousLogFilter) for f in h.filters))
    buffer, old_level = io.StringIO(), root.level
    old_stream = handler.setStream(buffer)
    root.setLevel(level)
    try:
        yield buffer
    finally:
        handler.setStream(old_stream)
        root.setLevel(old_level)


# --- The filter ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, gone",
    [
        ("Invalid request from ip=203.0.113.9: bad", "203.0.113.9"),
        ("client 2001:db8::7 said hi", "2001:db8::7"),
        ("mapped ::ffff:192.0.2.1 here", "192.0.2.1"),
        ('"GET /study/?PROLIFIC_PID=5f1c9e2a&STUDY_ID=s1 HTTP/1.1" 200', "5f1c9e2a"),
        ("GET /study/consent/?pid=panel-77 HTTP/1.1", "panel-77"),
    ],
)
def test_the_filter_removes_addresses_and_panel_ids(text, gone):
    assert gone not in scrub(text)


def test_the_filter_keeps_times_versions_and_ordinary_text():
    text = "2026-11-30 16:54:51,123 item 12 of suite 3 took 1.5 s with llama.cpp 0.3.36"
    assert scrub(text) == text


def test_the_filter_redacts_secret_variables_and_registered_secrets(monkeypatch):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "sk-or-v1-0123456789abcdef")
    register_secret("registered-secret-value-42")
    cleaned = scrub("keys sk-or-v1-0123456789abcdef and registered-secret-value-42")
    assert "0123456789abcdef" not in cleaned and "registered-secret-value-42" not in cleaned
    assert cleaned.count("[secret]") == 2


def test_django_request_and_server_logs_pass_through_the_filter():
    with console_output() as output:
        logging.getLogger("django.server").info('"%s" %s %s', "GET /study/?PROLIFIC_PID=abc123xyz HTTP/1.1", 200, 5)
        logging.getLogger("django.request").warning("Not Found: /x from %s", ADDRESS)
        logging.getLogger("anything.else").error("peer %s", "2001:db8::1")
    written = output.getvalue()
    assert "GET /study/" in written and "Not Found" in written
    assert "abc123xyz" not in written and ADDRESS not in written and "2001:db8::1" not in written


def test_a_request_through_the_site_logs_no_address_or_user_agent(client, instrument):
    with console_output() as output:
        client.get("/no-such-page/?PROLIFIC_PID=abc123xyz", REMOTE_ADDR=ADDRESS, HTTP_USER_AGENT=USER_AGENT)
        client.post(
            "/admin/login/", {"username": "nobody", "password": "x"}, REMOTE_ADDR=ADDRESS, HTTP_USER_AGENT=USER_AGENT
        )
    written = output.getvalue()
    assert "Not Found: /no-such-page/" in written  # the request was logged…
    assert ADDRESS not in written and "SecretsTest" not in written and "abc123xyz" not in written  # …anonymously


# --- LLM API keys -------------------------------------------------------------------------------------------------


class EchoingProvider:
    """An OpenAI-compatible server that refuses every request and quotes the Authorization header it got, as some
    providers do ("Incorrect API key provided: …")."""

    def __enter__(self) -> EchoingProvider:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                quoted = self.headers.get("authorization", "")
                data = json.dumps({"error": {"message": f"Incorrect API key provided: {quoted}"}}).encode()
                self.send_response(401)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        host, port = self.server.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        return self

    def __exit__(self, *exc_info) -> None:
        self.server.shutdown()
        self.server.server_close()


def _stored_text_of(run: Run) -> str:
    trials = Trial.objects.filter(run=run).values()
    attempts = Attempt.objects.filter(trial__run=run).values()
    run_row = Run.objects.filter(pk=run.pk).values().get()
    return json.dumps([list(trials), list(attempts), run_row, list(LLMModel.objects.values())], default=str)


@pytest.fixture
def provider_key(monkeypatch) -> str:
    # A variable name that does not look secret: the backend must register the value itself.
    key = "sk-test-" + secrets.token_hex(16)
    monkeypatch.setenv("VM_PROVIDER_ACCESS", key)
    return key


def test_a_provider_that_quotes_the_key_gets_it_into_neither_logs_nor_the_database(instrument, provider_key, settings):
    settings.LLMRUNS_PROVIDER_RETRIES = 0
    with EchoingProvider() as provider, console_output() as output:
        model = LLMModel.objects.create(
            slug="echo/model",
            name="Echo",
            provider=LLMModel.Provider.OPENAI_COMPATIBLE,
            base_url=provider.base_url,
            model_id="echo",
            api_key_env="VM_PROVIDER_ACCESS",
            requests_per_minute=0,
            concurrency=1,
        )
        run = run_execute(run_id=suite_start(model).pk)
    stored = _stored_text_of(run)
    assert run.status == Run.Status.FAILED and "Incorrect API key provided" in stored  # the error was kept…
    assert provider_key not in stored and provider_key[8:] not in stored  # …without the key
    assert provider_key not in output.getvalue()


class LeakyBackend(Backend):
    """A backend whose client library blows up with the key in its message (a bug path: logged with traceback)."""

    def complete(self, *args, **kwargs):
        raise RuntimeError(f"client crashed while sending Bearer {self.config.api_key}")


def test_an_unexpected_client_error_is_logged_and_stored_without_the_key(instrument, provider_key, fake_llm_model):
    register_secret(provider_key)  # what the real backend does when it is built
    run = suite_start(fake_llm_model)
    with console_output() as output:
        config = replace(run_backend_config(run=run), api_key=provider_key)
        run = run_execute(run_id=run.pk, backend=LeakyBackend(config))
    written = output.getvalue()
    assert "client crashed while sending Bearer [secret]" in written and "Traceback" in written
    assert provider_key not in written
    assert provider_key not in _stored_text_of(run)


@pytest.fixture
def fake_llm_model(db):
    return LLMModel.objects.create(
        slug="leaky/model", name="Leaky", base_url="http://127.0.0.1:9/v1", model_id="leaky", concurrency=1
    )


def test_a_model_stores_the_variable_name_and_refuses_a_pasted_key(db):
    model = LLMModel(slug="m/x", name="X", model_id="x", api_key_env="sk-or-v1-0123456789abcdef")
    with pytest.raises(ValidationError, match="not the key itself"):
        model.full_clean()
    model.api_key_env = "OPENROUTER_API_KEY"
    model.full_clean()


def test_tasks_take_ids_never_secrets():
    import inspect

    import instruments.virtuemap.tasks  # noqa: F401  (registers the tasks)
    import llmruns.tasks
    from virtuemap_site.celery import app

    assert llmruns.tasks.run_task.name in app.tasks

    ours = {name: task for name, task in app.tasks.items() if name.split(".")[0] in ("instruments", "llmruns")}
    assert ours
    for name, task in ours.items():
        parameters = list(inspect.signature(task.run).parameters)
        assert all(parameter.endswith("_id") for parameter in parameters), (name, parameters)


# --- Error reports ------------------------------------------------------------------------------------------------


def test_error_reports_hide_secret_settings_and_urls_with_passwords(settings):
    settings.REDIS_URL = "redis://:hunter2-redis-password@cache.internal:6379/0"
    settings.OPENROUTER_API_KEY = "sk-or-v1-should-not-show"
    safe = AnonymousExceptionReporterFilter().get_safe_settings()
    assert "hunter2" not in repr(safe) and "should-not-show" not in repr(safe)
    assert "hunter2" not in repr(safe["CACHES"]) and "SECRET_KEY" in safe


def test_error_reports_drop_addresses_user_agents_and_secret_values(provider_key):
    register_secret(provider_key)
    request = RequestFactory().get(
        "/", REMOTE_ADDR=ADDRESS, HTTP_USER_AGENT=USER_AGENT, VM_PROVIDER_ACCESS=provider_key
    )
    meta = AnonymousExceptionReporterFilter().get_safe_request_meta(request)
    assert ADDRESS not in repr(meta) and "SecretsTest" not in repr(meta) and provider_key not in repr(meta)


# --- gunicorn -----------------------------------------------------------------------------------------------------


def test_gunicorn_logs_no_address_user_agent_or_panel_id(tmp_path):
    access, errors = tmp_path / "access.log", tmp_path / "error.log"
    port = free_port()
    env = {**os.environ, "DEBUG": "true", "GUNICORN_ACCESS_LOG": str(access), "GUNICORN_ERROR_LOG": str(errors)}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/static/css/site.css?PROLIFIC_PID=panel-secret-77"
        deadline = time.monotonic() + 30
        while True:
            try:
                request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Referer": url})
                assert urllib.request.urlopen(request, timeout=5).status == 200
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:  # a malformed request line
            raw.sendall(b"GARBAGE\x01 /?pid=panel-secret-77 HTTP/9\r\n\r\n")
            raw.recv(1024)
        time.sleep(0.5)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    written = access.read_text() + errors.read_text()
    assert '"GET /static/css/site.css HTTP/1.1" 200' in access.read_text()
    for private in ("127.0.0.1", "SecretsTest", "Mozilla", "panel-secret-77"):
        assert private not in written, private
