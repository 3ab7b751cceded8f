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
