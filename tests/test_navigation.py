"""The navigation bar of every page, built from the instrument registry, and the public pages' words for visitors:
no command line unless the reader is staff."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from instruments import registry
from instruments.context_processors import navigation_links
from instruments.virtuemap.models import KeyCandidate

pytestmark = pytest.mark.django_db

NAV = re.compile(r'<nav class="site-nav" aria-label="Main">(.*?)</nav>', re.S)


def _nav(page: str) -> list[tuple[str, str]]:
    (block,) = NAV.findall(page)
    return re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', block)


def _public_paths() -> list[str]:
    """Every page without a parameter in its path, outside admin and the API, and the questionnaire of each study."""
    found = []

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if "<" in route or route.startswith(("api/", "admin/")) or route.endswith((".csv", ".json")):
                continue
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                found.append("/" + route)

    walk(get_resolver().url_patterns, "")
    return found + [reverse("surveys:questionnaire-start", args=[slug]) for slug in registry.studies()]


def test_every_page_has_the_site_links_then_each_instrument_with_a_page(client, instrument):
    expected = [
        ("/study/", "Take part"),
        ("/profile/", "Profile yourself"),
        ("/models/", "Models"),
        ("/leaderboards/", "Leaderboards"),
        *((plugin.page_url, plugin.identity.name) for plugin in registry.instruments() if plugin.page_url),
    ]
    assert ("/transitivity/", "Transitivity test") in expected and ("/amaeval/", "AMAeval") in expected
    for path in ("/", "/profile/", "/models/", "/study/consent/", "/moralbench/", "/take/transitivity/"):
        assert _nav(client.get(path).content.decode()) == expected, path


def test_an_instrument_without_a_page_of_its_own_is_not_in_the_bar(settings):
    settings.INSTRUMENTS = {**settings.INSTRUMENTS, "toy": "tests.instruments.toy.Toy"}
    labels = [link.label for link in navigation_links("/")]
    assert registry.instrument("toy").page_url is None
    assert registry.instrument("toy").identity.name not in labels and "MoralBench" in labels


def test_the_link_to_the_section_a_page_is_in_is_marked_current(client, instrument):
    page = client.get("/transitivity/models/").content.decode()
    assert re.findall(r'<a href="([^"]+)"[^>]*aria-current="page"', page) == ["/transitivity/"]
    assert 'aria-current="page"' not in NAV.findall(client.get("/").content.decode())[0]


def test_the_invitation_to_take_part_is_the_first_link_drawn_as_a_button(client):
    block = NAV.findall(client.get("/models/").content.decode())[0]
    first = re.search(r"<a [^>]*>", block).group(0)
    assert 'href="/study/"' in first and "site-nav__invitation" in first


@pytest.mark.parametrize("loaded", [False, True], ids=["empty database", "instruments loaded"])
def test_visitors_never_see_a_command_line_on_a_public_page(client, loaded):
    if loaded:
        call_command("load_instrument", verbosity=0)
    for path in _public_paths():
        response = client.get(path)
        assert response.status_code < 500, path
        assert "manage.py" not in response.content.decode(), path


def test_staff_see_the_command_that_fills_an_empty_page(client, admin_client):
    assert "No model measured yet." in client.get("/transitivity/models/").content.decode()
    assert (
        "python manage.py run_transitivity --model NAME" in admin_client.get("/transitivity/models/").content.decode()
    )
    assert "python manage.py load_instrument" in admin_client.get("/profile/").content.decode()


def test_the_first_make_run_opens_the_validation_study_and_a_later_one_reopens_nothing(instrument):
    call_command("open_validation", "--first-time", verbosity=0)
    opened = KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN)
    assert opened.count() == 35
    opened.filter(dilemma_id="D1", virtue_id="wisdom").update(status=KeyCandidate.Status.REJECTED)
    call_command("open_validation", "--first-time", verbosity=0)
    assert opened.count() == 34
