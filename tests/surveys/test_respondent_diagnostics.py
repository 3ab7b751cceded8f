"""People's answer-quality diagnostics on the shared questionnaire: position following and straight-lining flags."""

from __future__ import annotations

import random

import pytest

from instruments.transitivity.plugin import STUDY as TRANSITIVITY_STUDY
from instruments.transitivity.questionnaire import shown_first_and_second
from surveys.diagnostics import session_diagnostics
from surveys.models import QuestionnaireSession, Respondent
from surveys.questionnaire import questionnaire_answer_submit, questionnaire_session_start
from surveys.services import respondent_consent

pytestmark = pytest.mark.django_db

# A person answering by content: the principle earlier in this order is always judged worse.
WORSE_FIRST = ["Lo", "A", "S", "F", "Cp", "Li", "Ce"]


@pytest.fixture
def ready(transitivity_instrument, consent_texts, settings):
    settings.TRANSITIVITY_REPETITIONS = 1


def answered_session(choose, *, seed: int) -> QuestionnaireSession:
    """A respondent on block 1 who answers every page with ``choose(item, rng)`` → "1" or "2"."""
    respondent = respondent_consent(study=TRANSITIVITY_STUDY, consent_version="1", accept=True).respondent
    session = questionnaire_session_start(respondent=respondent, options={"block": 1}, seed=seed)
    rng = random.Random(seed)
    for position, item in enumerate(session.sequence, start=1):
        questionnaire_answer_submit(session=session, position=position, data={"situation": choose(item, rng)})
    session.refresh_from_db()
    assert session.is_complete
    return session


def always_first(item, rng) -> str:
    return "1"


def always_second(item, rng) -> str:
    return "2"


def by_content(item, rng) -> str:
    first, second = shown_first_and_second(item)
    worse = first if WORSE_FIRST.index(first) < WORSE_FIRST.index(second) else second
    # Now and then the other one, as people do.
    if rng.random() < 0.1:
        worse = second if worse == first else first
    return "1" if worse == first else "2"


def codes(session: QuestionnaireSession) -> list[str]:
    return [flag["code"] for flag in session_diagnostics(session=session)["flags"]]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_respondent_who_always_clicks_situation_1_is_flagged(ready, seed):
    session = answered_session(always_first, seed=seed)

    record = session_diagnostics(session=session)

    assert [flag["code"] for flag in record["flags"]] == ["position", "straight_lining"]
    first = record["position"]["first_shown"]
    assert (first["count"], first["n"], first["chance"]) == (42, 42, 0.5)
    assert first["p_value"] == pytest.approx(0.5**42)
    assert record["straight_lining"]["all_same"] and record["straight_lining"]["modal_position"] == [1]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_respondent_answering_by_content_is_not_flagged(ready, seed):
    session = answered_session(by_content, seed=seed)

    record = session_diagnostics(session=session)

    assert record["flags"] == []
    assert record["position"]["first_shown"]["p_value"] > 0.01
    assert not record["straight_lining"]["all_same"]


def test_always_situation_2_is_straight_lining_but_not_position_following(ready):
    session = answered_session(always_second, seed=7)

    assert codes(session) == ["straight_lining"]


def test_a_flag_excludes_no_one(ready):
    session = answered_session(always_first, seed=1)

    assert codes(session)
    assert session.answers.count() == 42
    assert Respondent.objects.get(pk=session.respondent_id).completed_at is not None


def test_a_few_answers_are_not_yet_called_straight_lining(ready, settings):
    respondent = respondent_consent(study=TRANSITIVITY_STUDY, consent_version="1", accept=True).respondent
    session = questionnaire_session_start(respondent=respondent, options={"block": 1}, seed=3)
    for position in range(1, settings.DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS):
        questionnaire_answer_submit(session=session, position=position, data={"situation": "2"})

    assert "straight_lining" not in codes(session)


def test_the_admin_shows_the_flag_with_its_reason(ready, admin_client):
    flagged = answered_session(always_first, seed=2)
    clean = answered_session(by_content, seed=2)

    page = admin_client.get(f"/admin/surveys/questionnairesession/{flagged.pk}/change/").content.decode()
    assert "Answers follow the order the options were shown in" in page
    assert "42 of 42 choices of the first-shown option" in page and "excludes no one" in page
    clean_page = admin_client.get(f"/admin/surveys/questionnairesession/{clean.pk}/change/").content.decode()
    assert "Diagnostics: no flag" in clean_page and "straight-lining: most frequent answer position" in clean_page

    sessions = admin_client.get("/admin/surveys/questionnairesession/").content.decode()
    assert "position, straight_lining" in sessions and ">none<" in sessions
    respondents = admin_client.get("/admin/surveys/respondent/").content.decode()
    assert "position, straight_lining" in respondents
    respondent_page = admin_client.get(f"/admin/surveys/respondent/{flagged.respondent_id}/change/").content.decode()
    assert "Answers follow the order the options were shown in" in respondent_page
