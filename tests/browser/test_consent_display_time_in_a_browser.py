"""Consent in a real browser, at a person's pace, on a phone and a desktop, in English and in Chinese: the page's
display time reaches the server from every study's consent form, so nobody who reads and agrees is flagged as
automation (and no key decision is held for it)."""

from __future__ import annotations

import pytest
from django.utils import translation

from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)

# Every study's consent page and the button that agrees on it.
CONSENTS = {
    "validation": ("/study/consent/", "I agree, start the study"),
    "profiling": ("/profile/", "I agree, start"),
    "transitivity": ("/transitivity/questionnaire/", "I agree, start"),
    "moralbench": ("/moralbench/questionnaire/", "I agree, start"),
    "amaeval": ("/amaeval/questionnaire/", "I agree, start"),
}
# A person reads for longer than the minimum; the minimum is lowered so that the test need not read for 5 s a page.
READING_SECONDS = 1.5


@pytest.fixture
def studies(instrument, transitivity_instrument, moralbench, amaeval_instrument, settings):
    consent_text_install_defaults()
    validation_open()
    validation_open(language="zh-hans")
    settings.STUDY_CONSENT_MIN_SECONDS = 1.0


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_people_who_read_and_agree_in_a_browser_are_not_flagged(page, studies, language):
    for study, (url, button) in CONSENTS.items():
        page.goto(f"{url}?lang={language}")
        page.wait_for_timeout(READING_SECONDS * 1000)
        page.locator('input[name="agree"]').check()
        with translation.override(language):
            page.get_by_role("button", name=translation.gettext(button)).click()
        page.wait_for_load_state()
        respondent = Respondent.objects.get(study=study)
        assert (respondent.suspicion, respondent.language) == ("", language), study


def test_a_click_sooner_than_the_minimum_is_still_too_fast(page, studies, settings):
    settings.STUDY_CONSENT_MIN_SECONDS = 30.0
    page.goto("/moralbench/questionnaire/")
    page.locator('input[name="agree"]').check()
    page.get_by_role("button", name="I agree, start").click()
    page.wait_for_load_state()
    assert Respondent.objects.get().suspicion == "too_fast"
