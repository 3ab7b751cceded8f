"""The session store (`virtuemap_site.sessions`).

A session holding only respondents lives in its signed cookie: reading it costs no statement and leaves no row, and a
cookie that was changed or has expired reads as a new, empty session. Every other session (a staff login, the
consent form's one-use nonce) is a database row, read by its key until it expires and ended by deleting it. A change of
key keeps the data, takes a key nobody held, drops the old row and writes the new session once."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

from surveys.forms import FORM_NONCE_SESSION_KEY
from virtuemap_site.sessions import SessionStore

pytestmark = pytest.mark.django_db

RESPONDENT = {"validation_respondent": "r-1"}


def _saved(data: dict) -> SessionStore:
    session = SessionStore()
    session.update(data)
    session.save()
    return session


def test_a_respondent_s_session_is_its_signed_cookie_read_without_a_statement(django_assert_num_queries):
    with django_assert_num_queries(0):
        key = _saved({**RESPONDENT, "profiling_respondent": "r-2"}).session_key
        assert SessionStore(key)["validation_respondent"] == "r-1"
    assert not Session.objects.exists()
    assert dict(SessionStore(key).items()) == {**RESPONDENT, "profiling_respondent": "r-2"}


def test_a_respondent_s_cookie_expires_as_the_database_row_did(monkeypatch):
    key = _saved(RESPONDENT).session_key
    signed_at = time.time()
    monkeypatch.setattr(time, "time", lambda: signed_at + settings.SESSION_COOKIE_AGE - 60)  # the signature's clock
    assert SessionStore(key)["validation_respondent"] == "r-1"
    monkeypatch.setattr(time, "time", lambda: signed_at + settings.SESSION_COOKIE_AGE + 60)
    expired = SessionStore(key)
    assert dict(expired.items()) == {} and expired.session_key is None


def test_consent_moves_the_session_from_its_row_into_the_cookie(django_assert_num_queries):
    """The consent page's nonce is kept in a row (used once, it cannot be sent again); once consent used it up and
    the key changed, the session holds only the respondent and the row is gone."""
    old_key = _saved({FORM_NONCE_SESSION_KEY: "nonce"}).session_key
    session = SessionStore(old_key)  # as the consent's request finds it

    with django_assert_num_queries(2):  # read the old session, delete it by key
        session.pop(FORM_NONCE_SESSION_KEY)
        session.cycle_key()
    session.update(RESPONDENT)
    with django_assert_num_queries(0):
        session.save()

    assert ":" in session.session_key and not Session.objects.exists()
    assert dict(SessionStore(session.session_key).items()) == RESPONDENT


def test_a_session_used_up_without_a_change_of_key_leaves_its_row_for_the_cookie(django_assert_num_queries):
    session = SessionStore(_saved({FORM_NONCE_SESSION_KEY: "nonce", **RESPONDENT}).session_key)
    session.pop(FORM_NONCE_SESSION_KEY)
    with django_assert_num_queries(1):  # the row deleted by key
        session.save()
    assert ":" in session.session_key and not Session.objects.exists()


def test_a_respondent_s_session_that_comes_to_hold_more_becomes_a_row_under_a_new_key():
    session = SessionStore(_saved(RESPONDENT).session_key)
    session[FORM_NONCE_SESSION_KEY] = "nonce"
    session.save()

    assert ":" not in session.session_key and len(session.session_key) == 32
    assert dict(SessionStore(session.session_key).items()) == {**RESPONDENT, FORM_NONCE_SESSION_KEY: "nonce"}


def test_a_change_of_key_keeps_the_data_under_a_new_key_and_drops_the_old_row(django_assert_num_queries):
    old_key = _saved({FORM_NONCE_SESSION_KEY: "nonce"}).session_key
    session = SessionStore(old_key)

    with django_assert_num_queries(2):  # read the old session, delete it by key
        session.cycle_key()
    with django_assert_num_queries(3):  # the insert, inside a savepoint
        session.save()

    assert session.session_key != old_key and len(session.session_key) == 32
    assert not Session.objects.filter(session_key=old_key).exists()
    assert SessionStore(session.session_key)[FORM_NONCE_SESSION_KEY] == "nonce"


def test_a_session_saved_again_after_its_change_of_key_is_updated_not_inserted_twice():
    session = _saved({"a": 1})
    session.cycle_key()
    session.save()
    session["b"] = 2
    session.save()

    assert Session.objects.count() == 1
    assert dict(SessionStore(session.session_key).items()) == {"a": 1, "b": 2}


def test_a_browser_without_a_session_gets_one_at_the_change_of_key():
    session = SessionStore()
    session.cycle_key()
    session["validation_respondent"] = "r-2"
    session.save()

    assert SessionStore(session.session_key)["validation_respondent"] == "r-2"
    assert not Session.objects.exists()


def test_a_database_session_is_read_by_its_key_while_it_has_not_expired(django_assert_num_queries):
    first, second = _saved({"a": "r-3"}), _saved({"a": "r-4"})
    with django_assert_num_queries(1):
        assert SessionStore(second.session_key)["a"] == "r-4"
    assert SessionStore(first.session_key)["a"] == "r-3"

    Session.objects.filter(session_key=first.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = SessionStore(first.session_key)
    assert dict(expired.items()) == {} and expired.session_key is None  # a new key is drawn if it is saved
    unknown = SessionStore("x" * 32)
    assert dict(unknown.items()) == {} and unknown.session_key is None


def test_ending_a_database_session_deletes_its_row_by_key(django_assert_num_queries):
    """As logging out does (`flush`): one statement (Django's own reads the row, then deletes it), and the store starts
    afresh."""
    session = SessionStore(_saved({"_auth_user_id": "1"}).session_key)
    with django_assert_num_queries(1):  # its row deleted by key, without reading it first
        session.flush()
    assert session.session_key is None and not Session.objects.exists()
