from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def moralbench_ready(db):
    from instruments.moralbench.services import moralbench_load_file
    from surveys.services import consent_text_install_defaults

    moralbench_load_file()
    consent_text_install_defaults()


def test_a_person_answers_one_set_by_keyboard_and_by_tap_and_sees_their_scores(page, moralbench_ready, screenshot):
    from surveys.models import QuestionnaireAnswer

    page.goto("/moralbench/questionnaire/?sets=MFQ_30")
    assert page.get_by_text("20 short questions").is_visible()
    page.get_by_label("I agree: store my answers").check()
    page.get_by_role("button", name="I agree, start").click()
    for number in range(1, 21):
        assert page.get_by_text(f"Question {number} of 20").is_visible()
        if number == 1:
            screenshot(page, "moralbench-question")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"] + 1, "the question scrolls sideways"
        if number % 2:
            # Keyboard only: focus the first answer, move to the second with an arrow key, submit with Enter.
            page.get_by_role("radio").first.focus()
            page.keyboard.press("ArrowDown")
            assert page.get_by_role("radio").nth(1).is_checked()
            with page.expect_navigation():
                page.keyboard.press("Enter")
        else:
            # The whole card is the control: a tap on the answer's text chooses it.
            page.locator('.mb-option[data-option="A"]').click()
            page.get_by_role("button", name="Next" if number < 20 else "Save and see my results").click()
        page.wait_for_load_state()
    assert page.url.endswith("/moralbench/questionnaire/results/")
    assert page.locator('section[data-set="MFQ_30"] td[data-mine]').count() == 5
    assert QuestionnaireAnswer.objects.count() == 20
    screenshot(page, "moralbench-results")
