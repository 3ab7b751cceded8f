"""Who may take part in the key-validation study and through which door: panel arrivals only (STUDY_ACCESS=panel),
the study API open, for registered front ends or off (STUDY_API), respondent tokens that expire, and panel IDs
that identify without being credentials."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent

pytestmark = pytest.mark.django_db

API = "/api/v1/study"
BODY = {"consent_version": "1", "accept": True}
STUDY_ID = "5f0e6ad2c1b3a4d5e6f70812"
ARRIVAL = {"PROLIFIC_PID": "60a1b2c3d4e5f60718293a4b", "STUDY_ID": STUDY_ID, "SESSION_ID": "s-1"}
CLIENT_KEY = "k" * 8 + "front-end-client-key-of-this-site"


@pytest.fixture
def study(instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    return validation_open(pairs=[("D1", "wisdom")])[0]


@pytest.fixture
def panel_only(settings):
    settings.STUDY_ACCESS, settings.STUDY_PANEL_STUDY_ID = "panel", STUDY_ID


def test_a_panel_only_study_refuses_a_visitor_without_the_panel_link(client, study, panel_only):
    page = client.post("/study/consent/", {"agree": "on"}).content.decode()
    api = APIClient().post(f"{API}/consent/", BODY, format="json")
    assert "open only to participants who arrive from its panel study" in page
    assert api.status_code == 403 and not Respondent.objects.exists()


def test_a_panel_only_study_refuses_a_panel_id_without_its_session(client, study, panel_only):
    client.post("/study/consent/", {"agree": "on", "PROLIFIC_PID": ARRIVAL["PROLIFIC_PID"], "STUDY_ID": STUDY_ID})
    assert not Respondent.objects.exists()


def test_a_panel_only_study_admits_an_arrival_from_its_panel_study(client, study, panel_only):
    client.get("/study/consent/", ARRIVAL)
    response = client.post("/study/consent/", {"agree": "on", **ARRIVAL})
    assert response.url == "/study/about-you/" and Respondent.objects.get().panel == "prolific"


def test_a_prolific_arrival_for_another_study_is_refused(study, settings):
    settings.STUDY_PANEL_STUDY_ID = STUDY_ID
    body = {**BODY, "panel": {**ARRIVAL, "STUDY_ID": "another-study"}}
    response = APIClient().post(f"{API}/consent/", body, format="json")
    assert response.status_code == 403 and "another study" in response.json()["message"]


def test_the_study_api_can_be_turned_off_but_withdrawing_still_works(study, settings):
    client = APIClient()
    token = client.post(f"{API}/consent/", BODY, format="json").json()["token"]
    settings.STUDY_API = "off"
    client.credentials(HTTP_X_RESPONDENT_TOKEN=token)
    assert APIClient().post(f"{API}/consent/", BODY, format="json").status_code == 403
    assert client.get(f"{API}/next/").status_code == 403
    assert client.delete(f"{API}/respondent/").status_code == 204 and not Respondent.objects.exists()


def test_with_registered_clients_only_their_key_opens_the_study_api(study, settings):
    settings.STUDY_API, settings.STUDY_API_CLIENT_KEYS = "clients", [CLIENT_KEY]
    stranger = APIClient().post(f"{API}/consent/", BODY, format="json")
    wrong = APIClient().post(f"{API}/consent/", BODY, format="json", HTTP_X_STUDY_CLIENT=CLIENT_KEY[:-1])
    front_end = APIClient().post(f"{API}/consent/", BODY, format="json", HTTP_X_STUDY_CLIENT=CLIENT_KEY)
    assert (stranger.status_code, wrong.status_code, front_end.status_code) == (403, 403, 201)
    assert "X-Study-Client" in stranger.json()["message"]


def test_a_respondent_token_expires_for_answers_and_reads_but_still_withdraws(study, settings):
    client = APIClient()
    token = client.post(f"{API}/consent/", BODY, format="json").json()["token"]
    Respondent.objects.update(consented_at=Respondent.objects.get().consented_at - timedelta(hours=49))
    client.credentials(HTTP_X_RESPONDENT_TOKEN=token)
    expired = client.get(f"{API}/next/")
    assert expired.status_code == 401 and "expired" in expired.json()["message"]
    assert (
        client.post(f"{API}/responses/", {"candidate": study.pk, "confirmed": True}, format="json").status_code == 401
    )
    assert client.delete(f"{API}/respondent/").status_code == 204


def test_a_panel_id_alone_reads_answers_and_withdraws_nothing_of_its_owner(study):
    owner = APIClient()
    token = owner.post(f"{API}/consent/", {**BODY, "panel": ARRIVAL}, format="json").json()["token"]
    owner.credentials(HTTP_X_RESPONDENT_TOKEN=token)
    candidate = owner.get(f"{API}/next/").json()["candidate"]
    impostor = APIClient()
    taken = impostor.post(
        f"{API}/consent/", {**BODY, "panel": {"PROLIFIC_PID": ARRIVAL["PROLIFIC_PID"]}}, format="json"
    )
    impostor.credentials(HTTP_X_RESPONDENT_TOKEN=taken.json()["token"])
    assert impostor.delete(f"{API}/respondent/").status_code == 204  # deletes the impostor's own respondent only
    answered = owner.post(f"{API}/responses/", {"candidate": candidate, "confirmed": True}, format="json")
    assert answered.status_code == 201 and Respondent.objects.count() == 1


def test_a_used_panel_id_is_answered_exactly_as_a_fresh_one(study):
    def consent(panel_id: str):
        return APIClient().post(f"{API}/consent/", {**BODY, "panel": {"PROLIFIC_PID": panel_id}}, format="json")

    consent("60a1b2c3d4e5f60718293a4b")
    Respondent.objects.update(completed_at="2026-01-01T00:00Z")
    used, fresh = consent("60a1b2c3d4e5f60718293a4b"), consent("70a1b2c3d4e5f60718293a4b")
    assert used.status_code == fresh.status_code == 201
    assert used.json().keys() == fresh.json().keys() and used.json()["resumed"] is fresh.json()["resumed"] is False


def test_the_schema_documents_the_refusals(client):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    assert {"403", "413", "415"} <= set(paths[f"{API}/consent/"]["post"]["responses"])
    assert "409" in paths[f"{API}/responses/"]["post"]["responses"]
    assert "422" in paths["/api/v1/transitivity/test/"]["post"]["responses"]
