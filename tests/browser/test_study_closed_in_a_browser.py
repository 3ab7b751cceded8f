"""A panel arrival in a language the study is closed in, in a real browser: the Chinese home page does not invite to
the study, and the panel's link in Chinese leads to the study-closed code and the way back, not to a consent form."""

from __future__ import annotations

import pytest

from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def english_only(instrument, settings, live_server):
    consent_text_install_defaults()
    validation_open()
    settings.STUDY_COMPLETION_CODE_STUDY_CLOSED = "VM-CLOSED-ZH"
    settings.STUDY_PANEL_REDIRECT_URL = live_server.url + "/?cc={code}"


def test_a_chinese_panel_arrival_gets_the_closed_code_and_returns_to_the_panel(page, english_only):
    page.goto("/?lang=zh-hans")
    assert page.locator('#take-part-heading ~ p a[href="/study/"]').count() == 0

    page.goto("/study/?lang=zh-hans&PROLIFIC_PID=5f00aa11&STUDY_ID=s1&SESSION_ID=x1")
    assert page.locator("[data-study-closed-code]").inner_text() == "VM-CLOSED-ZH"
    page.get_by_role("link", name="返回招募平台").click()
    page.wait_for_url("**/?cc=VM-CLOSED-ZH")
    assert not Respondent.objects.exists()
