"""With the cache unreachable, rate limits, the API throttle and the scoring snapshots carry on from process memory:
a consent, an answer and a score are answered as usual, never with a 500. (The real outage, a Redis server stopped
under traffic, is tests/test_cache_outage.py.)"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from benchmarks.serving import free_port
from instruments.virtuemap.models import ValidationResponse
from instruments.virtuemap.validation import validation_open
from virtuemap_site.resilient_cache import resilient_cache

pytestmark = pytest.mark.django_db


@pytest.fixture
def cache_down(settings):
    """The default cache is a Redis that nobody runs (connection refused)."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        },
    }
    resilient_cache.reset()
    yield
    resilient_cache.reset()


def test_an_unreachable_cache_is_answered_from_process_memory(cache_down):
    assert resilient_cache.add("k", 1, timeout=60) is True
    assert resilient_cache.incr("k") == 2 and resilient_cache.get("k") == 2
    assert not resilient_cache.available


def test_after_a_failure_the_shared_cache_is_left_alone_for_a_while(cache_down, monkeypatch):
    resilient_cache.get("k")
    from django.core.cache import caches

    def fail(*args, **kwargs):
        raise AssertionError("the shared cache was tried again at once")

    monkeypatch.setattr(caches["default"], "get", fail)
    assert resilient_cache.get("k", "fallback") == "fallback"


def test_consent_answers_and_scores_go_on_while_the_cache_is_down(cache_down, instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.STUDY_CONSENT_RATE, settings.STUDY_SUBMIT_RATE = "5/minute", "5/minute"
    validation_open(pairs=[("D1", "wisdom")])
    client = APIClient()
    consent = client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json")
    assert consent.status_code == 201
    client.credentials(HTTP_X_RESPONDENT_TOKEN=consent.json()["token"])
    candidate = client.get("/api/v1/study/next/").json()["candidate"]
    answer = client.post("/api/v1/study/responses/", {"candidate": candidate, "confirmed": True}, format="json")
    assert answer.status_code == 201 and ValidationResponse.objects.count() == 1
    score = client.post("/api/v1/profiles/score/", {"rankings": {"D1": list("CBADE")}}, format="json")
    assert score.status_code == 200


def test_the_rate_limits_still_count_while_the_cache_is_down(cache_down, consent_texts, settings):
    settings.STUDY_CONSENT_RATE = "2/hour"
    client = APIClient()
    statuses = [
        client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json").status_code
        for _ in range(3)
    ]
    assert statuses == [201, 201, 429]
