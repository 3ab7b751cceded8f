"""The API's one error shape beyond its operations: unknown paths under /api/ are a JSON 404, and every body refuses
fields it does not know with a 400 naming them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/v1/no-such-thing/", "/api/v1/study/nope/", "/api/nope/", "/api/v2/virtues/"])
def test_an_unknown_api_path_is_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "message": f"No API endpoint at {path}; the operations are listed at /api/docs/.",
        "extra": {"path": path},
    }


def test_a_missing_slash_under_the_api_still_redirects(client):
    assert client.get("/api/v1/virtues").status_code == 301


def test_an_unknown_page_outside_the_api_is_still_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


def unknown(response) -> list[str]:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["message"].startswith("Unknown field(s):")
    return body["extra"]["fields"]["unknown"]


def test_the_score_endpoint_names_unknown_fields(instrument):
    response = APIClient().post("/api/v1/profiles/score/", {"rankings": {}, "rankngs": {}}, format="json")
    assert unknown(response) == ["rankngs"]


def test_consent_names_unknown_fields_and_stores_nothing(consent_texts, settings):
    from surveys.models import Respondent

    settings.STUDY_API = "open"
    body = {"consent_version": "1", "accept": True, "acept": True, "extra": 1}
    assert unknown(APIClient().post("/api/v1/study/consent/", body, format="json")) == ["acept", "extra"]
    assert not Respondent.objects.exists()


def test_demographics_name_unknown_fields(consent_texts, settings):
    settings.STUDY_API = "open"
    client = APIClient()
    token = client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json").json()
    response = client.patch(
        "/api/v1/study/respondent/", {"age": "30"}, format="json", HTTP_X_RESPONDENT_TOKEN=token["token"]
    )
    assert unknown(response) == ["age"]
