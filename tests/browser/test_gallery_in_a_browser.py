"""The model gallery in a real browser: every published profile as a card with its pentagon and its scores."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_gallery_shows_each_published_model_with_its_pentagon_and_scores(
    page, published_models, screenshot, charts_legible
):
    page.goto("/models/")
    assert page.get_by_role("heading", name="Language-model profiles").is_visible()
    cards = page.locator(".model-card")
    assert cards.count() == len(published_models) == 3
    for index in range(cards.count()):
        card = cards.nth(index)
        assert card.locator("svg").first.is_visible()
        assert card.locator("table.scores tbody tr").count() == 5
    # The cards must fit the viewport: nothing scrolls sideways, also on a phone.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    charts_legible(page)
    screenshot(page, "gallery")
