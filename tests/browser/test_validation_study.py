"""The validation study in a real browser: consent, a confirmation, a correction by drag and drop, one by the
keyboard, the attention check, the thank-you page with its code and the panel redirect, and withdrawal."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from instruments.virtuemap.models import Assignment, ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults
from tests.browser.conftest import drag_to_top

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


def assert_equal_choice(page, *, moved: bool) -> None:
    """Confirm and Submit my correction: the same size and style; only the one that fits the list is enabled."""
    page.wait_for_selector(".ranking--enhanced")  # the script has run
    confirm = page.get_by_role("button", name="Confirm", exact=True)
    correct = page.get_by_role("button", name="Submit my correction")
    a, b = confirm.bounding_box(), correct.bounding_box()
    assert (round(a["width"]), round(a["height"])) == (round(b["width"]), round(b["height"]))
    assert confirm.get_attribute("class") == correct.get_attribute("class")
    assert confirm.is_enabled() is not moved and correct.is_enabled() is moved


def test_a_respondent_completes_the_study_in_a_browser_and_withdraws(page, study, screenshot):
    consent(page)
    assert page.get_by_text("Item 1 of 4").is_visible()
    # The five responses appear once, as the proposed order, in the list that can be reordered.
    proposed = pending().displayed_order
    assert ranking_letters(page) == proposed
    text = pending().dilemma.options.get(letter="A").text
    assert page.get_by_text(text).count() == 1
    assert_equal_choice(page, moved=False)
    screenshot(page, "study-item")
    page.get_by_role("button", name="Confirm", exact=True).click()

    proposed = ranking_letters(page)
    drag_to_top(page, proposed[1])
    dragged = ranking_letters(page)
    assert dragged == proposed[1] + proposed[0] + proposed[2:]
    assert_equal_choice(page, moved=True)
    # Putting the responses back makes the list the proposed order again: Confirm is the choice again.
    page.get_by_role("button", name="Put the responses back in the proposed order").click()
    assert ranking_letters(page) == proposed
    assert_equal_choice(page, moved=False)
    drag_to_top(page, proposed[1])
    assert ranking_letters(page) == dragged
    screenshot(page, "study-item-moved")
    page.get_by_role("button", name="Submit my correction").click()

    check = pending()
    assert page.get_by_text(f"please place response {check.check_letter} first").is_visible()
    letter = check.check_letter
    while ranking_letters(page)[0] != letter:
        page.get_by_role("button", name=f"Move response {letter} up").press("Enter")
    page.get_by_role("button", name="Continue").click()

    last = ranking_letters(page)[-1]
    page.get_by_role("button", name=f"Move response {last} up").focus()
    page.keyboard.press("Enter")
    assert page.get_by_text(f"Response {last} is now at position 4 of 5.").count() == 1
    keyboard_order = ranking_letters(page)
    page.get_by_role("button", name="Submit my correction").focus()
    page.keyboard.press("Enter")

    assert page.locator(".completion-code").inner_text() == "VM-COMPLETED"
    screenshot(page, "study-thanks")
    page.wait_for_url("**/?cc=VM-COMPLETED", timeout=10_000)

    orderings = list(ValidationResponse.objects.order_by("submitted_at").values_list("ordering", "confirmed"))
    assert orderings == [(orderings[0][0], True), (dragged, False), (keyboard_order, False)]
    # What was shown and how long it took: the page's own clock, no longer than the server's.
    recorded = ValidationResponse.objects.values_list("presentation", "time_measured_by", "displayed_order")
    assert {(presentation, clock) for presentation, clock, _ in recorded} == {("in_place", "client")}
    assert all(response.time_on_item_ms > 0 for response in ValidationResponse.objects.all())
    assert not Respondent.objects.get().flagged

    page.goto("/study/withdraw/")
    page.get_by_role("button", name="Withdraw and delete my answers").click()
    # The page says what was deleted, and a panel participant how to leave the panel's study.
    report = page.locator("[data-withdrawal-report]")
    expect(report).to_contain_text("validation responses: 3")
    expect(report).to_contain_text("return your submission")
    assert not Respondent.objects.exists() and not ValidationResponse.objects.exists()


def test_the_study_works_without_javascript(page_without_javascript, study):
    page = page_without_javascript
    consent(page)
    # Both buttons are always enabled without the script; a button that does not fit the list is explained.
    page.get_by_role("button", name="Submit my correction").click()
    expect(page.get_by_text("This is still the proposed order")).to_be_visible()
    page.get_by_role("button", name="Confirm", exact=True).click()
    first = ranking_letters(page)[0]
    second = ranking_letters(page)[1]
    page.get_by_label("Position").nth(0).select_option("2")
    page.get_by_label("Position").nth(1).select_option("1")
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(page.get_by_text("You have moved responses")).to_be_visible()
    page.get_by_label("Position").nth(0).select_option("2")
    page.get_by_label("Position").nth(1).select_option("1")
    page.get_by_role("button", name="Submit my correction").click()
    stored = ValidationResponse.objects.get(confirmed=False)
    assert stored.ordering[:2] == second + first
    assert (stored.presentation, stored.time_measured_by) == ("in_place", "server")
    assert page.get_by_text("Order the responses as instructed").is_visible()
