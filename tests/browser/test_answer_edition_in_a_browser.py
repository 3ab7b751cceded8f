"""A language switch mid-study in a real browser: a respondent consents in English, switches the interface to
简体中文 with the header's link, and the item stays in English with a notice saying so; the answer is stored as given
in English and counts for the English edition's candidate only."""

from __future__ import annotations

import pytest

from instruments.virtuemap.models import KeyCandidate, ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def both_editions(instrument, settings):
    consent_text_install_defaults()
    validation_open(pairs=[("D1", "wisdom")])
    validation_open(pairs=[("D1", "wisdom")], language="zh-hans")
    settings.STUDY_ITEMS_PER_RESPONDENT = 1
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.STUDY_CONSENT_MIN_SECONDS = 0.5


def test_a_switch_to_chinese_mid_study_keeps_the_english_item_and_counts_it_for_the_english_key(page, both_editions):
    page.goto("/study/consent/?lang=en")
    page.wait_for_timeout(800)  # a person reads before agreeing
    page.get_by_label("I have read the information above").check()
    page.get_by_role("button", name="I agree, start the study").click()
    page.get_by_role("button", name="Skip these questions").click()

    page.get_by_role("link", name="简体中文").click()
    page.wait_for_load_state()

    assert page.locator("#dilemma-title").inner_text() == "The Spreadsheet Error"
    assert "因此题目仍以英文显示" in page.locator("[data-edition-kept]").inner_text()
    page.get_by_role("button", name="确认", exact=True).click()
    page.wait_for_load_state()

    response = ValidationResponse.objects.get()
    assert response.language == "en" and response.candidate.language == "en"
    counts = dict(KeyCandidate.objects.filter(round=1).values_list("language", "n_evaluations"))
    assert counts == {"en": 1, "zh-hans": 0}
