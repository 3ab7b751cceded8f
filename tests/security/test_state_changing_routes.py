"""Every route of the URL configuration (pages, admin, API), hit with POST, PUT, PATCH and DELETE by a client with
no session, no CSRF token and no credentials: every request is refused and nothing is written."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest
from django.apps import apps
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404

# Values tried for each path parameter until the URL resolves back to the same view.
SAMPLE_VALUES = ["1", "surveys", "D1", "x", "00000000-0000-0000-0000-000000000000", "openai/gpt-5", "svg"]
METHODS = ["post", "put", "patch", "delete"]
# 400: the body was refused (stateless or anonymous endpoints), 401/403: no credentials or CSRF token,
# 404: nothing there for this client, 405: the route does not take the method, 429: throttled.
REFUSED = {400, 401, 403, 404, 405, 429}
# Routes that answer an anonymous POST with a result but write nothing by design (checked below).
STATELESS = {"/api/v1/profiles/score/"}


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in resolver.url_patterns:
        regex = entry.pattern.regex.pattern.removeprefix("^").removesuffix(r"\Z").removesuffix("$")
        if isinstance(entry, URLResolver):
            yield from _routes(entry, prefix + regex)
        else:
            yield prefix + regex, entry


def _groups(regex: str) -> list[tuple[int, int]]:
    """Spans of the named groups `(?P<name>…)` in `regex`, outermost only, parentheses balanced."""
    spans, start = [], regex.find("(?P<")
    while start != -1:
        depth, index = 0, start
        while True:
            if regex[index] == "\\":
                index += 2
                continue
            depth += {"(": 1, ")": -1}.get(regex[index], 0)
            index += 1
            if depth == 0:
                break
        spans.append((start, index))
        start = regex.find("(?P<", index)
    return spans


def _concrete_url(regex: str, pattern: URLPattern) -> str | None:
    spans = _groups(regex)
    for values in itertools.product(SAMPLE_VALUES, repeat=len(spans)):
        url, last = "", 0
        for (start, end), value in zip(spans, values, strict=True):
            url += regex[last:start] + value
            last = end
        url = "/" + re.sub(r"\\(.)", r"\1", url + regex[last:]).replace("?", "")
        try:
            if resolve(url).func == pattern.callback:
                return url
        except Resolver404:
            continue
    return None


def _all_urls() -> list[str]:
    urls, unresolved = [], []
    for regex, pattern in _routes(get_resolver()):
        url = _concrete_url(regex, pattern)
        (urls if url else unresolved).append(url or regex)
    assert not unresolved, f"routes the walk cannot build a URL for (add a sample value): {unresolved}"
    return sorted(set(urls))


def _row_counts() -> dict[str, int]:
    return {model._meta.label: model._default_manager.count() for model in apps.get_models()}


@pytest.fixture
def populated(instrument, consent_texts, respondent, researcher, published_models):
    """Something of everything, so that a route that did write would have something to write to."""


def test_the_walk_covers_pages_admin_and_api(db):
    urls = _all_urls()
    assert "/study/consent/" in urls and "/api/v1/study/responses/" in urls and "/admin/login/" in urls
    assert any(url.startswith("/admin/surveys/respondent/") for url in urls)
    assert len(urls) > 60


def test_no_state_changing_request_without_credentials_gets_through(populated):
    client = Client(enforce_csrf_checks=True)
    before = _row_counts()
    accepted = []
    for url in _all_urls():
        for method in METHODS:
            response = getattr(client, method)(url, data="{}", content_type="application/json")
            if response.status_code not in REFUSED and url not in STATELESS:
                accepted.append(f"{method.upper()} {url} -> {response.status_code}")
    assert accepted == []
    assert _row_counts() == before


def test_form_posts_without_a_csrf_token_are_forbidden(populated):
    client = Client(enforce_csrf_checks=True)
    for url in ["/study/consent/", "/study/item/", "/study/withdraw/", "/profile/", "/profile/withdraw/"]:
        response = client.post(url, {"agree": "on", "accept": "1"})
        assert response.status_code == 403, url


def test_the_study_api_ignores_the_session_cookie(populated, client):
    # A browser that took part through the pages has a session; the API must still ask for the respondent token,
    # so a cross-site form cannot answer in that person's name.
    from instruments.virtuemap.validation import validation_open

    validation_open(pairs=[("D1", "wisdom")])  # a study with nothing open takes no consent
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    assert client.session.get("validation_respondent")
    response = client.post(
        "/api/v1/study/responses/", {"candidate": 1, "confirmed": True}, content_type="application/json"
    )
    assert response.status_code == 401


def test_the_stateless_score_endpoint_writes_nothing(populated):
    before = _row_counts()
    response = Client(enforce_csrf_checks=True).post(
        "/api/v1/profiles/score/", {"rankings": {"D1": list("ABCDE")}}, content_type="application/json"
    )
    assert response.status_code == 200
    assert _row_counts() == before
