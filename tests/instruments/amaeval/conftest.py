from __future__ import annotations

import pytest


@pytest.fixture
def amaeval_instrument(db):
    """The AMAeval dataset, as `load_amaeval` leaves it."""
    from instruments.amaeval.services import amaeval_instrument_load_file

    return amaeval_instrument_load_file()
