"""The home page: its two actions first (profile yourself, the study), then a small table of every published model's
scores, each model linking to its page, before the invitation to take part."""

from __future__ import annotations

import pytest

from tests.profiles.conftest import CLAUDE, GEMINI, GPT

pytestmark = pytest.mark.django_db


def test_each_published_model_has_a_row_of_scores_linking_to_its_page_above_the_invitation(client, published_models):
    page = client.get("/").content.decode()

    for slug in (GPT, CLAUDE, GEMINI):
        assert f'<a href="/models/{slug}/" data-model="{slug}">' in page
    assert page.count("<td>") == 3 * 5  # five virtues a model
    assert page.index("data-home-actions") < page.index("data-model-summary") < page.index('id="take-part-heading"')


def test_without_published_models_the_page_has_no_model_table(client, instrument):
    page = client.get("/").content.decode()

    assert "data-model-summary" not in page and 'id="take-part-heading"' in page
