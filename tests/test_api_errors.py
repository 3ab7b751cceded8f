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


@pytest.mark.parametrize("path", ["/api/v1/no-such-thing/", "/api/v1/models/no-such-model/results/"])
def test_under_make_runs_debug_settings_an_unknown_api_path_is_still_json(client, settings, path):
    settings.DEBUG = True

    response = client.get(path)

    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert set(response.json()) == {"message", "extra"}


def test_under_make_runs_debug_settings_an_unknown_page_is_the_sites_own_in_the_visitors_language(client, settings):
    settings.DEBUG = True

    english = client.get("/no-such-page/")
    chinese = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert english.status_code == chinese.status_code == 404
    assert "<h1>Page not found</h1>" in english.text and "Using the URLconf" not in english.text
    assert "<h1>页面未找到</h1>" in chinese.text and 'href="/"' in chinese.text


def test_under_make_runs_debug_settings_a_missing_slash_still_redirects(client, settings):
    settings.DEBUG = True
    assert client.get("/api/v1/virtues").status_code == 301


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


def test_a_body_cut_short_is_called_malformed_json_with_where_it_ends(instrument):
    truncated = '{"rankings": {"D1": ["A",'

    response = APIClient().post("/api/v1/profiles/score/", truncated, content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {
        "message": "Malformed JSON: expecting value at line 1, column 26 (a body cut short ends early); "
        "send one complete JSON document.",
        "extra": {},
    }
