"""Time on item in every questionnaire of the shared flow, measured by the page in a real browser: from showing the
item to the press of Next, kept by the server because it is no longer than the server's own time."""

from __future__ import annotations

import time

import pytest

from surveys.models import QuestionnaireAnswer
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)

QUESTIONNAIRES = ["/transitivity/questionnaire/", "/moralbench/questionnaire/?sets=MFQ_30", "/amaeval/questionnaire/"]


@pytest.fixture
def questionnaires(transitivity_instrument, moralbench, amaeval_instrument):
    consent_text_install_defaults()


@pytest.mark.parametrize("start", QUESTIONNAIRES)
def test_each_answer_keeps_the_time_the_page_measured(page, questionnaires, start):
    page.goto(start)
    page.locator('input[name="agree"]').check()
    page.get_by_role("button", name="I agree, start").click()
    for _ in range(2):
        page.wait_for_load_state()
        shown = time.monotonic()
        page.wait_for_timeout(700)
        page.locator('input[type="radio"]').first.check()
        page.get_by_role("button", name="Next").click()
        page.wait_for_load_state()
        waited_ms = (time.monotonic() - shown) * 1000
        stored = QuestionnaireAnswer.objects.order_by("-position").first().time_on_item_ms
        assert stored is not None and 700 <= stored <= waited_ms
