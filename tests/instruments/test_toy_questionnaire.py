"""The people's side of the recipe: the test-only instrument declares a study and a questionnaire (three templates
and four methods), and people consent, answer one item per page, see their results and withdraw through the shared
flow at /take/<study>/ — no consent, session or storage code of its own."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from surveys.models import ConsentText, QuestionnaireAnswer, QuestionnaireSession, Respondent
from surveys.selectors import consent_text_current
from surveys.services import consent_text_install_defaults, respondent_consent
from tests.instruments.toy import QUESTIONS, STUDY

pytestmark = pytest.mark.django_db

START = f"/take/{STUDY}/"
ITEM = f"/take/{STUDY}/next/"
RESULTS = f"/take/{STUDY}/results/"


@pytest.fixture(autouse=True)
def toy_registered(settings):
    settings.INSTRUMENTS = settings.INSTRUMENTS | {"toy": "tests.instruments.toy.Toy"}
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], Path(__file__).parent / "templates"]}
    ]
    consent_text_install_defaults()


def _question_on(page: str) -> tuple[int, str]:
    position = int(re.search(r'name="position" value="(\d+)"', page).group(1))
    question = html.unescape(re.search(r"<legend>([^<]+)</legend>", page).group(1))
    return position, question


def test_a_person_takes_the_toy_questionnaire_through_the_shared_flow(client):
    start = client.get(START).content.decode()
    assert "Three questions, one per page" in start and "Three yes/no questions" in start

    assert client.post(START, {"agree": "on", "accept": "1"}).url == ITEM
    respondent = Respondent.objects.get()
    assert respondent.study == STUDY and respondent.language == "en"

    asked = []
    for _ in range(3):
        position, question = _question_on(client.get(ITEM).content.decode())
        asked.append(question)
        answer = "yes" if "promise" in question else "no"
        assert client.post(ITEM, {"position": str(position), "answer": answer}).status_code == 302
    assert client.get(ITEM).url == RESULTS

    session = QuestionnaireSession.objects.get()
    assert sorted(asked) == sorted(QUESTIONS.values()) and session.instrument == "toy"
    assert [QUESTIONS[item["id"]] for item in session.sequence] == asked
    assert session.is_complete and Respondent.objects.get().is_complete
    results = client.get(RESULTS).content.decode()
    assert "all 3 answers are stored" in results
    assert results.count('data-answer="yes"') == 1 and results.count('data-answer="no"') == 2


def test_a_repeated_page_changes_nothing_and_a_missing_answer_is_refused(client):
    client.post(START, {"agree": "on", "accept": "1"})

    refused = client.post(ITEM, {"position": "1"})
    client.post(ITEM, {"position": "1", "answer": "yes"})
    client.post(ITEM, {"position": "1", "answer": "no"})  # the back button, then another answer

    assert refused.status_code == 400 and "Answer yes or no." in refused.content.decode()
    assert list(QuestionnaireAnswer.objects.values_list("position", "value")) == [(1, {"answer": "yes"})]
    assert _question_on(client.get(ITEM).content.decode())[0] == 2


def test_declining_stores_nothing_and_withdrawing_deletes_everything(client):
    declined = client.post(START, {"decline": "1"})
    assert "Nothing was stored" in declined.content.decode() and not Respondent.objects.exists()

    client.post(START, {"agree": "on", "accept": "1"})
    client.post(ITEM, {"position": "1", "answer": "yes"})
    withdrawn = client.post(f"/take/{STUDY}/withdraw/")

    assert "Your answers are deleted" in withdrawn.content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireSession.objects.exists()
    assert not QuestionnaireAnswer.objects.exists()


def test_a_study_without_the_shared_questionnaire_has_no_take_pages(client):
    assert client.get("/take/validation/").status_code == 404
    assert client.get("/take/no-such-study/").status_code == 404


def test_consent_is_versioned_per_language_and_the_respondent_keeps_the_language_agreed_in():
    chinese = ConsentText.objects.create(
        study=STUDY,
        language="zh-hans",
        version="1",
        title="三个是非题",
        information_sheet="你将回答三个简短的问题。",
        consent_statement="我同意参加。",
        is_current=True,
    )

    assert consent_text_current(study=STUDY, language="zh-hans") == chinese
    assert consent_text_current(study=STUDY, language="fr").language == "en"  # no French text: English
    respondent = respondent_consent(study=STUDY, consent_version="1", accept=True, language="zh-hans").respondent
    assert (respondent.language, respondent.consent_text) == ("zh-hans", chinese)
    assert respondent.consent_text_hash == chinese.text_hash
