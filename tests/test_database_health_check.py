"""The PostgreSQL backend's health check (virtuemap_site/postgresql): a quiet, idle connection is reused without a
query, and one the server has closed is found unusable before a request uses it."""

from __future__ import annotations

import select
from unittest import mock

import psycopg
import pytest
from django.db import connection, transaction

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the health check of the PostgreSQL backend: DATABASE_URL=postgres://…"
)


@pytest.fixture
def checked_cursors(transactional_db):
    """Every psycopg cursor opened from now on (Django's SELECT 1 opens one), on a connection already open (opening
    one runs statements of its own)."""
    connection.ensure_connection()
    cursor = psycopg.Connection.cursor
    with mock.patch.object(psycopg.Connection, "cursor", autospec=True, side_effect=cursor) as opened:
        yield opened


def test_a_quiet_idle_connection_is_usable_without_a_query(checked_cursors):
    assert connection.is_usable()
    assert checked_cursors.call_count == 0


def test_a_connection_the_server_terminated_is_unusable(transactional_db, database_url):
    connection.ensure_connection()
    socket = connection.connection.fileno()
    with psycopg.connect(database_url, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [connection.connection.info.backend_pid])
    select.select([socket], [], [], 5)  # the server's FATAL message and hang-up arrive

    try:
        assert not connection.is_usable()
    finally:
        connection.close()  # the next query connects again


def test_inside_a_transaction_it_asks_the_server(checked_cursors):
    with transaction.atomic():
        connection.cursor().execute("SELECT 1")
        checked_cursors.reset_mock()

        assert connection.is_usable()
        assert checked_cursors.call_count == 1
