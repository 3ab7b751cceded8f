"""Fixtures of the run-suite tests: a scripted OpenAI-compatible server and models pointing at it."""

from __future__ import annotations

import pytest

from llmruns.models import LLMModel
from llmruns.testing import FakeProvider


@pytest.fixture
def fake_provider():
    with FakeProvider() as provider:
        yield provider


@pytest.fixture(autouse=True)
def _quick_provider_retries(settings):
    # Real waits, but short: a test of Retry-After must not sleep a minute.
    settings.LLMRUNS_MAX_RETRY_WAIT = 2.0
    settings.LLMRUNS_REQUEST_TIMEOUT = 5.0
    settings.LLMRUNS_PROVIDER_RETRIES = 3


@pytest.fixture
def fake_model(db, fake_provider):
    return LLMModel.objects.create(
        slug="fake/model",
        name="Fake",
        provider=LLMModel.Provider.OPENAI_COMPATIBLE,
        base_url=fake_provider.base_url,
        model_id="fake-model",
        requests_per_minute=0,
        concurrency=4,
    )


@pytest.fixture(autouse=True)
def _skip_without_postgres(request, settings):
    """Skip tests marked `postgres` on SQLite, saying why (pytest -rs shows the reason)."""
    if request.node.get_closest_marker("postgres") and settings.DATABASES["default"]["ENGINE"] != (
        "django.db.backends.postgresql"
    ):
        pytest.skip("needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL): a real worker shares the database")
