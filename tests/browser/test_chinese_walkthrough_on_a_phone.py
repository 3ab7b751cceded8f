"""A Chinese-speaking respondent on a phone: the validation study (consent, items, thanks), profiling (a dilemma
answered by dragging, the others skipped, the results) and withdrawal, all in Simplified Chinese, with screenshots;
any console error fails the test (the ``page`` fixture). Buttons and links are found by their Chinese names, taken
from the catalogue, so an untranslated control fails here too."""

from __future__ import annotations

import pytest
from django.utils import translation
from playwright.sync_api import expect

from instruments.virtuemap.models import ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults
from tests.browser.conftest import drag_to_top

pytestmark = pytest.mark.django_db(transaction=True)


def zh(english: str) -> str:
    """The Chinese the page shows for an English interface text."""
    with translation.override("zh-hans"):
        chinese = translation.gettext(english)
    assert chinese != english, f"no Chinese for {english!r}"
    return chinese


@pytest.fixture
def chinese_study(instrument, settings):
    consent_text_install_defaults()
    validation_open(language="zh-hans")
    settings.STUDY_ITEMS_PER_RESPONDENT = 2
    settings.STUDY_ATTENTION_CHECKS = 0


def chinese_page(page) -> None:
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_a_chinese_respondent_validates_keys_on_a_phone_and_withdraws(page, chinese_study, screenshot):
    page.goto("/study/?lang=zh-hans")
    chinese_page(page)
    screenshot(page, "zh-study-landing")
    page.get_by_role("link", name=zh("Read the information sheet")).click()
    page.locator('input[name="agree"]').check()  # its label is the Chinese consent text's statement
    screenshot(page, "zh-study-consent")
    page.get_by_role("button", name=zh("I agree, start the study")).click()
    page.get_by_role("button", name=zh("Skip these questions")).click()

    for _ in range(2):
        chinese_page(page)
        expect(page.locator(".ranking-item").first).to_be_visible()
        screenshot(page, "zh-study-item")
        page.get_by_role("button", name=zh("Confirm"), exact=True).click()

    chinese_page(page)
    expect(page.locator(".completion-code")).to_be_visible()
    screenshot(page, "zh-study-thanks")
    respondent = Respondent.objects.get()
    assert respondent.language == "zh-hans"
    assert set(ValidationResponse.objects.values_list("candidate__language", flat=True)) == {"zh-hans"}

    page.goto("/study/withdraw/")
    chinese_page(page)
    page.get_by_role("button", name=zh("Withdraw and delete my answers")).click()
    chinese_page(page)
    expect(page.locator("[data-withdrawal-report]")).to_be_visible()
    screenshot(page, "zh-study-withdrawn")
    assert not Respondent.objects.exists() and not ValidationResponse.objects.exists()


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_a_chinese_respondent_profiles_themselves_on_a_phone(page, instrument, screenshot):
    from instruments.virtuemap.editions import item_text
    from instruments.virtuemap.models import Dilemma

    page.goto("/profile/?lang=zh-hans")
    chinese_page(page)
    screenshot(page, "zh-profile-start")
    page.goto("/profile/dilemmas/D1/")
    chinese_page(page)
    expect(page.get_by_text(item_text(Dilemma.objects.get(pk="D1"), "title", "zh-hans")).first).to_be_visible()
    page.wait_for_selector(".ranking--enhanced")
    drag_to_top(page, page.locator(".ranking-item").nth(1).get_attribute("data-letter"))
    screenshot(page, "zh-profile-dilemma")
    page.get_by_role("button", name=zh("Save my ranking")).click()
    for _ in range(6):
        page.get_by_role("button", name=zh("Skip this dilemma")).click()
        page.wait_for_load_state()
    assert page.url.endswith("/profile/results/")
    chinese_page(page)
    expect(page.locator("svg.radar-svg").first).to_be_visible()
    screenshot(page, "zh-profile-results")
