"""Resuming from anywhere, in real browsers: a person starts MoralBench's questionnaire for people (the shared
/take/ flow), and a SECOND browser carries on with the participant reference from the footer alone, at the next
question; the answers stay one set."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def moralbench_ready(db):
    from instruments.moralbench.services import moralbench_load_file
    from surveys.services import consent_text_install_defaults

    moralbench_load_file()
    consent_text_install_defaults()


def answer(page) -> None:
    page.locator('.mb-option[data-option="A"]').click()
    page.get_by_role("button", name="Next").click()
    page.wait_for_load_state()


def test_a_second_browser_resumes_at_the_next_question_with_the_reference(
    page, other_page, moralbench_ready, screenshot
):
    from surveys.models import QuestionnaireAnswer, Respondent

    page.goto("/moralbench/questionnaire/?sets=MFQ_30")
    page.get_by_label("I agree: store my answers").check()
    page.get_by_role("button", name="I agree, start").click()
    for _ in range(3):
        answer(page)
    expect(page.get_by_text("Question 4 of 20")).to_be_visible()
    reference = page.locator("[data-participant-reference] .reference").inner_text()
    screenshot(page, "questionnaire-footer-reference")

    other_page.goto("/")
    other_page.get_by_role("link", name="Resume with a participant reference").click()
    other_page.get_by_label("Your participant reference").fill(reference)
    other_page.get_by_role("button", name="Resume").click()

    expect(other_page.get_by_text("Question 4 of 20")).to_be_visible()
    assert other_page.locator("[data-participant-reference] .reference").inner_text() == reference
    answer(other_page)
    expect(other_page.get_by_text("Question 5 of 20")).to_be_visible()
    screenshot(other_page, "questionnaire-resumed")
    assert Respondent.objects.count() == 1 and QuestionnaireAnswer.objects.count() == 4
