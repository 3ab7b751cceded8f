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
    production = {
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "STUDY_PANEL_HMAC_KEY": secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": "virtuemap.example.org",
        # Not connected to by a check: rate limits shared by every web process, the panel study's ID.
        "CACHE_URL": "redis://127.0.0.1:6379/15",
        "STUDY_PANEL_STUDY_ID": "5f0e6ad2c1b3a4d5e6f70812",
    }
    env.update({**production, **extra})
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


def test_check_deploy_fails_on_a_per_process_cache_a_weak_panel_key_and_a_short_secret_key():
    env = _production_env(SECRET_KEY="s" * 10 + "hort-key", STUDY_PANEL_HMAC_KEY="k")
    env.pop("CACHE_URL")
    result = _manage("check", "--deploy", env=env)  # errors only: warnings would not fail it
    assert result.returncode != 0
    for check in ("virtuemap_site.E001", "virtuemap_site.E002", "virtuemap_site.E003"):
        assert check in result.stderr + result.stdout, check


@pytest.mark.parametrize(
    "overrides, check",
    [
        ({"CACHES": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}}, "E001"),
        ({"STUDY_PANEL_HMAC_KEY": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, "E002"),  # long, but one character
        ({"STUDY_PANEL_HMAC_KEY": "same-as-the-secret-key-" * 3, "SECRET_KEY": "same-as-the-secret-key-" * 3}, "E002"),
        ({"SECRET_KEY": "x" * 49}, "E003"),
        ({"STUDY_ACCESS": "panel", "STUDY_PANEL_STUDY_ID": ""}, "E004"),
        ({"STUDY_API": "clients", "STUDY_API_CLIENT_KEYS": ["short"]}, "E005"),
        ({"PARTICIPANT_REFERENCE_HMAC_KEY": "reference"}, "E006"),
        (
            {
                "PARTICIPANT_REFERENCE_HMAC_KEY": "same-as-the-panel-key-" * 3,
                "STUDY_PANEL_HMAC_KEY": "same-as-the-panel-key-" * 3,
            },
            "E006",
        ),
        ({"KEY_REVIEW_HOLD": False}, "W001"),
        ({"STUDY_ACCESS": "open"}, "W002"),
        ({"STUDY_API": "open"}, "W003"),
        ({"STUDY_CONSENT_RATE": "off"}, "W004"),
        ({"STUDY_REFERENCE_RATE": "off"}, "W004"),
        ({"STUDY_LAB_NETWORKS": ["192.0.2.0/24"], "STUDY_LAB_SUBMIT_RATE": "off"}, "W004"),
    ],
)
def test_each_deployment_check_names_its_problem(settings, overrides, check):
    from django.core import checks

    for name, value in overrides.items():
        setattr(settings, name, value)
    ids = {message.id for message in checks.run_checks(include_deployment_checks=True, tags=["security"])}
    assert f"virtuemap_site.{check}" in ids


@pytest.mark.parametrize(
    ("risky", "check"),
    [
        ({"KEY_REVIEW_HOLD": "false"}, "W001"),
        ({"STUDY_ACCESS": "open"}, "W002"),
        ({"STUDY_API": "open"}, "W003"),
        ({"STUDY_CONSENT_RATE": "off", "STUDY_SUBMIT_RATE": "off", "STUDY_REFERENCE_RATE": "off"}, "W004"),
        ({"PARTICIPANT_REFERENCE_HMAC_KEY": "weak"}, "E006"),
    ],
)
def test_check_deploy_is_not_silent_on_a_risky_setting(risky, check):
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=_production_env(**risky))
    assert result.returncode != 0
    assert f"virtuemap_site.{check}" in result.stderr + result.stdout


def test_the_lab_allowance_of_a_lab_without_networks_is_not_a_risk(settings):
    from virtuemap_site.checks import defences_turned_off

    settings.STUDY_LAB_NETWORKS, settings.STUDY_LAB_CONSENT_RATE = [], "off"
    settings.STUDY_ACCESS, settings.STUDY_API = "panel", "off"
    assert defences_turned_off() == []


def test_the_production_defaults_restrict_the_study_to_its_panel_and_turn_its_api_off():
    code = "from django.conf import settings as s; print(s.STUDY_ACCESS, s.STUDY_API, s.KEY_REVIEW_HOLD)"
    result = _manage("shell", "-c", code, env=_production_env())
    assert result.stdout.strip().splitlines()[-1] == "panel off True", result.stderr


def test_production_keeps_rendered_page_parts_in_process_memory_and_the_embedded_defaults_keep_none():
    """`CACHES["fragments"]` (tests/test_page_fragments.py): under `make run`'s DEBUG a template edited under the
    running server shows at the next request."""
    code = "from django.conf import settings as s; print(s.CACHES['fragments']['BACKEND'])"
    production = _manage("shell", "-c", code, env=_production_env())
    assert production.stdout.strip().splitlines()[-1].endswith(".LocMemCache"), production.stderr
    embedded = {key: value for key, value in os.environ.items() if not key.startswith("DEBUG")}
    newcomer = _manage("shell", "-c", code, env=embedded)
    assert newcomer.stdout.strip().splitlines()[-1].endswith(".DummyCache"), newcomer.stderr


def test_the_embedded_defaults_keep_the_study_and_its_api_open_for_a_newcomer():
    code = "from django.conf import settings as s; print(s.STUDY_ACCESS, s.STUDY_API, s.KEY_REVIEW_HOLD)"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DEBUG", "STUDY_"))}
    result = _manage("shell", "-c", code, env=env)
    assert result.stdout.strip().splitlines()[-1] == "open open True", result.stderr
