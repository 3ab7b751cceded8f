from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_models_lists_the_published_profiles_by_name(api_client, published_models):
    body = api_client.get("/api/v1/models/").json()
    assert [model["name"] for model in body["results"]] == ["Claude", "GPT", "Gemini"]


def test_a_model_is_found_by_a_slug_with_a_slash(api_client, published_models):
    model = api_client.get("/api/v1/models/openai/gpt-5/").json()
    assert model["slug"] == "openai/gpt-5"
    assert model["runs"] == 5
    assert model["consistency"] == pytest.approx(91.2)
    # Computed here with the exact t quantile; the original suite's 3-decimal table gave 3.569142857.
    assert model["max_ci_half_width"] == pytest.approx(3.569142857142855, abs=1e-3)
    assert model["profile"]["wisdom"] == pytest.approx(92.28571428571429)
    assert model["profile_stats"]["wisdom"]["ci_half_width"] == pytest.approx(2.7618004183902247, abs=1e-3)


def test_an_unknown_model_is_a_404_in_the_error_shape(api_client, published_models):
    response = api_client.get("/api/v1/models/nobody/nothing/")
    assert response.status_code == 404
    assert "nobody/nothing" in response.json()["message"]


def test_a_model_without_a_profile_is_not_published(api_client, db):
    from llmruns.models import LLMModel

    LLMModel.objects.create(slug="local/smollm2", name="SmolLM2", model_id="smollm2")
    assert api_client.get("/api/v1/models/").json()["count"] == 0
    assert api_client.get("/api/v1/models/local/smollm2/").status_code == 404


def test_the_model_detail_carries_last_modified(api_client, published_models):
    response = api_client.get("/api/v1/models/openai/gpt-5/")
    assert response["Last-Modified"].endswith("GMT")
    assert response["ETag"]
