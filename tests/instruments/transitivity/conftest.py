"""Fixtures of the transitivity tests: a scripted OpenAI-compatible provider whose choices follow a known order."""

from __future__ import annotations

import pytest

from instruments.transitivity.testing import provider_model, scripted_logprobs
from llmruns.testing import FakeProvider


@pytest.fixture
def choice_provider():
    with FakeProvider(logprobs=scripted_logprobs) as provider:
        yield provider


@pytest.fixture(autouse=True)
def _quick_provider_retries(settings):
    settings.LLMRUNS_MAX_RETRY_WAIT = 0.1
    settings.LLMRUNS_REQUEST_TIMEOUT = 5.0
    settings.LLMRUNS_PROVIDER_RETRIES = 0


@pytest.fixture
def choice_model(transitivity_instrument, choice_provider):
    return provider_model(choice_provider)
