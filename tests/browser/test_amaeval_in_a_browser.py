from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def amaeval_ready(db, settings):
    from instruments.amaeval.services import amaeval_instrument_load_file
    from surveys.services import consent_text_install_defaults

    settings.STUDY_SUBMIT_RATE = "off"
    amaeval_instrument_load_file()
    consent_text_install_defaults()


def test_a_person_rates_reasoning_by_keyboard_and_by_tap_and_is_not_shown_alone(page, amaeval_ready, screenshot):
    from surveys.models import QuestionnaireAnswer

    page.goto("/amaeval/")
    page.get_by_role("link", name="Start rating").click()
    assert page.get_by_text("first 10 reasonings").is_visible()
    page.get_by_label("I agree: store my ratings").check()
    page.get_by_role("button", name="I agree, start").click()
    for number in range(1, 21):
        assert page.get_by_text(f"Reasoning {number} of 20").is_visible()
        radios = page.get_by_role("radio")
        assert radios.count() == (5 if number <= 10 else 2)
        assert not any(radios.nth(i).is_checked() for i in range(radios.count())), "an answer is chosen in advance"
        if number in (1, 11):
            screenshot(page, f"amaeval-task{1 if number == 1 else 2}")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"] + 1, "the reasoning scrolls sideways"
        if number % 2:
            # Keyboard only: focus the first answer, move to the second with an arrow key, submit with Enter.
            radios.first.focus()
            page.keyboard.press("ArrowDown")
            assert radios.nth(1).is_checked()
            with page.expect_navigation():
                page.keyboard.press("Enter")
        else:
            # The whole card is the control: a tap on the level's explanation chooses it.
            rating = "n/a" if number <= 10 else "1"
            page.locator(f'.ama-option[data-rating="{rating}"]').click()
            page.get_by_role("button", name="Next" if number < 20 else "Save and see my results").click()
        page.wait_for_load_state()
    assert page.url.endswith("/amaeval/questionnaire/results/")
    assert page.locator("td[data-mine]").count() == 20
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, "the results scroll sideways (only their tables may)"
    assert QuestionnaireAnswer.objects.count() == 20
    assert {answer.value["rating"] for answer in QuestionnaireAnswer.objects.filter(position__lte=10)} == {2, "n/a"}
    screenshot(page, "amaeval-results")

    page.goto("/amaeval/")
    # One person's ratings are not a public aggregate: people's row waits for PUBLIC_AGGREGATE_MIN_RESPONDENTS.
    assert page.locator('tr[data-model="people"]').count() == 0
    assert "once 10 people have taken part" in page.locator("[data-people-minimum]").inner_text()
    assert page.locator('tr[data-agreement="annotators-t1"] td[data-alpha]').inner_text() != "—"
    screenshot(page, "amaeval-table")
