from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_shows_the_five_virtues_without_console_errors(page, instrument, screenshot):
    page.goto("/")
    assert page.get_by_role("heading", name="The five virtues").is_visible()
    assert page.locator(".virtue-list li").count() == 5
    screenshot(page, "home")
