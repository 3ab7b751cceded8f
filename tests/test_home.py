from __future__ import annotations

import re

import pytest
from django.urls import Resolver404, resolve

pytestmark = pytest.mark.django_db


def test_home_page_explains_the_five_virtues_and_the_method(client, instrument):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    for name in ("Practical Wisdom", "Justice", "Truthfulness", "Courage", "Temperance"):
        assert name in page
    assert "normalized Borda" in page
    assert "35 keys are in use now" in page


def test_home_page_links_only_to_pages_that_exist(client, admin_client, instrument):
    page = client.get("/").content.decode()
    for href in re.findall(r'<a [^>]*href="(/[^"]*)"', page):
        try:
            resolve(href.split("#")[0].split("?")[0])
        except Resolver404:
            pytest.fail(f"dead link {href}")
        assert admin_client.get(href).status_code == 200, href


def test_home_page_tells_staff_how_to_load_an_empty_instrument_and_visitors_no_command(client, admin_client):
    assert "load_instrument" in admin_client.get("/").content.decode()
    assert "load_instrument" not in client.get("/").content.decode()
