"""The validation study in a real browser: consent, a confirmation, a correction by drag and drop, one by the
keyboard, the attention check, the thank-you page with its code and the panel redirect, and withdrawal."""

from __future__ import annotations

import pytest

from instruments.virtuemap.models import Assignment, ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def study(instrument, settings, live_server):
    consent_text_install_defaults()
    validation_open()
    # Three items and one check: the check is the third page.
    settings.STUDY_ITEMS_PER_RESPONDENT = 3
    settings.STUDY_ATTENTION_CHECKS = 1
    settings.STUDY_PANEL_REDIRECT_URL = live_server.url + "/?cc={code}"


def ranking_letters(page) -> str:
    return "".join(page.locator(".ranking-item").evaluate_all("rows => rows.map(r => r.dataset.letter)"))


def pending() -> Assignment:
    return Assignment.objects.get(answered_at__isnull=True)


def consent(page) -> None:
    page.goto("/study/?PROLIFIC_PID=5f00aa11&STUDY_ID=s1&SESSION_ID=x1")
    page.get_by_role("link", name="Read the information sheet").click()
    page.get_by_label("I have read the information above").check()
    page.get_by_role("button", name="I agree, start the study").click()
    page.get_by_role("button", name="Skip these questions").click()


def test_a_respondent_completes_the_study_in_a_browser_and_withdraws(page, study, screenshot):
    consent(page)
    assert page.get_by_text("Item 1 of 4").is_visible()
    screenshot(page, "study-item")
    page.get_by_role("button", name="Confirm this order").click()

    page.get_by_text("The order is not right — correct it").click()
    proposed = ranking_letters(page)
    page.locator(".ranking-item").nth(1).locator(".ranking-handle").drag_to(
        page.locator(".ranking-item").nth(0), target_position={"x": 20, "y": 5}
    )
    dragged = ranking_letters(page)
    assert dragged == proposed[1] + proposed[0] + proposed[2:]
    page.get_by_role("button", name="Submit my corrected order").click()

    check = pending()
    assert page.get_by_text(f"please place response {check.check_letter} first").is_visible()
    letter = check.check_letter
    while ranking_letters(page)[0] != letter:
        page.get_by_role("button", name=f"Move response {letter} up").press("Enter")
    page.get_by_role("button", name="Continue").click()

    page.get_by_text("The order is not right — correct it").click()
    last = ranking_letters(page)[-1]
    page.get_by_role("button", name=f"Move response {last} up").focus()
    page.keyboard.press("Enter")
    assert page.get_by_text(f"Response {last} is now at position 4 of 5.").count() == 1
    keyboard_order = ranking_letters(page)
    page.get_by_role("button", name="Submit my corrected order").click()

    assert page.locator(".completion-code").inner_text() == "VM-COMPLETED"
    screenshot(page, "study-thanks")
    page.wait_for_url("**/?cc=VM-COMPLETED", timeout=10_000)

    orderings = list(ValidationResponse.objects.order_by("submitted_at").values_list("ordering", "confirmed"))
    assert orderings == [(orderings[0][0], True), (dragged, False), (keyboard_order, False)]
    assert not Respondent.objects.get().flagged

    page.goto("/study/withdraw/")
    page.get_by_role("button", name="Withdraw and delete my answers").click()
    assert page.get_by_text("Everything you gave us has been deleted.").is_visible()
    assert not Respondent.objects.exists() and not ValidationResponse.objects.exists()


def test_the_study_works_without_javascript(page_without_javascript, study):
    page = page_without_javascript
    consent(page)
    page.get_by_role("button", name="Confirm this order").click()
    page.get_by_text("The order is not right — correct it").click()
    first = ranking_letters(page)[0]
    second = ranking_letters(page)[1]
    page.get_by_label("Position").nth(0).select_option("2")
    page.get_by_label("Position").nth(1).select_option("1")
    page.get_by_role("button", name="Submit my corrected order").click()
    stored = ValidationResponse.objects.get(confirmed=False).ordering
    assert stored[:2] == second + first
    assert page.get_by_text("Order the responses as instructed").is_visible()
