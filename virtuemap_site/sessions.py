"""Django's database session, read by a query compiled once, with a change of key that costs three statements
instead of six.

Every request that carries a session reads it: the query is a `PreparedQuery` (virtuemap_site/prepared_queries.py),
so it is built and compiled once per process rather than on each request.

A respondent's session gets a new key when they consent or resume with a participant reference (against session
fixation: a key planted before consent never holds a respondent). Django's ``cycle_key`` on the database backend
creates the new row at once — a read to check the random key is free, an insert — then reads and deletes the old
row, and the end of the request updates the new row again: six statements on the busiest page of a panel launch.

Here the new key is drawn without the existence check (32 characters from 36: a collision has odds of 1 in 10^49,
and the insert would refuse it rather than share a session), the old row is deleted by key in one statement, and
the end-of-request save inserts the new row once. Set with ``SESSION_ENGINE = "virtuemap_site.sessions"``.
"""

from __future__ import annotations

from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone
from django.utils.crypto import get_random_string

from virtuemap_site.prepared_queries import PreparedQuery

_CURRENT_SESSION = PreparedQuery(
    lambda key, now: Session.objects.filter(session_key=key, expire_date__gt=now),
    key=Session._meta.get_field("session_key"),
    now=Session._meta.get_field("expire_date"),
)


class SessionStore(DatabaseSessionStore):
    _insert_on_save = False

    def _get_session_from_db(self) -> Session | None:
        # As Django's: the unexpired session with this key, else None and no key (a new one is drawn on save).
        found = _CURRENT_SESSION.run(key=self.session_key, now=timezone.now())
        if not found:
            self._session_key = None
            return None
        return found[0]

    def cycle_key(self) -> None:
        data = self._session  # the old session's contents (read once, as Django does)
        old_key = self.session_key
        self._session_key = get_random_string(32, VALID_KEY_CHARS)
        self._session_cache = data
        self.modified = True
        self._insert_on_save = True
        if old_key:
            self.model.objects.filter(session_key=old_key).delete()

    def save(self, must_create: bool = False) -> None:
        # The first save after a change of key inserts the row (an update would find none to change).
        must_create = must_create or self._insert_on_save
        super().save(must_create=must_create)
        self._insert_on_save = False
