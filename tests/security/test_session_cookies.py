"""A session cookie cannot be forged, and a staff login's cannot outlive its logout (`virtuemap_site.sessions`).

A session holding only respondents is a cookie signed with SECRET_KEY: changed in any part, or signed for another
purpose, it reads as a new, empty session. A staff login is a database row: logging out deletes it, so a copy of the
cookie taken before stops working at once."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core import signing

from virtuemap_site.sessions import COOKIE_SALT, SessionStore

pytestmark = pytest.mark.django_db

RESPONDENT = {"validation_respondent": "r-1"}


def _respondent_cookie() -> str:
    session = SessionStore()
    session.update(RESPONDENT)
    session.save()
    return session.session_key


def _other_payload() -> str:
    """The signed part of another respondent's cookie, without its timestamp and signature."""
    signed = signing.dumps({"validation_respondent": "someone-else"}, salt=COOKIE_SALT, compress=True)
    return signed[: signed.index(":")]


@pytest.mark.parametrize(
    "cookie",
    [
        pytest.param(lambda key: key[:-1] + ("A" if key[-1] != "A" else "B"), id="signature changed"),
        pytest.param(lambda key: _other_payload() + key[key.index(":") :], id="contents changed"),
        pytest.param(
            lambda key: signing.dumps(RESPONDENT, salt="another purpose", compress=True),
            id="signed for another purpose",
        ),
    ],
)
def test_a_cookie_that_was_changed_reads_as_a_new_empty_session(cookie):
    forged = SessionStore(cookie(_respondent_cookie()))
    assert dict(forged.items()) == {} and forged.session_key is None


def test_a_staff_login_is_a_database_row_and_logging_out_ends_every_copy_of_its_cookie(client, researcher):
    client.force_login(researcher)
    copied = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert ":" not in copied and Session.objects.filter(session_key=copied).exists()
    assert client.get(f"/{settings.ADMIN_PATH}").status_code == 200

    client.post(f"/{settings.ADMIN_PATH}logout/")
    client.cookies[settings.SESSION_COOKIE_NAME] = copied  # someone kept a copy
    assert client.get(f"/{settings.ADMIN_PATH}").status_code == 302  # to the login page
    assert not Session.objects.filter(session_key=copied).exists()
