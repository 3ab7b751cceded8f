"""Production settings pass `check --deploy`; every page carries the Content Security Policy; the admin path moves."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _production_env(**extra: str) -> dict[str, str]:
    # DJANGO_ALLOW_ASYNC_UNSAFE is the browser tests' (Playwright's event loop in the test process), never production's.
    test_only = ("DEBUG", "HTTPS", "SECURE_HSTS_SECONDS", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {key: value for key, value in os.environ.items() if key not in test_only}
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        STUDY_PANEL_HMAC_KEY=secrets.token_urlsafe(32),
        ALLOWED_HOSTS="virtuemap.example.org",
        **extra,
    )
    return env


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_with_production_settings_reports_no_issues():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=_production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_does_warn_when_https_is_turned_off():
    # The test above could pass with every check silenced; this one shows the checks do run.
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=_production_env(HTTPS="false"))
    assert result.returncode != 0
    assert "security.W008" in result.stderr + result.stdout


def test_the_admin_lives_at_admin_path():
    code = "from django.urls import reverse; print(reverse('admin:index'))"
    result = _manage("shell", "-c", code, env={**os.environ, "ADMIN_PATH": "/staff-only-9f3k/"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "/staff-only-9f3k/"


@pytest.mark.parametrize(
    "url", ["/", "/study/", "/profile/", "/models/", "/admin/login/", "/api/v1/virtues/", "/nowhere/"]
)
def test_every_response_carries_the_content_security_policy(client, instrument, url):
    policy = client.get(url)["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["form-action"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert directives["script-src"].startswith("'self'")


def test_the_api_docs_allow_data_images_and_nothing_else_more(client):
    policy = client.get("/api/docs/")["Content-Security-Policy"]
    assert "img-src 'self' data:" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_the_api_docs_inline_style_carries_the_nonce(client):
    response = client.get("/api/docs/")
    nonce = response["Content-Security-Policy"].split("'nonce-", 1)[1].split("'", 1)[0]
    assert f'<style nonce="{nonce}">' in response.content.decode()
    assert "<script>" not in response.content.decode()


def test_no_template_of_ours_has_an_inline_script_handler_or_style_attribute():
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        for marker in ("<script>", 'style="', " onclick=", " onload=", " onsubmit=", " onchange=", "javascript:"):
            if marker in text:
                offenders.append(f"{path.relative_to(ROOT)}: {marker}")
    assert offenders == []
