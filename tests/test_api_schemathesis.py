"""Property-based tests of the whole REST API against its own OpenAPI schema (schemathesis).

Every operation in /api/schema/ gets generated requests, valid and invalid. Checks: no 5xx, every status code
and content type is documented, and every response body matches its schema. Bounded: a fixed number of
examples per operation and no shrinking deadline, so the run takes well under a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


# Generating the schema reads no data, so it can be loaded when the module is collected.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


@pytest.fixture
def api_data(db, instrument, published_models, monkeypatch):
    from virtuemap_site.api import AnonymousPostThrottle

    # Generated requests come fast from one address; the throttle is tested on its own.
    monkeypatch.setattr(AnonymousPostThrottle, "THROTTLE_RATES", {"anon_post": "1000000/minute"})
    # As Django's test client does: a request must not close the connection that holds the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_answers_every_generated_request_as_its_schema_says(api_data, case):
    case.call_and_validate(checks=CHECKS, headers={"Host": "127.0.0.1"})
