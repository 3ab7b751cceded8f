from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_virtues_are_listed_in_instrument_order(api_client, instrument):
    body = api_client.get("/api/v1/virtues/").json()
    assert [virtue["id"] for virtue in body["results"]] == [
        "wisdom",
        "justice",
        "truthfulness",
        "courage",
        "temperance",
    ]


def test_dilemmas_come_with_their_five_options(api_client, instrument):
    first = api_client.get("/api/v1/dilemmas/").json()["results"][0]
    assert first["id"] == "D1"
    assert [option["letter"] for option in first["options"]] == ["A", "B", "C", "D", "E"]


def test_lists_are_paginated(api_client, instrument):
    body = api_client.get("/api/v1/keys/?page_size=10").json()
    assert body["count"] == 35
    assert len(body["results"]) == 10
    assert "page=2" in body["next"]


def test_keys_show_ordering_round_provenance_and_the_validation_counts(api_client, instrument):
    key = api_client.get("/api/v1/keys/?dilemma=D1&virtue=wisdom").json()["results"]
    assert key == [
        {
            "id": key[0]["id"],
            "dilemma": "D1",
            "virtue": "wisdom",
            "ordering": ["C", "B", "D", "A", "E"],
            "round": 0,
            "provenance": "published",
            "language": "en",
            "N": 0,
            "Y": 0,
            "q": None,
            "retained_at": key[0]["retained_at"],
        }
    ]


def test_keys_filter_by_virtue(api_client, instrument):
    results = api_client.get("/api/v1/keys/?virtue=courage&page_size=100").json()["results"]
    assert [key["dilemma"] for key in results] == [f"D{i}" for i in range(1, 8)]


def test_only_retained_keys_are_listed(api_client, instrument):
    from instruments.virtuemap.models import KeyCandidate

    KeyCandidate.objects.filter(dilemma_id="D2").update(status=KeyCandidate.Status.SUPERSEDED)
    assert api_client.get("/api/v1/keys/?dilemma=D2").json()["count"] == 0


def test_a_read_answers_304_when_the_etag_still_matches(api_client, instrument):
    first = api_client.get("/api/v1/dilemmas/")
    again = api_client.get("/api/v1/dilemmas/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_the_etag_changes_when_the_data_does(api_client, instrument):
    from instruments.virtuemap.models import Virtue

    before = api_client.get("/api/v1/virtues/")["ETag"]
    Virtue.objects.filter(id="courage").update(name="Bravery")
    assert api_client.get("/api/v1/virtues/")["ETag"] != before


def test_keys_carry_last_modified_and_honour_if_modified_since(api_client, instrument):
    first = api_client.get("/api/v1/keys/")
    assert first["Last-Modified"].endswith("GMT")
    again = api_client.get("/api/v1/keys/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304


def test_anonymous_clients_cannot_write(api_client, instrument):
    response = api_client.post("/api/v1/keys/", {}, format="json")
    assert response.status_code in (401, 403)
    assert set(response.json()) == {"message", "extra"}


def test_staff_authenticate_with_a_token(api_client, instrument, admin_user):
    from knox.models import AuthToken

    _, token = AuthToken.objects.create(user=admin_user)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    # The read endpoints have no write operation: a staff user gets past permissions to "method not allowed".
    assert api_client.post("/api/v1/keys/", {}, format="json").status_code == 405


def test_cors_is_offered_for_reads_to_configured_origins(api_client, instrument, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://example.org"]
    response = api_client.get("/api/v1/virtues/", HTTP_ORIGIN="https://example.org")
    assert response["Access-Control-Allow-Origin"] == "https://example.org"
    preflight = api_client.options(
        "/api/v1/profiles/score/", HTTP_ORIGIN="https://example.org", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    assert "POST" not in preflight.get("Access-Control-Allow-Methods", "")


def test_cors_is_off_by_default(api_client, instrument):
    response = api_client.get("/api/v1/virtues/", HTTP_ORIGIN="https://example.org")
    assert "Access-Control-Allow-Origin" not in response


def test_the_schema_documents_every_endpoint_and_its_errors(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    assert set(schema["paths"]) >= {
        "/api/v1/virtues/",
        "/api/v1/dilemmas/",
        "/api/v1/keys/",
        "/api/v1/models/",
        "/api/v1/models/{slug}/",
        "/api/v1/profiles/score/",
    }
    score = schema["paths"]["/api/v1/profiles/score/"]["post"]["responses"]
    assert {"200", "400", "429"} <= set(score)
    assert "unknown_dilemma" in score["400"]["description"]


def test_the_docs_page_loads_swagger_ui_from_this_site(client):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "<script>" not in page  # the split view's script is a separate file (no inline script)
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
