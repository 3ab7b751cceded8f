"""Every picture of a model's page and of a comparison downloads as a standalone SVG and as a PNG."""

from __future__ import annotations

import re

import pytest

from tests.profiles.conftest import CLAUDE, GPT

pytestmark = pytest.mark.django_db


def test_each_picture_of_a_model_page_has_svg_and_png_links_that_answer(client, four_instruments):
    page = client.get(f"/models/{GPT}/").content.decode()
    links = re.findall(r'href="(/models/[^"]+/pictures/[^"]+\.(?:svg|png))"', page)

    # A pentagon, the transitivity counts, MoralBench's two sets: four pictures, two files each.
    assert len(links) == 8
    for link in links:
        response = client.get(link)
        assert response.status_code == 200 and response["Content-Disposition"].startswith("attachment")


def test_the_svg_stands_alone_with_its_styles_and_the_png_is_an_image(client, four_instruments):
    svg = client.get(f"/models/{GPT}/pictures/virtuemap-1.svg").content.decode()
    png = client.get(f"/models/{GPT}/pictures/virtuemap-1.png")

    assert 'xmlns="http://www.w3.org/2000/svg"' in svg and "<style>" in svg and "var(--" not in svg
    assert "radar-series--model" in svg and "GPT" in svg
    assert png["Content-Type"] == "image/png" and png.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_comparison_picture_overlays_the_models(client, four_instruments):
    svg = client.get(f"/compare/pictures/virtuemap-1.svg?models={GPT},{CLAUDE}").content.decode()

    assert 'data-series="GPT"' in svg and 'data-series="Claude"' in svg


def test_a_picture_that_does_not_exist_is_a_404(client, four_instruments):
    assert client.get(f"/models/{GPT}/pictures/virtuemap-2.svg").status_code == 404
    assert client.get(f"/models/{GPT}/pictures/nothing-1.png").status_code == 404
