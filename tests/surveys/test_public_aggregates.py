"""No aggregate of people is shown publicly from fewer than PUBLIC_AGGREGATE_MIN_RESPONDENTS respondents (one
person's answers must not be readable from a public page, download or API), and respondents flagged or showing signs
of automation never count in one."""

from __future__ import annotations

import csv
import io

import pytest

from instruments.moralbench.selectors import people_reference
from instruments.virtuemap.profiling import profiling_submission_store
from instruments.virtuemap.selectors import profiling_reference_scores
from surveys.models import Respondent
from surveys.questionnaire import questionnaire_answer_submit, questionnaire_session_start
from surveys.selectors import enough_people
from surveys.services import respondent_consent

pytestmark = pytest.mark.django_db


def rate(n: int, *, suspicion: str = "") -> None:
    """``n`` respondents each rate the first AMAeval item 3."""
    for _ in range(n):
        respondent = respondent_consent(study="amaeval", consent_version="1", accept=True).respondent
        Respondent.objects.filter(pk=respondent.pk).update(suspicion=suspicion)
        session = questionnaire_session_start(respondent=respondent)
        questionnaire_answer_submit(session=session, position=1, data={"rating": "3"})


@pytest.fixture
def amaeval(amaeval_instrument, consent_texts, settings):
    settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS = 3
    return settings


def test_the_minimum_is_a_setting_of_ten_by_default(settings):
    assert settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS == 10
    assert enough_people(10) and not enough_people(9)


def test_amaevals_people_row_and_agreement_wait_for_the_minimum(client, amaeval):
    rate(2)

    page = client.get("/amaeval/").content.decode()
    body = client.get("/api/v1/amaeval/results/").json()
    downloaded = client.get("/amaeval/models.csv").content.decode()

    assert 'data-model="people"' not in page and "People (2 respondents)" not in page
    assert "once 3 people have taken part" in page
    assert body["people"]["respondents"] == 0
    assert all(
        estimate["units"] == 0 and estimate["alpha"] is None for estimate in body["agreement"]["people_gold"].values()
    )
    assert "people" not in [row["slug"] for row in csv.DictReader(io.StringIO(downloaded))]


def test_amaevals_people_row_appears_once_enough_people_rated(client, amaeval):
    rate(3)

    page = client.get("/amaeval/").content.decode()

    assert "People (3 respondents)" in page and "data-people-minimum" not in page


def test_respondents_showing_signs_of_automation_do_not_count(client, amaeval):
    rate(2)
    rate(5, suspicion="no_form_time")

    assert "People (" not in client.get("/amaeval/").content.decode()


def test_moralbench_shows_no_peoples_median_of_a_set_below_the_minimum(moralbench, consent_texts, settings):
    settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS = 2
    respondent = respondent_consent(study="moralbench", consent_version="1", accept=True).respondent
    session = questionnaire_session_start(respondent=respondent, options={"sets": "MFQ_30"})
    for position in range(1, len(session.sequence) + 1):
        questionnaire_answer_submit(session=session, position=position, data={"choice": "A"})

    assert people_reference() == {}


def test_virtuemaps_reference_of_profiles_waits_for_the_minimum(instrument, consent_texts, settings):
    settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS = 3
    for _ in range(2):
        person = respondent_consent(study="profiling", consent_version="1", accept=True).respondent
        profiling_submission_store(respondent=person, rankings={"D1": "CBADE"})

    people, reference = profiling_reference_scores(virtues=["wisdom"])

    assert (people, reference) == (2, {"wisdom": []})
