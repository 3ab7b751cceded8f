"""The home page shows every published model's pentagon, linking to its page, before the invitation to take part."""

from __future__ import annotations

import pytest

from tests.profiles.conftest import CLAUDE, GEMINI, GPT

pytestmark = pytest.mark.django_db


def test_each_published_model_has_a_thumbnail_linking_to_its_page_above_the_invitation(client, published_models):
    page = client.get("/").content.decode()

    for slug in (GPT, CLAUDE, GEMINI):
        assert f'<a href="/models/{slug}/" data-model="{slug}">' in page
    assert page.count('class="radar-svg"') == 3
    assert page.index("model-thumbnails") < page.index('id="take-part-heading"') < page.index('id="virtues-heading"')


def test_without_published_models_the_page_has_no_thumbnails(client, instrument):
    page = client.get("/").content.decode()

    assert "model-thumbnails" not in page and 'id="take-part-heading"' in page
