"""The navigation bar and the information sheet in a real browser, on a phone and a desktop: the invitation to take
part in sight without scrolling, every link in sight, reachable and visibly focused by keyboard, the bar working
without script, and a consent sheet with the study's details and its computed length."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from instruments import registry
from instruments.virtuemap.validation import validation_open
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)

DETAILS = {
    "STUDY_RESEARCHER": "Dr Ada Example",
    "STUDY_INSTITUTION": "University of Example",
    "STUDY_CONTACT": "virtuemap-study@example.org",
    "STUDY_ETHICS_REFERENCE": "Example Ethics Board, ref. 2026-123",
}


def _expected_labels() -> list[str]:
    instruments = [plugin.identity.name for plugin in registry.instruments() if plugin.page_url]
    return ["Take part", "Profile yourself", "Models", "Leaderboards", *instruments]


def _in_viewport(page, locator) -> bool:
    box, size = locator.bounding_box(), page.viewport_size
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"] + 1 \
        and box["y"] + box["height"] <= size["height"]  # fmt: skip


def test_the_bar_holds_every_section_and_the_invitation_is_in_sight_without_scrolling(page, instrument, screenshot):
    page.goto("/")
    nav = page.get_by_role("navigation", name="Main")
    assert nav.get_by_role("link").all_inner_texts() == _expected_labels()
    take_part = nav.get_by_role("link", name="Take part")
    assert _in_viewport(page, take_part), "the invitation to take part is below the fold"
    hidden = [link.inner_text() for link in nav.get_by_role("link").all() if not _in_viewport(page, link)]
    assert not hidden, f"links out of sight: {hidden}"
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    screenshot(page, "navigation-home")
    take_part.click()
    expect(page).to_have_url(f"{page.url.split('/study')[0]}/study/")
    assert (
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Take part").get_attribute("aria-current")
        == "page"
    )


def test_every_link_of_the_bar_is_reached_by_tab_and_shown_when_focused(page, instrument):
    page.goto("/models/")
    labels = _expected_labels()
    reached = []
    # The skip link, the brand and the language links come first; stop once focus has passed through the bar.
    for _ in range(len(labels) + 10):
        page.keyboard.press("Tab")
        focused = page.locator(":focus")
        if not focused.evaluate("element => element.closest('nav.site-nav') !== null"):
            if reached:
                break
            continue
        reached.append(focused.inner_text())
        assert _in_viewport(page, focused), f"{reached[-1]} has focus out of sight"
        outline = focused.evaluate("element => getComputedStyle(element).outlineStyle")
        assert outline != "none", f"{reached[-1]} shows no focus"
    assert reached == labels


def test_the_bar_works_without_script(page_without_javascript, instrument):
    page = page_without_javascript
    page.goto("/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="MoralBench").click()
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="MoralBench")).to_have_attribute(
        "aria-current", "page"
    )


def test_the_information_sheet_names_who_answers_for_the_study_and_how_long_it_takes(
    page, instrument, settings, screenshot
):
    for name, value in DETAILS.items():
        setattr(settings, name, value)
    settings.STUDY_ITEMS_PER_RESPONDENT = 10
    settings.STUDY_ATTENTION_CHECKS = 1
    consent_text_install_defaults()
    validation_open()
    page.goto("/study/consent/")
    sheet = page.locator(".information-sheet")
    expect(sheet.locator("[data-study-length]")).to_contain_text("11 pages")
    expect(sheet.locator("[data-study-length]")).to_contain_text("1 of them a check")
    expect(sheet.locator("[data-study-length]")).to_contain_text("about 11 minutes")
    for value in DETAILS.values():
        expect(sheet.get_by_text(value)).to_be_visible()
    expect(sheet.get_by_role("link", name=DETAILS["STUDY_CONTACT"])).to_have_attribute(
        "href", f"mailto:{DETAILS['STUDY_CONTACT']}"
    )
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], "the sheet is wider than the screen"
    screenshot(page, "information-sheet")
