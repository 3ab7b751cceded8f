"""Django's admin (and our additions to it) under the Content Security Policy: the pages staff use, in a real
browser, fail on any console error — which is where a blocked inline script or style shows up."""

from __future__ import annotations

import pytest

from instruments.virtuemap.models import KeyCandidate
from llmruns.models import Run, Trial
from tests.browser.conftest import DESKTOP, _open_page

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"


@pytest.fixture
def staff_page(browser, live_server, researcher):
    context, page, problems = _open_page(browser, base_url=live_server.url, **DESKTOP)
    page.goto("/admin/login/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    yield page, problems
    context.close()


def _visit(page, url: str) -> None:
    response = page.goto(url)
    assert response.status == 200, url
    page.wait_for_load_state("load")


def test_admin_pages_raise_no_csp_violation(
    staff_page, instrument, consent_texts, respondent, researcher, published_models, screenshot
):
    page, problems = staff_page
    # Primary keys from the rows themselves: PostgreSQL's sequences do not restart between tests.
    candidate = KeyCandidate.objects.order_by("pk").first()
    run = Run.objects.order_by("pk").first()
    trial = Trial.objects.order_by("pk").first()
    for url in [
        "/admin/",
        "/admin/surveys/respondent/",
        "/admin/surveys/respondent/?suspicion=any",
        f"/admin/surveys/respondent/{respondent.pk}/change/",
        "/admin/virtuemap/keycandidate/",
        f"/admin/virtuemap/keycandidate/{candidate.pk}/change/",
        "/admin/surveys/consenttext/add/",
        "/admin/llmruns/llmmodel/add/",
        "/admin/virtuemap/virtuemapprofile/add/",
        "/admin/llmruns/run/",
        f"/admin/llmruns/run/{run.pk}/change/",
        f"/admin/llmruns/trial/{trial.pk}/change/",
        "/admin/llmruns/result/",
        "/admin/knox/authtoken/add/",
        "/admin/axes/accessattempt/",
        "/admin/auth/user/add/",
        f"/admin/auth/user/{researcher.pk}/password/",
    ]:
        _visit(page, url)
    assert problems == []


def test_the_key_review_action_page_raises_no_csp_violation(staff_page, instrument, screenshot):
    page, problems = staff_page
    _visit(page, "/admin/virtuemap/keycandidate/")
    page.locator("input[name=_selected_action]").first.check()
    page.select_option("select[name=action]", "promote")
    page.click("button[name=index]")
    page.wait_for_selector("textarea, input[name=reason]")
    screenshot(page, "admin-promote-reason")
    assert problems == []
