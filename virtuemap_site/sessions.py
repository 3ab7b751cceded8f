"""The session store: a respondent's session in a signed cookie, every other session in the database.

A respondent's session holds only which respondent this browser is, one key per study
(`surveys.web.respondent_session_key`, each ending in `RESPONDENT_KEY_SUFFIX`). A copy of such a cookie gives nothing
its owner does not already have, and it ends as the database row did: when it expires, or when the respondent
withdraws (the respondent is gone, so the reference leads nowhere). Kept in a cookie signed with SECRET_KEY, it costs
no statement on the item pages of a panel launch, where the database read of the session was one statement in four,
and leaves no row behind.

Everything else stays in the database, because there it can be ended: a staff login (logging out deletes the row, so
a copied cookie stops working at once, where a signed one would stay valid until it expired) and the consent form's
one-use nonce (a signed cookie could be sent again to use the nonce twice, `surveys.forms.form_time_read`). A session
holding anything but respondent keys is a database session; when it comes to hold only respondent keys (the consent
used its nonce up), it moves into the cookie and its row is deleted.

A database session is read by a query compiled once (`virtuemap_site/prepared_queries.py`). A change of key (at
consent, or a resume with a participant reference: against session fixation, a key planted before never holds a
respondent) costs at most one statement: the old row is deleted by key. Django's own ``cycle_key`` checks that the new
random key is free, inserts it at once, then reads and deletes the old row, and the end of the request updates the new
row again. Here the key is drawn without the check (32 characters from 36: a collision has odds of 1 in 10^49, and
the insert would refuse it rather than share a session), and the end-of-request save writes the session once, to the
cookie or as one insert. Set with ``SESSION_ENGINE = "virtuemap_site.sessions"``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.core import signing
from django.utils import timezone
from django.utils.crypto import get_random_string

from virtuemap_site.prepared_queries import PreparedQuery

RESPONDENT_KEY_SUFFIX = "_respondent"
COOKIE_SALT = "virtuemap_site.sessions.respondent"

_CURRENT_SESSION = PreparedQuery(
    lambda key, now: Session.objects.filter(session_key=key, expire_date__gt=now),
    key=Session._meta.get_field("session_key"),
    now=Session._meta.get_field("expire_date"),
)


def _in_cookie(key: str | None) -> bool:
    """A cookie session's key is its signed contents (``payload:timestamp:signature``); a database one is 32 letters
    and digits, never a colon."""
    return bool(key) and ":" in key


class SessionStore(DatabaseSessionStore):
    _insert_on_save = False

    def load(self) -> dict[str, Any]:
        if not _in_cookie(self.session_key):
            return super().load()
        try:
            return signing.loads(
                self.session_key, salt=COOKIE_SALT, serializer=self.serializer, max_age=self.get_session_cookie_age()
            )
        except (signing.BadSignature, ValueError):  # tampered with, expired, or not ours: a new, empty session
            self._session_key = None
            return {}

    def _get_session_from_db(self) -> Session | None:
        # As Django's: the unexpired session with this key, else None and no key (a new one is drawn on save).
        found = _CURRENT_SESSION.run(key=self.session_key, now=timezone.now())
        if not found:
            self._session_key = None
            return None
        return found[0]

    def exists(self, session_key: str | None) -> bool:
        return not _in_cookie(session_key) and super().exists(session_key)

    def cycle_key(self) -> None:
        data = self._session  # the old session's contents (read once, as Django does)
        old_key = self.session_key
        self._session_key = get_random_string(32, VALID_KEY_CHARS)
        self._session_cache = data
        self.modified = True
        self._insert_on_save = True
        if old_key:
            self.delete(old_key)

    def save(self, must_create: bool = False) -> None:
        data = self._get_session(no_load=must_create)
        if data and all(key.endswith(RESPONDENT_KEY_SUFFIX) for key in data):
            self._save_in_cookie(data)
            return
        if _in_cookie(self.session_key):  # it came to hold more than respondents: a database row of its own
            self._session_key = None
            must_create = True
        # The first save after a change of key inserts the row (an update would find none to change).
        must_create = must_create or self._insert_on_save
        super().save(must_create=must_create)
        self._insert_on_save = False

    def _save_in_cookie(self, data: dict[str, Any]) -> None:
        if self.session_key and not _in_cookie(self.session_key) and not self._insert_on_save:
            self.delete()  # it was a database session (a consent's nonce, now used up): its row goes
        self._session_key = signing.dumps(data, salt=COOKIE_SALT, serializer=self.serializer, compress=True)
        self._insert_on_save = False

    def delete(self, session_key: str | None = None) -> None:
        """Delete a database session's row by key, in one statement (Django's reads the row first, then deletes it);
        a cookie session has no row: it ends when the browser drops the cookie."""
        key = session_key or self.session_key
        if key and not _in_cookie(key):
            self.model.objects.filter(session_key=key).delete()
