"""Strict input: NUL characters and non-ASCII digits are 4xx (never 500), API writes are JSON only and bounded in
size, booleans are booleans, no other site can write to the API or read what a write returned."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from instruments.virtuemap.models import ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.models import QuestionnaireAnswer, Respondent
from surveys.services import _next_version

pytestmark = pytest.mark.django_db

CONSENT = "/api/v1/study/consent/"
BODY = {"consent_version": "1", "accept": True}


class UnreadableBody:
    """A request body that fails the test if anything reads it."""

    def read(self, *args, **kwargs):
        raise AssertionError("the body was read")

    readline = read


@pytest.mark.parametrize("path", ["/api/v1/models/%00/", "/api/v1/models/a%00b/"])
def test_a_nul_in_an_api_path_is_a_404_in_the_api_shape(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response.json() == {"message": "No such page.", "extra": {}}


@pytest.mark.parametrize("path", ["/transitivity/models/x%00y/", "/profile/dilemmas/D%001/", "/study/%00/"])
def test_a_nul_in_a_page_path_is_a_404(client, path):
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("url", ["/api/v1/keys/?dilemma=%00", "/study/?PROLIFIC_PID=a%00", "/transitivity/?x%00=1"])
def test_a_nul_in_a_query_string_is_a_400(client, instrument, url):
    assert client.get(url).status_code == 400


@pytest.mark.parametrize("block", ["²", "١", "x", "-1"])
def test_a_block_that_is_not_ascii_digits_is_a_400(client, transitivity_instrument, consent_texts, block):
    assert client.get("/transitivity/questionnaire/", {"block": block}).status_code == 400


@pytest.mark.parametrize("position", ["²", "١", "\x00", "1\x00"])
def test_a_position_that_is_not_ascii_digits_is_a_400_and_stores_nothing(
    client, transitivity_instrument, consent_texts, position
):
    client.post("/transitivity/questionnaire/", {"agree": "on", "accept": "1"})
    response = client.post("/transitivity/questionnaire/next/", {"position": position, "situation": "1"})
    assert response.status_code == 400 and not QuestionnaireAnswer.objects.exists()


@pytest.mark.parametrize("assignment", ["²", "١", "x", "-1", "1" * 40])
def test_an_assignment_that_is_not_ascii_digits_is_taken_for_a_stale_tab_and_stores_nothing(
    client, instrument, consent_texts, assignment
):
    validation_open(pairs=[("D1", "wisdom")])
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    client.get("/study/item/")
    response = client.post("/study/item/", {"assignment": assignment, "action": "confirm"})
    assert response.status_code == 302 and response.url == "/study/item/"
    assert not ValidationResponse.objects.exists()


def test_a_consent_text_version_that_is_not_ascii_digits_does_not_count_as_a_number():
    assert _next_version(["1", "²", "١٢", "3"]) == "4"


def test_a_form_encoded_api_write_is_refused_with_415_and_stores_nothing(client, consent_texts):
    response = client.post(CONSENT, {"consent_version": "1", "accept": "true"})
    assert response.status_code == 415 and "JSON" in response.json()["message"]
    assert not Respondent.objects.exists()


def test_a_cross_site_form_post_to_the_api_stores_nothing(client, consent_texts):
    data = "consent_version=1&accept=true"
    response = client.post(
        CONSENT, data, content_type="application/x-www-form-urlencoded", HTTP_ORIGIN="http://evil.example"
    )
    assert response.status_code == 403 and not Respondent.objects.exists()
    assert "Access-Control-Allow-Origin" not in response


def test_a_json_write_from_another_site_is_refused(client, consent_texts):
    response = client.post(CONSENT, BODY, content_type="application/json", HTTP_ORIGIN="http://evil.example")
    assert response.status_code == 403 and not Respondent.objects.exists()


def test_a_json_write_from_this_site_is_taken(client, consent_texts):
    response = client.post(CONSENT, BODY, content_type="application/json", HTTP_ORIGIN="http://testserver")
    assert response.status_code == 201


def test_an_allowed_origin_may_read_the_api_but_never_what_a_write_returned(client, consent_texts, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://front.example"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://front.example"]
    origin = {"HTTP_ORIGIN": "https://front.example"}
    assert client.get("/api/v1/virtues/", **origin)["Access-Control-Allow-Origin"] == "https://front.example"
    written = client.post(CONSENT, BODY, content_type="application/json", **origin)
    assert written.status_code == 201 and "Access-Control-Allow-Origin" not in written
    preflight = client.options(CONSENT, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST", **origin)
    assert "POST" not in preflight.get("Access-Control-Allow-Methods", "")


def test_a_body_over_the_limit_is_refused_from_its_length_without_being_read(client):
    response = client.generic(
        "POST",
        "/api/v1/study/responses/",
        b"",
        CONTENT_TYPE="application/json",
        CONTENT_LENGTH=str(2_400_000),
        **{"wsgi.input": UnreadableBody()},
    )
    assert response.status_code == 413
    assert response.json()["extra"] == {"limit_bytes": 16_384, "setting": "API_MAX_BODY_BYTES"}


def test_a_body_past_djangos_own_limit_gets_the_api_shape_not_an_html_page(client):
    body = b'{"ordering": [' + b'"A",' * 700_000 + b'"A"]}'
    response = client.post("/api/v1/study/responses/", body, content_type="application/json")
    assert response.status_code == 413 and response["Content-Type"] == "application/json"


@pytest.mark.parametrize("accept", ["true", "yes", 1, "on"])
def test_consent_takes_only_a_json_boolean(consent_texts, accept):
    response = APIClient().post(CONSENT, {"consent_version": "1", "accept": accept}, format="json")
    assert response.status_code == 400 and "JSON boolean" in response.json()["message"]
    assert not Respondent.objects.exists()
