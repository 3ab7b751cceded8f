"""The parts of a page that are the same for every visitor of it in a language (the header with its language and
navigation links, the footer's fixed links, the study's bar, the item's buttons) are rendered once per process and
kept (`CACHES["fragments"]`): each language and page still gets its own, a link's query string is never kept, and
nothing of one visitor reaches another. Which backend production and DEBUG use:
tests/security/test_deploy_settings.py."""

from __future__ import annotations

import re
from unittest.mock import Mock

import pytest
from django.conf import settings
from django.test import Client

import instruments.context_processors
import virtuemap_site.i18n
from instruments.virtuemap.validation import validation_open

pytestmark = pytest.mark.django_db

LANGUAGE_LINKS = re.compile(r'<nav class="language-switch"[^>]*>(.*?)</nav>', re.S)
CURRENT_PAGE = re.compile(r'<a href="([^"]+)"[^>]*aria-current="page"')
REFERENCE = re.compile(r'<strong class="reference">([0-9A-Z-]{14})</strong>')


def in_language(code: str) -> Client:
    """A browser whose language cookie says ``code``: its pages come in that language without a query string."""
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    return client


@pytest.fixture
def counted(monkeypatch):
    """The header's two link builders, watched: ``counted()`` says how many times each has run."""
    builders = {
        "navigation": (instruments.context_processors, "navigation_links"),
        "languages": (virtuemap_site.i18n, "language_links"),
    }
    watched = {}
    for name, (module, function) in builders.items():
        watched[name] = Mock(wraps=getattr(module, function))
        monkeypatch.setattr(module, function, watched[name])
    return lambda: {name: mock.call_count for name, mock in watched.items()}


def test_the_header_is_built_once_per_page_and_language(client, instrument, counted):
    first, again = client.get("/models/").content.decode(), client.get("/models/").content.decode()
    assert first == again
    assert counted() == {"navigation": 1, "languages": 1}
    client.get("/study/")
    assert counted() == {"navigation": 2, "languages": 2}


def test_each_page_marks_its_own_section_as_current(client, instrument):
    client.get("/models/")
    assert CURRENT_PAGE.findall(client.get("/study/").content.decode()) == ["/study/"]
    assert CURRENT_PAGE.findall(client.get("/models/").content.decode()) == ["/models/"]


@pytest.fixture
def study_open(instrument, consent_texts, settings):
    """The validation study open for D1×wisdom in both editions, without attention checks."""
    settings.STUDY_ATTENTION_CHECKS = 0
    validation_open(pairs=[("D1", "wisdom")])
    validation_open(pairs=[("D1", "wisdom")], language="zh-hans")


def test_each_language_gets_its_own_header_footer_and_buttons(study_open):
    pages = {}
    for code in ("en", "zh-hans"):
        browser = in_language(code)
        browser.post("/study/consent/", {"agree": "on", "accept": "1"})
        pages[code] = browser.get("/study/item/").content.decode()
    english, chinese = pages["en"], pages["zh-hans"]
    assert "Skip to content" in english and "Skip to content" not in chinese
    assert "Withdraw with a participant reference" in english and "Withdraw with a participant reference" not in chinese
    assert "Key validation study" in english and "Key validation study" not in chinese
    assert ">Confirm</button>" in english and ">Confirm</button>" not in chinese
    assert 'aria-current="true">English' in english and 'aria-current="true">English' not in chinese


def test_a_query_string_reaches_the_language_links_of_its_own_request_only(client, instrument):
    arrival = client.get("/study/", {"PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e"}).content.decode()
    (links,) = LANGUAGE_LINKS.findall(arrival)
    assert "PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e" in links
    (plain,) = LANGUAGE_LINKS.findall(client.get("/study/").content.decode())
    assert "PROLIFIC_PID" not in plain and 'href="/study/?lang=en"' in plain
    (again,) = LANGUAGE_LINKS.findall(
        client.get("/study/", {"PROLIFIC_PID": "0a9b8c7d6e5f4a3b2c1d0e9f"}).content.decode()
    )
    assert "0a9b8c7d6e5f4a3b2c1d0e9f" in again and "5f1a2b3c4d5e6f7a8b9c0d1e" not in again


def test_each_respondent_sees_their_own_reference_on_the_same_page(study_open):
    seen = []
    for _ in range(2):
        browser = Client()
        browser.post("/study/consent/", {"agree": "on", "accept": "1"})
        seen.append(REFERENCE.findall(browser.get("/study/item/").content.decode()))
    assert len(seen[0]) == len(seen[1]) == 1 and seen[0] != seen[1]
