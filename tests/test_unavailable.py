"""While the database is unreachable, respondents get a friendly 503 with Retry-After, never a 500 or a traceback.
(The real outage, a PostgreSQL server stopped under traffic, is tests/test_database_outage.py.)"""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client, RequestFactory

from virtuemap_site.unavailable import server_error

pytestmark = pytest.mark.django_db


def unreachable(error=OperationalError):
    return mock.patch("instruments.virtuemap.study_views.study_is_open", side_effect=error("connection refused"))


def test_a_page_answers_503_with_the_temporarily_unavailable_page_and_retry_after(client):
    with unreachable():
        response = client.get("/study/")
    assert response.status_code == 503 and response["Retry-After"].isdigit()
    page = response.content.decode()
    assert "Temporarily unavailable" in page and "Traceback" not in page and "connection refused" not in page


def test_the_api_answers_503_in_its_error_shape(client):
    with mock.patch(
        "instruments.virtuemap.study_api.respondent_by_token", side_effect=InterfaceError("connection already closed")
    ):
        response = client.get("/api/v1/study/next/", HTTP_X_RESPONDENT_TOKEN="t")
    assert response.status_code == 503 and response["Retry-After"].isdigit()
    assert set(response.json()) == {"message", "extra"}


def test_the_500_handler_answers_503_for_a_database_error_raised_outside_a_view():
    # Django calls handler500 inside its `except` block, as here (a middleware failing to save the session).
    request = RequestFactory().get("/api/v1/keys/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = server_error(request)
    assert response.status_code == 503 and json.loads(response.content)["extra"] == {"retry_after": 5}


def test_other_errors_stay_server_errors():
    client = Client(raise_request_exception=False)
    with unreachable(ZeroDivisionError):
        assert client.get("/study/").status_code == 500
