"""No study is advertised in a language it is closed in, and a closed or exhausted study never strands a panel
participant: they get a completion code of its own and the panel's return link. Every page that states a study's
length states the one computation's."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.selectors import study_length

pytestmark = pytest.mark.django_db

PANEL = "PROLIFIC_PID=5f00aa11&STUDY_ID=s1&SESSION_ID=x1"
CLOSED_CODE = "VM-STUDYCLOSED-TEST"


@pytest.fixture(autouse=True)
def default_language_afterwards():
    yield
    translation.deactivate()


@pytest.fixture
def english_only(instrument, consent_texts, study_settings, settings):
    """A fresh install: the English edition's first round open, the Chinese edition's never opened."""
    settings.STUDY_COMPLETION_CODE_STUDY_CLOSED = CLOSED_CODE
    settings.STUDY_PANEL_REDIRECT_URL = "https://panel.example/complete?cc={code}"
    return validation_open()


def test_the_home_page_invites_to_the_study_only_in_a_language_it_is_open_in(client, english_only):
    english = client.get("/?lang=en").content.decode()
    chinese = client.get("/?lang=zh-hans").content.decode()

    assert 'href="/study/"' in english.split('id="take-part-heading"')[1].split("</p>")[0]
    assert 'href="/study/"' not in chinese.split('id="take-part-heading"')[1].split("</p>")[0]


def test_a_panel_arrival_in_a_closed_language_gets_the_closed_code_and_the_way_back_not_a_consent(client, english_only):
    page = client.get(f"/study/consent/?lang=zh-hans&{PANEL}").content.decode()

    assert CLOSED_CODE in page and f"https://panel.example/complete?cc={CLOSED_CODE}" in page
    assert 'name="agree"' not in page


def test_consenting_to_a_study_closed_in_ones_language_stores_nothing(client, english_only):
    page = client.post(
        f"/study/consent/?lang=zh-hans&{PANEL}", {"agree": "on", "accept": "1", "PROLIFIC_PID": "5f00aa11"}
    ).content.decode()

    assert CLOSED_CODE in page and not Respondent.objects.exists()


def test_the_landing_page_of_a_closed_language_gives_a_panel_arrival_the_code(client, english_only):
    page = client.get(f"/study/?lang=zh-hans&{PANEL}").content.decode()

    assert CLOSED_CODE in page and "/study/consent/" not in page


def test_someone_not_from_a_panel_is_told_the_study_is_closed_without_a_code(client, english_only):
    page = client.get("/study/consent/?lang=zh-hans").content.decode()

    assert "data-study-closed-code" not in page and 'name="agree"' not in page


def test_a_panel_respondent_left_with_nothing_to_judge_gets_the_closed_code(client, english_only):
    client.post(f"/study/consent/?{PANEL}", {"agree": "on", "accept": "1", "PROLIFIC_PID": "5f00aa11"})
    from instruments.virtuemap.models import KeyCandidate

    KeyCandidate.objects.filter(status="open").update(status="rejected")

    page = client.get("/study/item/").content.decode()

    assert CLOSED_CODE in page and "Return to the panel" in page


def test_a_questionnaire_not_open_gives_a_panel_arrival_the_closed_code(client, consent_texts, settings):
    settings.STUDY_COMPLETION_CODE_STUDY_CLOSED = CLOSED_CODE
    page = client.get(f"/transitivity/questionnaire/?{PANEL}").content.decode()  # its items are not loaded

    assert CLOSED_CODE in page


def minutes_stated(page: str) -> set[str]:
    return set(re.findall(r"about (\d+) minutes?", page))


def test_the_home_page_the_landing_page_and_the_information_sheet_state_the_same_length(client, english_only):
    minutes = str(study_length(study=VALIDATION).minutes)

    for url in ("/", "/study/", "/study/consent/"):
        assert minutes_stated(client.get(url).content.decode()) == {minutes}, url
