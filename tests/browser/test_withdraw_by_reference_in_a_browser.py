"""Withdrawal from anywhere, in real browsers: a person consents to profiling, keeps their results (the reference in
the footer, a printable summary, a private link), and a SECOND browser withdraws with the reference alone; the data
is gone and that page says what was deleted."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from instruments.virtuemap.models import ProfilingSubmission
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)

REFERENCE = re.compile(r"^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$")


def test_a_second_browser_withdraws_with_the_reference_and_sees_what_was_deleted(
    page, other_page, instrument, published_models, screenshot
):
    consent_text_install_defaults()
    page.goto("/profile/")
    page.get_by_label("I agree: store my answers anonymously for research.").check()
    page.get_by_role("button", name="I agree, start").click()
    page.get_by_role("button", name="I have not moved anything: this order is my answer").click()
    page.goto("/profile/results/")

    reference = page.locator("[data-participant-reference] .reference").inner_text()
    assert REFERENCE.match(reference)
    expect(page.locator("[data-keep-results] [data-reference]")).to_have_text(reference)
    expect(page.get_by_role("button", name="Print or save as PDF")).to_be_visible()
    link = page.get_by_label("Private link to your results").input_value()
    screenshot(page, "results-keep")
    page.emulate_media(media="print")
    assert page.get_by_role("button", name="Print or save as PDF").is_hidden()
    assert page.locator("[data-start-again]").is_hidden()
    assert page.get_by_role("heading", name="Your scores").is_visible()
    screenshot(page, "results-printed")
    page.emulate_media(media="screen")

    # The private link shows the same scores in the other browser, which holds no answers of its own.
    other_page.goto(link)
    expect(other_page.get_by_text("These results come from a private link")).to_be_visible()
    assert other_page.locator("[data-scores]").inner_text() == page.locator("[data-scores]").inner_text()

    other_page.goto("/")
    other_page.get_by_role("link", name="Withdraw with a participant reference").click()
    other_page.get_by_label("Your participant reference").fill(reference.lower().replace("-", " "))
    screenshot(other_page, "withdraw-by-reference")
    other_page.get_by_role("button", name="Withdraw and delete my answers").click()
    # Asked once, on a page of its own: nothing is deleted until the person confirms, here by the keyboard.
    expect(other_page.get_by_role("heading", name="Delete your answers?")).to_be_visible()
    assert Respondent.objects.exists()
    other_page.get_by_role("button", name="Yes, delete my answers").focus()
    with other_page.expect_navigation():
        other_page.keyboard.press("Enter")

    expect(
        other_page.get_by_role("heading", name="You have withdrawn from the Profiling questionnaire")
    ).to_be_visible()
    expect(other_page.locator("[data-withdrawal-report]")).to_contain_text("Deleted 2 records")
    kinds = other_page.locator("[data-deleted] li").all_inner_texts()
    assert kinds == ["consent record and optional details: 1", "profiling submission: 1"]
    screenshot(other_page, "withdrawn-by-reference")
    assert not Respondent.objects.exists() and not ProfilingSubmission.objects.exists()

    # The first browser no longer shows a reference that reaches nothing.
    page.goto("/")
    assert page.locator("[data-participant-reference]").count() == 0
