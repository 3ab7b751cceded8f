"""Changing a test client's session as a response would."""

from __future__ import annotations

from django.conf import settings
from django.test import Client


def saved(client: Client, session) -> None:
    """Save ``session`` (from ``client.session``) and give ``client`` its cookie again.

    The cookie's value can change with the save: a respondent's session is the signed cookie itself, and a session
    that comes to hold more moves to a database row under a new key (`virtuemap_site.sessions`)."""
    session.save()
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
