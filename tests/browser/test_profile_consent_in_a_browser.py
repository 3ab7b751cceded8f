"""The profiling questionnaire with consent to research use, in a real browser: consent, an answer by the
keyboard, skips, the results, and withdrawal, which deletes what was stored."""

from __future__ import annotations

import pytest

from instruments.virtuemap.models import ProfilingSubmission
from instruments.virtuemap.plugin import PROFILING
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_consenting_person_answers_by_keyboard_skips_the_rest_sees_results_and_withdraws(
    page, instrument, published_models, screenshot
):
    consent_text_install_defaults()
    page.goto("/profile/")
    page.get_by_label("I agree: store my answers anonymously for research.").check()
    screenshot(page, "profile-consent")
    page.get_by_role("button", name="I agree, start").click()

    # D1: move E to the top with its arrow button and the keyboard only.
    for _ in range(4):
        page.get_by_role("button", name="Move response E up").press("Enter")
    page.get_by_role("button", name="Save and continue").click()
    for _ in range(6):
        page.get_by_role("button", name="Skip this dilemma").click()
    assert page.url.endswith("/profile/results/")
    assert page.get_by_text("1 of 7 answered, 6 skipped").is_visible()
    screenshot(page, "profile-results-consented")
    submission = ProfilingSubmission.objects.get(respondent__study=PROFILING)
    assert submission.rankings == {"D1": "EABCD", **{f"D{n}": None for n in range(2, 8)}}

    page.goto("/profile/withdraw/")
    page.get_by_role("button", name="Withdraw and delete").click()
    assert page.get_by_role("heading", name="Your answers are deleted").is_visible()
    assert not Respondent.objects.exists() and not ProfilingSubmission.objects.exists()
