"""Fixtures of the MoralBench tests: the loaded instrument and quick provider retries."""

from __future__ import annotations

import pytest


@pytest.fixture
def moralbench(db):
    """MoralBench's four item sets and system prompt, as `load_moralbench` leaves them."""
    from instruments.moralbench.services import moralbench_load_file

    return moralbench_load_file()


@pytest.fixture(autouse=True)
def _quick_provider_retries(settings):
    settings.LLMRUNS_MAX_RETRY_WAIT = 0.1
    settings.LLMRUNS_REQUEST_TIMEOUT = 5.0
    settings.LLMRUNS_PROVIDER_RETRIES = 0
