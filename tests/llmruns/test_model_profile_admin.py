from __future__ import annotations

import pytest

from llmruns.models import LLMModel, Result

pytestmark = pytest.mark.django_db

URL = "/admin/virtuemap/virtuemapprofile/add/"


def profile_form(model: LLMModel, **overrides) -> dict[str, str]:
    data = {"model": str(model.pk), "runs": "5", "consistency": "88.5", "invalid_count": "0"}
    for virtue, mean in zip(
        ["wisdom", "justice", "truthfulness", "courage", "temperance"], [90, 80, 70, 60, 50], strict=True
    ):
        data[f"mean_{virtue}"] = str(mean)
        data[f"std_{virtue}"] = ""
        data[f"ci_half_width_{virtue}"] = "2.5"
    return {**data, **overrides}


@pytest.fixture
def model(db):
    return LLMModel.objects.create(slug="example/model", name="Example", model_id="example/model")


def test_the_add_form_has_one_mean_per_virtue(admin_client, instrument):
    page = admin_client.get(URL).content.decode()
    for virtue in ["wisdom", "justice", "truthfulness", "courage", "temperance"]:
        assert f'name="mean_{virtue}"' in page


def test_a_profile_entered_in_admin_is_published_in_the_run_suite_shape(admin_client, instrument, model):
    response = admin_client.post(URL, profile_form(model))
    assert response.status_code == 302
    profile = Result.objects.get(model=model, instrument="virtuemap")
    assert profile.source == "admin" and profile.dependencies == {}
    assert profile.summary["profile_stats"]["wisdom"] == {
        "mean": 90.0,
        "std": None,
        "ci_low": 87.5,
        "ci_high": 92.5,
        "ci_half_width": 2.5,
    }
    assert profile.summary["max_ci_half_width"] == 2.5
    assert admin_client.get("/api/v1/models/example/model/").json()["profile"]["courage"] == 60.0


def test_a_mean_outside_0_to_100_is_refused(admin_client, instrument, model):
    response = admin_client.post(URL, profile_form(model, mean_courage="120"))
    assert response.status_code == 200
    assert not Result.objects.exists()
    assert "less than or equal to 100" in response.content.decode()


def test_editing_shows_the_stored_values(admin_client, instrument, model):
    admin_client.post(URL, profile_form(model, mean_wisdom="92.25"))
    profile = Result.objects.get(model=model)

    page = admin_client.get(f"/admin/virtuemap/virtuemapprofile/{profile.pk}/change/").content.decode()

    assert 'value="92.25"' in page and 'name="_save"' in page


def test_an_imported_profile_is_shown_formatted_and_cannot_be_edited(admin_client, instrument, published_models):
    profile = Result.objects.get(model__slug="openai/gpt-5")
    url = f"/admin/virtuemap/virtuemapprofile/{profile.pk}/change/"

    page = admin_client.get(url).content.decode()

    assert "92.29 ± " in page and "92.28571428571429" not in page
    assert 'name="_save"' not in page and 'name="mean_wisdom"' not in page
    assert admin_client.post(url, profile_form(profile.model, mean_wisdom="10")).status_code == 403
    profile.refresh_from_db()
    assert profile.summary["profile_stats"]["wisdom"]["mean"] == pytest.approx(92.2857, abs=1e-4)


def test_a_second_profile_for_the_same_model_is_refused_with_a_message(admin_client, instrument, model):
    admin_client.post(URL, profile_form(model))

    response = admin_client.post(URL, profile_form(model))

    assert response.status_code == 200
    assert "already has a published profile" in response.content.decode()
    assert Result.objects.filter(model=model).count() == 1
