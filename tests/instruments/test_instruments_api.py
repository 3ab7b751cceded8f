"""The instruments API: every registered instrument with its version, plan options and items."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_list_names_every_registered_instrument_with_its_plan_options(client, instrument, transitivity_instrument):
    body = client.get("/api/v1/instruments/").json()

    by_slug = {entry["slug"]: entry for entry in body}
    assert set(by_slug) == {"virtuemap", "transitivity", "moralbench", "amaeval"}
    assert by_slug["virtuemap"]["items_count"] == 7 and by_slug["virtuemap"]["loaded"] is True
    assert {option["name"] for option in by_slug["virtuemap"]["plan_options"]} >= {"min_runs", "max_runs"}
    assert by_slug["transitivity"]["items_count"] == 6 * 21
    assert by_slug["virtuemap"]["studies"] == ["validation", "profiling"]
    assert len(by_slug["transitivity"]["items_hash"]) == 64


def test_the_detail_holds_the_item_bank(client, instrument):
    body = client.get("/api/v1/instruments/virtuemap/").json()

    assert body["version"] and body["items"][0]["id"] == "D1"
    assert set(body["items"][0]["options"]) == set("ABCDE")


def test_an_unknown_instrument_is_a_json_404_naming_the_registered_ones(client, db):
    response = client.get("/api/v1/instruments/moralcompass/")

    assert response.status_code == 404
    assert "virtuemap" in response.json()["message"]


def test_an_instrument_that_is_not_loaded_says_so(client, db):
    body = client.get("/api/v1/instruments/transitivity/").json()

    assert body["loaded"] is False and body["items"] == []
