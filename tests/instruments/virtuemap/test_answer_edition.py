"""Every answer records the edition (language) its item was shown in and counts only for that edition's key: a
respondent keeps the edition of their consent, and switching the interface's language mid-study changes the interface
only, with a notice that says so and how to change."""

from __future__ import annotations

import pytest
from django.utils import translation

from instruments.virtuemap.models import Assignment, ProfilingSubmission, ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.models import QuestionnaireAnswer

pytestmark = pytest.mark.django_db

ENGLISH_TITLE, CHINESE_TITLE = "The Spreadsheet Error", "电子表格错误"
KEPT_NOTICE_ZH = "因此题目仍以英文显示"


@pytest.fixture(autouse=True)
def default_language_afterwards():
    yield
    translation.deactivate()


@pytest.fixture
def both_editions_open(instrument, consent_texts, study_settings):
    """D1×wisdom open in English and in Chinese."""
    return validation_open(pairs=[("D1", "wisdom")]) + validation_open(pairs=[("D1", "wisdom")], language="zh-hans")


def consent(client, language: str) -> None:
    client.post(f"/study/consent/?lang={language}", {"agree": "on", "accept": "1"})


def positions(ordering: str) -> dict[str, str]:
    return {f"item-position_{letter}": str(i) for i, letter in enumerate(ordering, start=1)}


def test_an_item_stays_in_the_consents_edition_when_the_interface_switches_and_says_so(client, both_editions_open):
    consent(client, "en")

    page = client.get("/study/item/?lang=zh-hans").content.decode()

    assert ENGLISH_TITLE in page and CHINESE_TITLE not in page
    assert KEPT_NOTICE_ZH in page and 'name="edition" value="en"' in page


def test_no_notice_while_the_interface_is_in_the_consents_edition(client, both_editions_open):
    consent(client, "zh-hans")

    page = client.get("/study/item/").content.decode()

    assert CHINESE_TITLE in page and "data-edition-kept" not in page


def test_the_answer_after_a_switch_records_the_edition_shown_and_counts_for_its_candidate(client, both_editions_open):
    english, chinese = both_editions_open
    consent(client, "en")
    client.get("/study/item/?lang=zh-hans")
    assignment = Assignment.objects.get(answered_at__isnull=True)

    client.post(
        "/study/item/", {"assignment": assignment.pk, "edition": "en", "action": "confirm", **positions("CBDAE")}
    )

    response = ValidationResponse.objects.get()
    assert (response.language, response.candidate_id) == ("en", english.pk)
    english.refresh_from_db(), chinese.refresh_from_db()
    assert (english.n_evaluations, chinese.n_evaluations) == (1, 0)


def test_an_answer_from_a_page_in_another_edition_is_refused_and_stores_nothing(client, both_editions_open):
    english, _chinese = both_editions_open
    consent(client, "en")
    client.get("/study/item/")
    assignment = Assignment.objects.get(answered_at__isnull=True)

    page = client.post(
        "/study/item/", {"assignment": assignment.pk, "edition": "zh-hans", "action": "confirm", **positions("CBDAE")}
    ).content.decode()

    assert "it is shown again in your study" in page and ENGLISH_TITLE in page
    assert not ValidationResponse.objects.exists()
    english.refresh_from_db()
    assert english.n_evaluations == 0


def test_the_study_api_gives_the_items_in_the_respondents_edition_whatever_the_requests(api_client, both_editions_open):
    body = api_client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json").json()
    api_client.credentials(HTTP_X_RESPONDENT_TOKEN=body["token"])

    item = api_client.get("/api/v1/study/next/?lang=zh-hans").json()

    assert item["language"] == "en" and item["dilemma"]["title"] == ENGLISH_TITLE


def test_a_questionnaire_answer_records_the_edition_its_item_was_shown_in(pairwise_respondent):
    pairwise_respondent(["1", "2"])

    assert list(QuestionnaireAnswer.objects.values_list("language", flat=True)) == ["en", "en"]


def test_english_only_items_record_english_for_a_respondent_who_consented_in_chinese(transitivity_instrument,
                                                                                       consent_texts):  # fmt: skip
    from surveys.questionnaire import questionnaire_answer_submit, questionnaire_session_start
    from surveys.services import respondent_consent

    person = respondent_consent(study="transitivity", consent_version="1", accept=True, language="zh-hans")
    assert person.respondent.language == "zh-hans"
    session = questionnaire_session_start(respondent=person.respondent, options={"block": 3})
    questionnaire_answer_submit(session=session, position=1, data={"situation": "1"})

    assert QuestionnaireAnswer.objects.get().language == "en"


def test_profiling_keeps_the_consents_edition_and_stores_it(client, instrument, consent_texts):
    client.post("/profile/?lang=en", {"agree": "on", "accept": "1"})

    page = client.get("/profile/dilemmas/D1/?lang=zh-hans").content.decode()
    client.post("/profile/dilemmas/D1/", {"action": "skip"})

    assert ENGLISH_TITLE in page and KEPT_NOTICE_ZH in page
    assert ProfilingSubmission.objects.get().language == "en"
