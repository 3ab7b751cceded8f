from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from instruments.virtuemap.models import ValidationResponse
from surveys.models import Respondent

pytestmark = pytest.mark.django_db

API = "/api/v1/study"


@pytest.fixture
def client():
    return APIClient()


@pytest.fixture
def token(client, open_candidate):
    """A consenting API respondent, served the open candidate (CBDAE)."""
    created = client.post(f"{API}/consent/", {"consent_version": "1", "accept": True}, format="json")
    client.credentials(HTTP_X_RESPONDENT_TOKEN=created.json()["token"])
    assert client.get(f"{API}/next/").json()["candidate"] == open_candidate.pk
    return created.json()["token"]


def test_the_consent_text_and_its_version_are_public(client, consent_texts):
    body = client.get(f"{API}/consent/").json()
    assert body["version"] == "1" and "Anonymity" in body["information_sheet"]


def test_consent_returns_a_respondent_and_a_token_stored_only_hashed(client, consent_texts):
    response = client.post(f"{API}/consent/", {"consent_version": "1", "accept": True}, format="json")
    assert response.status_code == 201
    assert response.json()["token"] not in str(list(Respondent.objects.values()))


def test_consent_returns_the_participant_reference_that_withdraws_from_any_browser(client, consent_texts):
    reference = client.post(f"{API}/consent/", {"consent_version": "1", "accept": True}, format="json").json()[
        "participant_reference"
    ]
    assert reference not in str(list(Respondent.objects.values()))
    page = Client().post("/withdraw/", {"reference": reference, "confirm": "1"}).content.decode()
    assert "Deleted 1 record" in page and not Respondent.objects.exists()


def test_declining_consent_stores_nothing_and_gives_the_panel_code(client, consent_texts):
    body = {"consent_version": "1", "accept": False, "panel": {"PROLIFIC_PID": "abc"}}
    response = client.post(f"{API}/consent/", body, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "message": "Consent was not given, so nothing was stored.",
        "extra": {"completion_code": "VM-NOCONSENT"},
    }
    assert not Respondent.objects.exists()


def test_next_serves_the_item_with_dilemma_virtue_ordering_and_progress(client, token, open_candidate):
    body = client.get(f"{API}/next/").json()
    assert body["kind"] == "validation" and body["ordering"] == list("CBDAE")
    assert body["virtue"]["name"] == "Practical Wisdom" or body["virtue"]["id"] == "wisdom"
    assert set(body["dilemma"]["options"]) == set("ABCDE")
    assert body["progress"] == {"answered": 0, "total": 10, "position": 1}


def test_a_confirmation_is_created_and_a_repeat_returns_it(client, token, open_candidate):
    first = client.post(f"{API}/responses/", {"candidate": open_candidate.pk, "confirmed": True}, format="json")
    again = client.post(f"{API}/responses/", {"candidate": open_candidate.pk, "confirmed": True}, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["ordering"] == list("CBDAE")
    open_candidate.refresh_from_db()
    assert open_candidate.n_evaluations == 1


def test_a_correction_is_stored(client, token, open_candidate):
    body = {"candidate": open_candidate.pk, "confirmed": False, "ordering": list("BACDE")}
    response = client.post(f"{API}/responses/", body, format="json")
    assert response.status_code == 201 and response.json()["confirmed"] is False


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"confirmed": False, "ordering": ["A", "B", "C", "D", "X"]}, "unknown option 'X'"),
        ({"confirmed": False, "ordering": ["A", "A", "C", "D", "E"]}, "'A' appears more than once; missing 'B'"),
        ({"confirmed": False, "ordering": ["A", "B", "C", "D"]}, "ranking has 4 items"),
        ({"confirmed": False}, "needs an 'ordering'"),
        ({"confirmed": "maybe"}, "confirmed: Must be true or false (a JSON boolean)."),
        ({"confirmed": "yes"}, "confirmed: Must be true or false (a JSON boolean)."),
        ({"confirmed": 1}, "confirmed: Must be true or false (a JSON boolean)."),
        ({"confirmed": True, "extra_field": 1}, "Unknown field(s): extra_field."),
    ],
)
def test_bad_input_is_a_400_naming_the_problem_and_writes_nothing(client, token, open_candidate, body, message):
    response = client.post(f"{API}/responses/", {"candidate": open_candidate.pk, **body}, format="json")
    assert response.status_code == 400
    assert message in response.json()["message"]
    assert not ValidationResponse.objects.exists()


def test_a_body_that_is_not_json_is_a_400(client, token, open_candidate):
    response = client.generic("POST", f"{API}/responses/", "{confirmed: yes", content_type="application/json")
    assert response.status_code == 400 and response.json()["message"].startswith("Malformed JSON: ")
    assert not ValidationResponse.objects.exists()


def test_a_candidate_not_assigned_to_this_respondent_is_a_403(client, token, open_candidate):
    response = client.post(f"{API}/responses/", {"candidate": open_candidate.pk + 99, "confirmed": True}, format="json")
    assert response.status_code == 403 and "was not assigned" in response.json()["message"]
    assert not ValidationResponse.objects.exists()


def test_without_consent_there_is_no_token_and_no_access(client, open_candidate):
    response = client.post(f"{API}/responses/", {"candidate": open_candidate.pk, "confirmed": True}, format="json")
    assert response.status_code == 401 and "X-Respondent-Token" in response.json()["message"]
    assert not ValidationResponse.objects.exists()


def test_a_bad_token_is_a_401(client, open_candidate):
    client.credentials(HTTP_X_RESPONDENT_TOKEN="not-a-token")
    response = client.post(f"{API}/responses/", {"candidate": open_candidate.pk, "confirmed": True}, format="json")
    assert response.status_code == 401 and "Unknown X-Respondent-Token" in response.json()["message"]
    assert not ValidationResponse.objects.exists()


def test_next_is_204_when_nothing_is_open(client, consent_texts, instrument):
    token = client.post(f"{API}/consent/", {"consent_version": "1", "accept": True}, format="json").json()["token"]
    assert client.get(f"{API}/next/", HTTP_X_RESPONDENT_TOKEN=token).status_code == 204


def test_demographics_are_optional_bands(client, token):
    assert client.patch(f"{API}/respondent/", {"age_band": "25-34"}, format="json").status_code == 204
    assert client.patch(f"{API}/respondent/", {"age_band": "31"}, format="json").status_code == 400
    assert Respondent.objects.get().age_band == "25-34"


def test_withdrawal_deletes_everything_of_the_respondent(client, token, open_candidate):
    client.post(f"{API}/responses/", {"candidate": open_candidate.pk, "confirmed": True}, format="json")
    assert client.delete(f"{API}/respondent/").status_code == 204
    assert not Respondent.objects.exists() and not ValidationResponse.objects.exists()
    open_candidate.refresh_from_db()
    assert open_candidate.n_evaluations == 0


def test_an_automated_respondent_walks_the_whole_study_to_its_completion_code(
    client, consent_texts, instrument, settings
):
    from instruments.virtuemap.validation import validation_open

    settings.STUDY_ATTENTION_CHECKS = 1
    validation_open()
    panel = {"PROLIFIC_PID": "5f00aa", "STUDY_ID": "s1", "SESSION_ID": "x"}
    token = client.post(f"{API}/consent/", {"consent_version": "1", "accept": True, "panel": panel}, format="json")
    client.credentials(HTTP_X_RESPONDENT_TOKEN=token.json()["token"])
    while (item := client.get(f"{API}/next/")).status_code == 200:
        item = item.json()
        if item["kind"] == "attention_check":
            letter = item["instruction"].split("response ")[1][0]
            ordering = [letter] + [o for o in item["ordering"] if o != letter]
            body = {"attention_check": item["attention_check"], "ordering": ordering}
        else:
            body = {"candidate": item["candidate"], "confirmed": True}
        assert client.post(f"{API}/responses/", body, format="json").status_code == 201
    final = client.get(f"{API}/respondent/").json()
    assert final["complete"] and final["completion_code"] == "VM-COMPLETED"
    assert final["redirect_url"].endswith("cc=VM-COMPLETED") and not Respondent.objects.get().flagged


def test_the_openapi_schema_documents_the_study_endpoints_and_their_errors():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    responses = schema["paths"]["/api/v1/study/responses/"]["post"]["responses"]
    assert {"200", "201", "400", "401", "403"} <= set(responses)
    assert schema["components"]["securitySchemes"]["respondentToken"]["name"] == "X-Respondent-Token"
    assert json.dumps(schema)


def test_a_plausible_client_reported_time_on_item_is_kept(client, token, open_candidate):
    body = {"candidate": open_candidate.pk, "confirmed": True, "time_on_item_ms": 0}
    client.post(f"{API}/responses/", body, format="json")
    assert ValidationResponse.objects.get().time_on_item_ms == 0
