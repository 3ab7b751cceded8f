"""The researchers' admin on a 1366 × 768 screen, in a real browser: the key candidates' evidence (N, Y, q, Wilson,
decided at) visible without scrolling sideways, the study dashboard with its chart, a respondent's answers, read-only
pages without a Save button, and the pairwise answers with their export; no console error (the CSP holds)."""

from __future__ import annotations

import pytest

from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.validation import validation_next_assignment, validation_open, validation_response_submit
from surveys.services import respondent_consent
from tests.browser.conftest import _open_page

pytestmark = pytest.mark.django_db(transaction=True)

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PASSWORD = "correct horse battery staple"


@pytest.fixture
def laptop_admin(browser, live_server, researcher):
    context, page, problems = _open_page(browser, base_url=live_server.url, **LAPTOP)
    page.viewport_name = "1366"
    page.goto("/admin/login/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    yield page
    context.close()
    assert not problems, f"console errors: {problems}"


@pytest.fixture
def verdicts(instrument, consent_texts, settings):
    """`verdicts(confirmations, corrections)`: D1×wisdom opened and answered by one new respondent per verdict."""
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.KEY_REVIEW_HOLD = False
    candidate = validation_open(pairs=[("D1", "wisdom")])[0]

    def answer(confirmations: int, corrections: list[str]) -> None:
        for ordering in [None] * confirmations + corrections:
            respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
            validation_next_assignment(respondent=respondent)
            validation_response_submit(
                respondent=respondent,
                candidate_id=candidate.pk,
                confirmed=ordering is None,
                ordering=None if ordering is None else list(ordering),
            )

    return answer


# Where each column ends on screen, and where the list's scrolling box ends: Django's admin scrolls a wide list inside
# that box, so a column past its edge is hidden even when the page itself does not scroll.
COLUMN_EDGES = """() => {
  const results = document.querySelector("#changelist .results");
  const edges = {};
  document.querySelectorAll("#result_list thead th").forEach(th => {
    edges[th.className] = th.getBoundingClientRect().right;
  });
  return {box: results.getBoundingClientRect().right, edges, overflow: results.scrollWidth - results.clientWidth};
}"""


def test_the_evidence_columns_fit_a_1366_pixel_screen(laptop_admin, verdicts, screenshot):
    page = laptop_admin
    verdicts(3, ["BCDAE"])

    page.goto("/admin/virtuemap/keycandidate/")
    screenshot(page, "admin-key-candidates")

    layout = page.evaluate(COLUMN_EDGES)
    assert layout["overflow"] <= 0, "the list scrolls sideways"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366
    for column in [
        "n_evaluations",
        "n_confirmations",
        "confirmation_rate_display",
        "wilson_display",
        "decided_display",
    ]:
        edge = next(right for name, right in layout["edges"].items() if f"column-{column}" in name)
        assert edge <= layout["box"], column
    assert page.locator("td.field-wilson_display", has_text="0.301–0.954").is_visible()


def test_the_study_dashboard_shows_every_study_and_its_chart(laptop_admin, verdicts, screenshot):
    page = laptop_admin
    verdicts(2, ["BCDAE"])

    page.goto("/admin/surveys/respondent/")
    page.click("text=Study dashboard")
    page.wait_for_selector("svg.daily-chart")
    screenshot(page, "admin-study-dashboard")

    assert page.locator("section.study-dashboard-study").count() >= 4
    assert page.locator("#study-validation rect.daily-chart-bar").count() == 30
    assert page.locator("#study-validation td", has_text="CBDAE").is_visible()
    sizes = page.evaluate(
        "() => Array.from(document.querySelectorAll('.daily-chart-label')).map(t => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 12
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366


def test_a_respondent_s_page_shows_their_answers_without_a_save_button(laptop_admin, pairwise_respondent, screenshot):
    page = laptop_admin
    respondent = pairwise_respondent(["1", "2"], [1200, 3400])

    page.goto("/admin/surveys/respondent/")
    page.fill("#searchbar", str(respondent.pk)[:8])
    page.press("#searchbar", "Enter")
    page.click(f"text={respondent.pk}")
    page.wait_for_selector("table.respondent-answers")
    screenshot(page, "admin-respondent-answers")

    assert page.locator("table.respondent-answers tbody tr").count() == 2
    assert page.locator("input[name=_save]").count() == 0


def test_the_pairwise_answers_list_links_its_export(laptop_admin, pairwise_respondent, screenshot):
    page = laptop_admin
    pairwise_respondent(["1", "2", "1"])

    page.goto("/admin/transitivity/pairwiseanswer/")
    screenshot(page, "admin-pairwise-answers")

    assert page.locator("#result_list tbody tr").count() == 3
    with page.expect_download() as download:
        page.click("text=Pairwise answers CSV")
    assert download.value.suggested_filename == "pairwise-answers.csv"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366
