from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import drag_to_top

pytestmark = pytest.mark.django_db(transaction=True)

ANSWERED = ["D1", "D2", "D4", "D5", "D7"]


def test_a_person_answers_five_dilemmas_by_dragging_skips_two_and_sees_the_results(
    page, instrument, published_models, screenshot, charts_legible
):
    from rest_framework.test import APIClient

    page.goto("/profile/dilemmas/D1/")
    given, starts = {}, []
    for number in range(1, 8):
        dilemma = f"D{number}"
        assert page.locator("[data-progress]").first.is_visible()
        start = page.locator(".ranking-item").evaluate_all("rows => rows.map(row => row.dataset.letter)")
        starts.append(start)
        if dilemma in ANSWERED:
            expect(page.get_by_role("button", name="Save my ranking")).to_be_disabled()
            drag_to_top(page, start[-1])
            order = page.locator(".ranking-item").evaluate_all("rows => rows.map(row => row.dataset.letter)")
            assert order == [start[-1], *start[:-1]], f"dragging did not move {start[-1]} up on {dilemma}: {order}"
            given[dilemma] = order
            page.get_by_role("button", name="Save my ranking").click()
        else:
            page.get_by_role("button", name="Skip this dilemma").click()
        page.wait_for_load_state()
    assert page.url.endswith("/profile/results/")
    # No default: each dilemma started in its own random order, not A–E everywhere.
    assert len({"".join(start) for start in starts}) > 1
    assert page.get_by_text("5 of 7 answered, 2 skipped").is_visible()
    assert page.locator("svg.radar-svg").first.is_visible()
    assert page.locator("[data-nearest-models] li").count() == 3
    expected = APIClient().post("/api/v1/profiles/score/", {"rankings": given}, format="json").json()["scores"]
    for virtue, score in expected.items():
        assert page.locator(f'tr[data-virtue="{virtue}"] td').inner_text() == f"{score:.1f}"
    # In plain words: what a score means (with the person's own highest score), and that "closest" is about shape.
    best = max(expected, key=expected.get)
    example = page.locator("[data-score-example]")
    assert f"score of {expected[best]:.0f}" in example.inner_text()
    assert "shape" in page.locator("[data-closest-note]").inner_text()
    assert "Once at least 30 people" in page.locator("[data-reference-note]").inner_text()
    charts_legible(page)
    screenshot(page, "profile-results")


def test_the_questionnaire_works_without_javascript(page_without_javascript, instrument):
    page = page_without_javascript
    page.goto("/profile/dilemmas/D1/")
    start = "".join(page.locator(".ranking-item").evaluate_all("rows => rows.map(row => row.dataset.letter)"))
    # Both choices are enabled without the script (a mismatch is refused with a 400 and a message: unit tests).
    assert page.get_by_role("button", name="Save my ranking").is_enabled()
    for position, letter in enumerate(start[::-1], start=1):
        page.select_option(f"#id_position_{letter}", str(position))
    page.get_by_role("button", name="Save my ranking").click()
    assert "1 of 7 answered, 0 skipped" in page.content()
    page.get_by_role("button", name="I have not moved anything: this order is my answer").click()
    assert "2 of 7 answered, 0 skipped" in page.content()
