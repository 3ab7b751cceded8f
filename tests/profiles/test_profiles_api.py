"""The cross-instrument API: a model's results, the comparison, their errors, their place in the schema."""

from __future__ import annotations

import pytest

from tests.profiles.conftest import CLAUDE, GEMINI, GPT

pytestmark = pytest.mark.django_db


def test_a_models_results_list_every_instrument_with_figures_and_run(api_client, four_instruments):
    body = api_client.get(f"/api/v1/models/{GPT}/results/").json()

    assert body["slug"] == GPT
    assert [entry["instrument"] for entry in body["results"]] == ["virtuemap", "transitivity", "moralbench", "amaeval"]
    amaeval = body["results"][3]
    assert amaeval["figures"][0]["key"] == "ama" and amaeval["run"]["seed"] is not None
    assert amaeval["summary"]["ama"] == pytest.approx(amaeval["figures"][0]["mean"])


def test_the_results_path_wins_over_the_profile_detail_catch_all(api_client, four_instruments):
    assert "results" in api_client.get(f"/api/v1/models/{GPT}/results/").json()
    assert api_client.get(f"/api/v1/models/{GPT}/").json()["slug"] == GPT  # the VirtueMap profile, as before


def test_an_unknown_model_is_a_json_404(api_client, four_instruments):
    response = api_client.get("/api/v1/models/nobody/results/")

    assert response.status_code == 404 and "nobody" in response.json()["message"]


def test_two_models_compare_with_paired_differences(api_client, four_instruments):
    body = api_client.get(f"/api/v1/compare/?models={GPT},{CLAUDE}").json()

    assert [model["slug"] for model in body["models"]] == [GPT, CLAUDE]
    courage = next(row for row in body["differences"]["virtuemap"] if row["key"] == "courage")
    gpt, claude = (next(f for f in model["results"][0]["figures"] if f["key"] == "courage") for model in body["models"])
    assert courage["difference"] == pytest.approx(gpt["mean"] - claude["mean"])
    assert courage["low"] < courage["difference"] < courage["high"]
    assert courage["distinguishable"] is (not courage["low"] <= 0 <= courage["high"])
    assert body["differences"]["moralbench"] == []  # Claude has no MoralBench result


def test_three_models_compare_without_differences(api_client, four_instruments):
    body = api_client.get(f"/api/v1/compare/?models={GPT}&models={CLAUDE},{GEMINI}").json()

    assert len(body["models"]) == 3 and body["differences"] == {} and body["people"] is None


@pytest.mark.parametrize(
    ("query", "status", "word"),
    [
        ("", 400, "at least one"),
        ("?models=a,b,c,d,e,f,g", 400, "at most 6"),
        (f"?models={GPT},nobody", 404, "nobody"),
    ],
)
def test_bad_comparisons_answer_the_error_shape(api_client, four_instruments, query, status, word):
    response = api_client.get(f"/api/v1/compare/{query}")

    assert response.status_code == status
    body = response.json()
    assert set(body) == {"message", "extra"} and word in body["message"]


def test_both_operations_are_in_the_openapi_schema(api_client, db):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/json").json()

    assert "/api/v1/models/{slug}/results/" in schema["paths"] and "/api/v1/compare/" in schema["paths"]
    assert "Comparison" in schema["components"]["schemas"]
