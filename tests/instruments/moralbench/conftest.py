"""Fixtures of the MoralBench tests: quick provider retries (the loaded instrument is tests/conftest.py's)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _quick_provider_retries(settings):
    settings.LLMRUNS_MAX_RETRY_WAIT = 0.1
    settings.LLMRUNS_REQUEST_TIMEOUT = 5.0
    settings.LLMRUNS_PROVIDER_RETRIES = 0
