"""Hostile input against every JSON API body: the study's consent, next item, responses and demographics, and
profile scoring. Never a server error, always the one error shape; a rejected request writes nothing; an accepted
one writes exactly one consistent set of rows."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import resolve
from hypothesis import event, given
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from instruments.virtuemap.models import Assignment, KeyCandidate, ValidationResponse
from instruments.virtuemap.study_api import TOKEN_HEADER
from instruments.virtuemap.validation import validation_next_assignment
from surveys.demographics import demographic_values
from surveys.models import Respondent
from surveys.services import respondent_consent, token_hash
from tests.hostile import (
    HOSTILE_SETTINGS,
    MALFORMED_BODIES,
    changed,
    db_state,
    hostile_study_open,
    hostile_text,
    json_request,
    rolled_back,
)
from virtuemap_site.request_guards import body_limit

pytestmark = pytest.mark.django_db

LETTERS = st.sampled_from("ABCDE")
DILEMMA_KEYS = st.sampled_from(["D1", "D2", "D7", "D8", "d1"])
ORDERINGS = st.one_of(st.permutations(list("ABCDE")), st.lists(LETTERS, max_size=7))
# Header values reach the server as latin-1 text (that is what WSGI passes on).
HEADER_TEXT = st.one_of(st.sampled_from(["", "\x00", "A" * 10_000, "null"]), st.text(st.characters(codec="latin-1")))


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from virtuemap_site.api import AnonymousPostThrottle

    # Generated requests come fast from one address; the throttle is tested on its own.
    monkeypatch.setattr(AnonymousPostThrottle, "THROTTLE_RATES", {"anon_post": "1000000/minute"})


@pytest.fixture
def study(instrument, consent_texts, settings):
    hostile_study_open(settings)


def call(method: str, path: str, request: tuple[bytes, str], **headers: str):
    body, content_type = request
    response = Client().generic(method, path, body, content_type=content_type, headers=headers)
    assert response.status_code < 500, response.content[:500]
    if currently_in_test_context():  # statistics for --hypothesis-show-statistics
        event(f"HTTP {response.status_code}")
    if response.status_code >= 400:
        error = response.json()
        assert isinstance(error["message"], str) and isinstance(error["extra"], dict)
    return response


def consented() -> tuple[Respondent, str]:
    outcome = respondent_consent(study="validation", consent_version="1", accept=True)
    return outcome.respondent, outcome.token


@given(data=st.data())
@HOSTILE_SETTINGS
def test_study_consent_survives_hostile_bodies(study, data):
    fields = {
        "consent_version": st.sampled_from(["1", "2", ""]),
        "accept": st.booleans(),
        "panel": st.dictionaries(st.sampled_from(["PROLIFIC_PID", "pid", "STUDY_ID"]), hostile_text, max_size=2),
    }
    with rolled_back():
        before = db_state()
        response = call("POST", "/api/v1/study/consent/", data.draw(json_request(fields)))
        after = db_state()
        if response.status_code == 201:
            assert changed(before, after) == {"respondents"}
            (new,) = set(after["respondents"]) - set(before["respondents"])
            body = response.json()
            assert Respondent.objects.get(pk=new[0]).token_hash == token_hash(body["token"])
        else:
            assert response.status_code >= 400 and before == after


@given(token=HEADER_TEXT)
@HOSTILE_SETTINGS
def test_the_next_item_survives_hostile_tokens(study, token):
    with rolled_back():
        before = db_state()
        response = call("GET", "/api/v1/study/next/", (b"", ""), **{TOKEN_HEADER: token})
        assert response.status_code == 401 and db_state() == before


@given(data=st.data())
@HOSTILE_SETTINGS
def test_study_responses_survive_hostile_bodies(study, data):
    with rolled_back():
        respondent, token = consented()
        assignment = validation_next_assignment(respondent=respondent)
        candidate = assignment.candidate
        fields = {
            "candidate": st.sampled_from([candidate.pk, candidate.pk + 1000, 0, -1]),
            "confirmed": st.booleans(),
            "ordering": ORDERINGS,
            "time_on_item_ms": st.one_of(st.integers(-1, 10**6), st.just(2**63)),
        }
        before = db_state()
        response = call("POST", "/api/v1/study/responses/", data.draw(json_request(fields)), **{TOKEN_HEADER: token})
        after = db_state()
        if response.status_code == 201:
            assert changed(before, after) == {"responses", "assignments", "candidates"}
            stored = ValidationResponse.objects.get(respondent=respondent)
            assert response.json()["ordering"] == list(stored.ordering) and sorted(stored.ordering) == list("ABCDE")
            candidate.refresh_from_db()
            assert (candidate.n_evaluations, candidate.n_confirmations) == (1, int(stored.confirmed))
            assert Assignment.objects.get(pk=assignment.pk).answered_at is not None
        else:
            assert response.status_code >= 400 and before == after


@given(data=st.data())
@HOSTILE_SETTINGS
def test_attention_check_answers_survive_hostile_bodies(study, data):
    with rolled_back():
        respondent, token = consented()
        first = validation_next_assignment(respondent=respondent)
        Client().post(
            "/api/v1/study/responses/",
            {"candidate": first.candidate_id, "confirmed": True},
            content_type="application/json",
            headers={TOKEN_HEADER: token},
        )
        check = validation_next_assignment(respondent=respondent)
        fields = {"attention_check": st.sampled_from([check.pk, check.pk + 1000]), "ordering": ORDERINGS}
        before = db_state()
        response = call("POST", "/api/v1/study/responses/", data.draw(json_request(fields)), **{TOKEN_HEADER: token})
        after = db_state()
        if response.status_code == 201:
            check.refresh_from_db()
            assert check.check_passed == (check.check_answer[0] == check.check_letter)
            expected = {"assignments"} if check.check_passed else {"assignments", "respondents", "candidates"}
            assert changed(before, after) == expected
            assert KeyCandidate.objects.get(pk=first.candidate_id).n_evaluations == int(check.check_passed)
        else:
            assert response.status_code >= 400 and before == after


@given(data=st.data())
@HOSTILE_SETTINGS
def test_demographics_survive_hostile_bodies(study, data):
    fields = {
        "age_band": st.sampled_from(["", *Respondent.AgeBand.values]),
        "country": st.sampled_from(["", *demographic_values("country")]),
    }
    with rolled_back():
        _, token = consented()
        before = db_state()
        response = call("PATCH", "/api/v1/study/respondent/", data.draw(json_request(fields)), **{TOKEN_HEADER: token})
        after = db_state()
        if response.status_code == 204:
            assert changed(before, after) <= {"respondents"}
        else:
            assert response.status_code >= 400 and before == after


@given(data=st.data())
@HOSTILE_SETTINGS
def test_profile_scoring_survives_hostile_bodies_and_writes_nothing(instrument, data):
    rankings = st.dictionaries(st.one_of(DILEMMA_KEYS, hostile_text), st.one_of(st.none(), ORDERINGS), max_size=7)
    with rolled_back():
        before = db_state()
        response = call("POST", "/api/v1/profiles/score/", data.draw(json_request({"rankings": rankings})))
        assert response.status_code in (200, 400, 413, 415) and db_state() == before
        if response.status_code == 200:
            scores = response.json()["scores"]
            assert all(score is None or 0 <= score <= 100 for score in scores.values())


JSON_ROUTES = [
    ("POST", "/api/v1/study/consent/"),
    ("POST", "/api/v1/study/responses/"),
    ("PATCH", "/api/v1/study/respondent/"),
    ("POST", "/api/v1/profiles/score/"),
    ("POST", "/api/v1/transitivity/test/"),
]


@pytest.mark.parametrize("body", MALFORMED_BODIES, ids=lambda body: repr(body[:12]))
def test_every_api_route_answers_a_malformed_json_body_with_a_400_and_writes_nothing(study, body):
    _, token = consented()
    before = db_state()
    for method, path in JSON_ROUTES:
        response = call(method, path, (body, "application/json"), **{TOKEN_HEADER: token})
        limit = body_limit(resolve(path).func)
        # An empty PATCH of the demographics is an empty answer, not an error; a body over the route's limit is
        # refused unread.
        expected = 204 if (method, body) == ("PATCH", b"") else 413 if len(body) > limit else 400
        assert response.status_code == expected, (path, response.content[:200])
    assert db_state() == before
