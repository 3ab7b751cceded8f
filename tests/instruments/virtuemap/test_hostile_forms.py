"""Hostile input against every respondent form: consent, demographics, a validation item, an attention check,
withdrawal, a profiling dilemma page and the profiling consent. Never a server error; a rejected post writes
nothing; an accepted one writes exactly one consistent set of rows."""

from __future__ import annotations

import pytest
from django.test import Client
from hypothesis import event, given
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from instruments.virtuemap.models import Assignment, KeyCandidate, ProfilingSubmission, ValidationResponse
from instruments.virtuemap.plugin import PROFILING, VALIDATION
from instruments.virtuemap.study_views import SESSION_KEY
from instruments.virtuemap.validation import validation_next_assignment
from instruments.virtuemap.views import PROFILING_SESSION_KEY
from surveys.demographics import DEMOGRAPHIC_CHOICES, demographic_values
from surveys.models import Respondent
from surveys.services import respondent_consent
from tests import client_session
from tests.hostile import (
    HOSTILE_SETTINGS,
    changed,
    db_state,
    form_request,
    hostile_study_open,
    hostile_text,
    rolled_back,
)

pytestmark = pytest.mark.django_db

POSITIONS = st.sampled_from(["1", "2", "3", "4", "5"])
PANEL_IDS = st.sampled_from(["", "5f00aa11", "abc-DEF_123", "A" * 128, "A" * 129, "abc\n", "ab c"])
TICKS = st.sampled_from(["on", "1", "true", "", "off"])
DEMOGRAPHICS = {name: demographic_values(name) for name in DEMOGRAPHIC_CHOICES}


@pytest.fixture
def study(instrument, consent_texts, settings):
    hostile_study_open(settings)


def post(client: Client, path: str, request: tuple[bytes, str]):
    body, content_type = request
    response = client.generic("POST", path, body, content_type=content_type)
    assert response.status_code < 500, response.content[:500]
    if currently_in_test_context():  # statistics for --hypothesis-show-statistics
        event(f"HTTP {response.status_code}")
    return response


def consented_client(study: str = VALIDATION) -> tuple[Client, Respondent]:
    respondent = respondent_consent(study=study, consent_version="1", accept=True).respondent
    client = Client()
    session = client.session
    session[SESSION_KEY if study == VALIDATION else PROFILING_SESSION_KEY] = str(respondent.pk)
    client_session.saved(client, session)
    return client, respondent


def ranking_fields(prefix: str = "") -> dict[str, st.SearchStrategy]:
    return {f"{prefix}position_{letter}": POSITIONS for letter in "ABCDE"}


@given(data=st.data())
@HOSTILE_SETTINGS
def test_the_study_consent_form_survives_hostile_posts(study, data):
    fields = {"agree": TICKS, "PROLIFIC_PID": PANEL_IDS, "pid": PANEL_IDS, "decline": st.just("1")}
    with rolled_back():
        before = db_state()
        response = post(Client(), "/study/consent/", data.draw(form_request(fields)))
        after = db_state()
        if response.status_code == 302 and response.url.endswith("/about-you/"):
            (new,) = set(after["respondents"]) - set(before["respondents"])
            assert changed(before, after) == {"respondents"}
            assert Respondent.objects.get(pk=new[0]).study == VALIDATION
        else:
            assert before == after


@given(data=st.data())
@HOSTILE_SETTINGS
def test_the_demographics_form_survives_hostile_posts(study, data):
    fields = {name: st.sampled_from(["", *values]) for name, values in DEMOGRAPHICS.items()}
    fields["save"] = st.just("1")
    with rolled_back():
        client, respondent = consented_client()
        before = db_state()
        response = post(client, "/study/about-you/", data.draw(form_request(fields)))
        after = db_state()
        if response.status_code == 302:
            assert changed(before, after) <= {"respondents"}
        else:
            assert before == after
        respondent.refresh_from_db()
        for name, values in DEMOGRAPHICS.items():
            assert getattr(respondent, name) in ("", *values)


@given(data=st.data())
@HOSTILE_SETTINGS
def test_a_validation_item_survives_hostile_posts(study, data):
    with rolled_back():
        client, respondent = consented_client()
        assignment = validation_next_assignment(respondent=respondent)
        candidate = assignment.candidate
        fields = {
            "assignment": st.just(str(assignment.pk)),
            "action": st.sampled_from(["confirm", "correct"]),
            **ranking_fields("item-"),
        }
        before = db_state()
        post(client, "/study/item/", data.draw(form_request(fields)))
        after = db_state()
        if before != after:
            assert_one_consistent_answer(before, after, respondent, candidate)


def assert_one_consistent_answer(before, after, respondent, candidate) -> None:
    """Exactly one stored response for the served candidate, its assignment answered, N and Y counting it."""
    assert changed(before, after) == {"responses", "assignments", "candidates"}
    response = ValidationResponse.objects.get(respondent=respondent)
    assert sorted(response.ordering) == list("ABCDE")
    assert Assignment.objects.get(respondent=respondent, candidate=candidate).answered_at is not None
    candidate.refresh_from_db()
    assert (candidate.n_evaluations, candidate.n_confirmations) == (1, int(response.confirmed))
    assert response.confirmed == (response.ordering == candidate.ordering)


@given(data=st.data())
@HOSTILE_SETTINGS
def test_an_attention_check_survives_hostile_posts(study, data):
    with rolled_back():
        client, respondent = consented_client()
        first = validation_next_assignment(respondent=respondent)
        client.post("/study/item/", {"assignment": first.pk, "action": "confirm"})
        check = validation_next_assignment(respondent=respondent)
        assert check.kind == Assignment.Kind.ATTENTION_CHECK
        fields = {"assignment": st.just(str(check.pk)), "action": st.just("check"), **ranking_fields("item-")}
        before = db_state()
        post(client, "/study/item/", data.draw(form_request(fields)))
        after = db_state()
        if before != after:
            check.refresh_from_db()
            assert sorted(check.check_answer) == list("ABCDE")
            assert check.check_passed == (check.check_answer[0] == check.check_letter)
            respondent.refresh_from_db()
            assert respondent.flagged == (not check.check_passed)
            # A failure recounts the candidate the respondent answered: it no longer counts.
            n = KeyCandidate.objects.get(pk=first.candidate_id).n_evaluations
            assert n == (1 if check.check_passed else 0)


@given(data=st.data())
@HOSTILE_SETTINGS
def test_withdrawal_survives_hostile_posts_and_deletes_everything_at_once(study, data):
    with rolled_back():
        client, respondent = consented_client()
        first = validation_next_assignment(respondent=respondent)
        client.post("/study/item/", {"assignment": first.pk, "action": "confirm"})
        post(client, "/study/withdraw/", data.draw(form_request({"confirm": hostile_text})))
        assert not Respondent.objects.filter(pk=respondent.pk).exists()
        assert not ValidationResponse.objects.exists() and not Assignment.objects.exists()
        assert KeyCandidate.objects.get(pk=first.candidate_id).n_evaluations == 0


@given(data=st.data(), dilemma=st.sampled_from(["D1", "D7"]))
@HOSTILE_SETTINGS
def test_a_profiling_dilemma_page_survives_hostile_posts(instrument, consent_texts, data, dilemma):
    fields = {"action": st.sampled_from(["answer", "skip"]), **ranking_fields()}
    with rolled_back():
        client, respondent = consented_client(PROFILING)
        before = db_state()
        response = post(client, f"/profile/dilemmas/{dilemma}/", data.draw(form_request(fields)))
        after = db_state()
        if response.status_code == 302:
            assert changed(before, after) == {"submissions"}
            ranking = ProfilingSubmission.objects.get(respondent=respondent).rankings[dilemma]
            assert ranking is None or sorted(ranking) == list("ABCDE")
        else:
            assert before == after


@given(data=st.data())
@HOSTILE_SETTINGS
def test_the_profiling_consent_form_survives_hostile_posts(instrument, consent_texts, data):
    fields = {"agree": TICKS, "accept": st.just("1"), "PROLIFIC_PID": PANEL_IDS, "pid": PANEL_IDS}
    with rolled_back():
        client = Client()
        before = db_state()
        response = post(client, "/profile/", data.draw(form_request(fields)))
        after = db_state()
        if PROFILING_SESSION_KEY in client.session:
            assert response.status_code == 302
            assert changed(before, after) == {"respondents"}
            assert Respondent.objects.get(pk=client.session[PROFILING_SESSION_KEY]).study == PROFILING
        else:
            assert before == after
