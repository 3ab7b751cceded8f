"""The API in a real browser: the docs page has a language, the browsable API renders under the site's Content
Security Policy without one violation, and an unknown API path answers the JSON error shape."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def watch_csp(page) -> list[str]:
    """Collect every Content Security Policy violation the page reports (the console shows them as errors too)."""
    violations: list[str] = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    return violations


def test_the_api_docs_page_has_a_language(page, instrument):
    page.goto("/api/docs/")
    assert page.locator("html").get_attribute("lang") == "en"


@pytest.mark.parametrize("path", ["/api/v1/virtues/", "/api/v1/dilemmas/", "/api/v1/keys/", "/api/v1/instruments/"])
def test_the_browsable_api_raises_no_csp_violation(page, instrument, path, screenshot):
    violations = watch_csp(page)
    response = page.goto(path)
    assert response.status < 500 and "text/html" in response.headers["content-type"]
    page.wait_for_load_state("load")
    assert violations == []
    if path.endswith("virtues/"):
        screenshot(page, "browsable-api")


def test_an_unknown_api_path_answers_the_json_error_shape(page, instrument):
    # As a program asks (a request, not a page load, which the console would report as a failed resource).
    response = page.request.get("/api/v1/no-such-thing/")
    assert response.status == 404 and response.headers["content-type"].startswith("application/json")
    body = json.loads(response.text())
    assert set(body) == {"message", "extra"} and "/api/v1/no-such-thing/" in body["message"]
