"""Shared fixtures: the loaded instrument and the cast of users."""

from __future__ import annotations

import pytest

from surveys.services import instrument_load_file


@pytest.fixture
def instrument(db):
    """The VirtueMap instrument with its published key, as `load_instrument` leaves it."""
    return instrument_load_file()


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with empty throttle counters (the cache outlives a test otherwise)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def published_models(db):
    """The three reference profiles of the original VirtueMap run-suite (GPT, Claude, Gemini), published."""
    from llmruns.services import model_profile_import_reference_file

    return model_profile_import_reference_file()


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()
