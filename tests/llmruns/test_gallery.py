from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_gallery_shows_each_published_model_with_runs_consistency_and_ci(client, instrument, published_models):
    page = client.get("/models/").content.decode()
    assert page.count('class="card model-card"') == 3
    assert 'data-model="openai/gpt-5"' in page
    assert "91.2" in page  # GPT's consistency
    assert "±3.6" in page  # GPT's largest CI half-width
    assert page.count('class="radar-svg"') == 3


def test_the_gallery_leads_on_to_the_comparison_and_the_leaderboards(client, instrument):
    links = client.get("/models/").content.decode()
    chinese = client.get("/models/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()

    for page in (links, chinese):
        assert 'href="/compare/"' in page and 'href="/leaderboards/"' in page
    assert "并排比较所选模型" in chinese


def test_an_empty_gallery_tells_staff_how_to_publish_a_profile_and_visitors_no_command(
    client, admin_client, instrument
):
    assert "load_reference_profiles" in admin_client.get("/models/").content.decode()
    page = client.get("/models/").content.decode()
    assert "No model profile is published yet." in page and "load_reference_profiles" not in page


def test_the_home_page_links_to_the_questionnaire_and_the_gallery(client, instrument):
    page = client.get("/").content.decode()
    assert 'href="/profile/"' in page
    assert 'href="/models/"' in page
