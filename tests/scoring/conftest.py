"""`scoring/` is pure math with no Django import, so its tests read no database: CI's PostgreSQL pass skips them
(`database_independent`, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.database_independent)
