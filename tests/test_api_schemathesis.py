"""Property-based tests of the whole REST API against its own OpenAPI schema (schemathesis).

Every operation in /api/schema/ gets generated requests, valid and invalid; the stateful test then follows the
schema's OpenAPI links (consent → next item → confirm or answer the attention check → next item …, and a model's
detail from the list), so the study's operations are also called with a real respondent token and a candidate
that was really assigned. Checks: no 5xx, every status code and content type is documented, and every response
body matches its schema. Bounded: a fixed number of examples (and no deadline, as for every property test:
`tests/conftest.py`).
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
EXAMPLES_PER_OPERATION = 100


# Generating the schema reads no data, so it can be loaded when the module is collected.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


@pytest.fixture
def api_data(db, instrument, published_models, consent_texts, monkeypatch):
    from instruments.virtuemap.validation import validation_open
    from virtuemap_site.api import AnonymousPostThrottle

    # Open items, so the study's next-item and response operations have something to serve.
    validation_open(pairs=[("D1", "wisdom"), ("D2", "courage"), ("D3", "justice")])
    # Generated requests come fast from one address; the throttle is tested on its own.
    monkeypatch.setattr(AnonymousPostThrottle, "THROTTLE_RATES", {"anon_post": "1000000/minute"})
    # As Django's test client does: a request must not close the connection that holds the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_OPERATION, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_answers_every_generated_request_as_its_schema_says(api_data, case):
    case.call_and_validate(checks=CHECKS, headers={"Host": "127.0.0.1"})


class Journey(schema.as_state_machine()):
    def get_call_kwargs(self, case):
        return {"headers": {"Host": "127.0.0.1"}}

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        case.validate_response(response, checks=CHECKS)


def test_sequences_that_follow_the_schemas_links_answer_as_the_schema_says(api_data):
    Journey.run(
        settings=settings(
            max_examples=EXAMPLES_PER_OPERATION,
            stateful_step_count=6,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
    )
