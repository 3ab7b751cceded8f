"""In production the study's rate limits count only in a shared cache: with a per-process cache (no CACHE_URL) every
web process would admit the whole rate (four gunicorn workers, four times the consent limit), so a rate-limited
request is refused with a 503 and an error in the log that names the fix, and nothing is stored."""

from __future__ import annotations

import logging

import pytest

from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from virtuemap_site import abuse

CONSENT_PAGE, CONSENT_API = "/study/consent/", "/api/v1/study/consent/"


@pytest.fixture
def production(instrument, consent_texts, settings):
    """Production's rule on the test settings' per-process cache (LocMemCache)."""
    settings.RATE_LIMITS_NEED_SHARED_CACHE = True
    settings.STUDY_CONSENT_RATE = "30/hour"
    validation_open(pairs=[("D1", "wisdom")])
    return settings


def test_a_consent_page_is_refused_with_a_503_and_the_log_says_why(client, production, caplog, monkeypatch):
    monkeypatch.setattr(abuse, "_unshared_logged_at", float("-inf"))
    with caplog.at_level(logging.ERROR, logger="virtuemap_site.abuse"):
        response = client.post(CONSENT_PAGE, {"agree": "on", "accept": "1"})
    assert response.status_code == 503 and "Temporarily unavailable" in response.content.decode()
    assert not Respondent.objects.exists()
    assert "per-process cache (LocMemCache)" in caplog.text and "CACHE_URL" in caplog.text


def test_a_consent_through_the_study_api_is_refused_with_a_503_in_the_api_shape(api_client, production):
    response = api_client.post(CONSENT_API, {"consent_version": "1", "accept": True}, format="json")
    assert response.status_code == 503 and "message" in response.json()
    assert not Respondent.objects.exists()


def test_a_limit_that_is_off_counts_nothing_and_refuses_nothing(client, production):
    production.STUDY_CONSENT_RATE = "off"
    assert client.post(CONSENT_PAGE, {"agree": "on", "accept": "1"}).status_code == 302


def test_a_shared_cache_counts_as_before(client, production, own_redis):
    production.CACHES = {
        **production.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": own_redis.url},
    }
    production.STUDY_CONSENT_RATE = "2/hour"
    statuses = []
    for _ in range(3):
        client.cookies.clear()
        statuses.append(client.post(CONSENT_PAGE, {"agree": "on", "accept": "1"}).status_code)
    assert statuses == [302, 302, 429]


def test_outside_production_a_per_process_cache_still_counts(client, production):
    production.RATE_LIMITS_NEED_SHARED_CACHE = False
    assert client.post(CONSENT_PAGE, {"agree": "on", "accept": "1"}).status_code == 302
