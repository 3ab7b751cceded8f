from __future__ import annotations

from django.test import RequestFactory

from virtuemap_site.errors import AnonymousExceptionReporterFilter


def test_error_reports_leave_out_client_addresses_and_user_agents():
    request = RequestFactory().get("/", HTTP_USER_AGENT="Firefox", REMOTE_ADDR="203.0.113.9")
    meta = AnonymousExceptionReporterFilter().get_safe_request_meta(request)
    assert "REMOTE_ADDR" not in meta and "HTTP_USER_AGENT" not in meta
    assert meta["REQUEST_METHOD"] == "GET"
