"""The session store (`virtuemap_site.sessions`): a session is read by its key until it expires; a change of key
keeps the data, takes a key nobody held, drops the old row and writes the new one once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone

from virtuemap_site.sessions import SessionStore

pytestmark = pytest.mark.django_db


def _saved(data: dict) -> SessionStore:
    session = SessionStore()
    session.update(data)
    session.save()
    return session


def test_a_change_of_key_keeps_the_data_under_a_new_key_and_drops_the_old_row(django_assert_num_queries):
    old_key = _saved({"validation_respondent": "r-1"}).session_key
    session = SessionStore(old_key)  # as a request finds it

    with django_assert_num_queries(2):  # read the old session, delete it by key
        session.cycle_key()
    with django_assert_num_queries(3):  # the insert, inside a savepoint
        session.save()

    assert session.session_key != old_key and len(session.session_key) == 32
    assert not Session.objects.filter(session_key=old_key).exists()
    assert SessionStore(session.session_key)["validation_respondent"] == "r-1"


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
    assert Session.objects.count() == 1


def test_a_session_is_read_by_its_key_while_it_has_not_expired(django_assert_num_queries):
    first, second = _saved({"validation_respondent": "r-3"}), _saved({"validation_respondent": "r-4"})
    with django_assert_num_queries(1):
        assert SessionStore(second.session_key)["validation_respondent"] == "r-4"
    assert SessionStore(first.session_key)["validation_respondent"] == "r-3"

    Session.objects.filter(session_key=first.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = SessionStore(first.session_key)
    assert dict(expired.items()) == {} and expired.session_key is None  # a new key is drawn if it is saved
    unknown = SessionStore("x" * 32)
    assert dict(unknown.items()) == {} and unknown.session_key is None
