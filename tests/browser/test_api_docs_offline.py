from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_api_docs_render_every_operation_from_files_this_site_serves(page, live_server, instrument, screenshot):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock", timeout=15000)
    assert page.locator(".swagger-ui .opblock").count() >= 10
    ours = urlsplit(live_server.url).netloc
    assert [url for url in requested if url.startswith("http") and urlsplit(url).netloc != ours] == []
    screenshot(page, "api-docs")


def test_the_api_docs_show_a_lock_only_on_operations_that_need_credentials(page, instrument, screenshot):
    page.goto("/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock", timeout=15000)

    locked = page.locator(".swagger-ui .opblock").filter(has=page.locator(".authorization__btn"))
    paths = {text.strip() for text in locked.locator(".opblock-summary-path").all_inner_texts()}

    # Only the study's respondent operations (next, answer, read, withdraw) need a credential, its respondent token.
    assert paths and paths <= {"/api/v1/study/next/", "/api/v1/study/responses/", "/api/v1/study/respondent/"}
    public = page.locator(".swagger-ui .opblock").filter(has_text="/api/v1/keys/")
    assert public.count() >= 1 and public.locator(".authorization__btn").count() == 0
