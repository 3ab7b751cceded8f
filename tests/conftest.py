"""Shared fixtures: the loaded instrument and the cast of users."""

from __future__ import annotations

import pytest

from surveys.services import instrument_load_file


@pytest.fixture
def instrument(db):
    """The VirtueMap instrument with its published key, as `load_instrument` leaves it."""
    return instrument_load_file()
