"""/api/docs/ shows a lock only where one is needed: the generated schema lists no security requirement for an
operation anyone may call, and the scheme it needs for every other one."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def operations(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    return {
        (method.upper(), path): operation
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }


@pytest.mark.parametrize(
    "operation",
    [
        ("GET", "/api/v1/virtues/"),
        ("GET", "/api/v1/keys/"),
        ("GET", "/api/v1/models/"),
        ("GET", "/api/v1/models/{slug}/"),
        ("GET", "/api/v1/instruments/"),
        ("POST", "/api/v1/profiles/score/"),
        ("POST", "/api/v1/transitivity/test/"),
        ("POST", "/api/v1/study/consent/"),
    ],
)
def test_a_public_operation_is_documented_without_a_security_requirement(operations, operation):
    assert operation in operations
    assert "security" not in operations[operation]


def test_the_respondent_operations_need_the_respondent_token(operations):
    paths = {"/api/v1/study/next/", "/api/v1/study/responses/", "/api/v1/study/respondent/"}
    respondent = [op for (_, path), op in operations.items() if path in paths]

    assert len(respondent) >= 4  # next, answer, read and withdraw
    assert all(op["security"] == [{"respondentToken": []}] for op in respondent)


def test_no_operation_is_public_by_accident(operations):
    # Every operation is either public (no lock) or names a scheme a caller can satisfy; none lists an empty one.
    for key, operation in operations.items():
        for requirement in operation.get("security", []):
            assert requirement, f"{key} lists an empty security requirement (a lock that needs nothing)"
