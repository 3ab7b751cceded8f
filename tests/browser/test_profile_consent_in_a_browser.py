"""The profiling questionnaire with consent to research use, in a real browser: consent, an answer by the
keyboard, skips, the results, and withdrawal, which deletes what was stored."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from instruments.virtuemap.models import ProfilingSubmission
from instruments.virtuemap.plugin import PROFILING
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)


def letters(page) -> str:
    return "".join(page.locator(".ranking-item").evaluate_all("rows => rows.map(row => row.dataset.letter)"))


def test_a_consenting_person_answers_by_keyboard_skips_the_rest_sees_results_and_withdraws(
    page, instrument, published_models, screenshot
):
    consent_text_install_defaults()
    page.goto("/profile/")
    page.get_by_label("I agree: store my answers anonymously for research.").check()
    screenshot(page, "profile-consent")
    page.get_by_role("button", name="I agree, start").click()

    # D1 starts in the person's random order; moving a response (keyboard only) is what enables saving.
    start = letters(page)
    save = page.get_by_role("button", name="Save my ranking")
    keep = page.get_by_role("button", name="I have not moved anything: this order is my answer")
    expect(save).to_be_disabled()  # waits for the script, which may run after the page is first shown
    assert keep.is_enabled()
    last = start[-1]
    for _ in range(4):
        page.get_by_role("button", name=f"Move response {last} up").press("Enter")
    assert save.is_enabled() and keep.is_disabled()
    save.focus()
    page.keyboard.press("Enter")
    # D2: the order shown is kept on purpose, which is recorded as such.
    page.wait_for_url("**/profile/dilemmas/D2/")
    kept = letters(page)
    page.get_by_role("button", name="I have not moved anything: this order is my answer").click()
    for _ in range(5):
        page.get_by_role("button", name="Skip this dilemma").click()
    assert page.url.endswith("/profile/results/")
    assert page.get_by_text("2 of 7 answered, 5 skipped").is_visible()
    screenshot(page, "profile-results-consented")
    submission = ProfilingSubmission.objects.get(respondent__study=PROFILING)
    assert submission.rankings == {"D1": last + start[:-1], "D2": kept, **{f"D{n}": None for n in range(3, 8)}}
    assert submission.start_orders["D1"] == start and submission.start_orders["D2"] == kept
    assert submission.kept_unmoved == ["D2"]

    page.goto("/profile/withdraw/")
    page.get_by_role("button", name="Withdraw and delete").click()
    assert page.get_by_role("heading", name="Your answers are deleted").is_visible()
    assert not Respondent.objects.exists() and not ProfilingSubmission.objects.exists()
