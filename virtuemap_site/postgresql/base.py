"""Django's PostgreSQL backend (psycopg 3), with a connection health check that costs no round trip while the
connection is quiet.

With persistent connections and ``CONN_HEALTH_CHECKS``, Django checks a reused connection at the start of each
request by sending ``SELECT 1``: a round trip, and a statement for PostgreSQL to parse and run, on every request.
But a server that goes away from an idle connection says so on the socket: a restart or ``pg_terminate_backend``
sends the client a FATAL message and closes the connection, so the socket becomes readable. Here a quiet socket
(nothing to read, no hang-up), on a connection that psycopg does not know to be closed or broken and that is idle
outside a transaction, counts as usable without a query; anything else gets Django's own ``SELECT 1``, which reads
whatever arrived and settles it. A connection lost silently (a network cut, no message) is not seen until it is
used, as with no health check: that request fails with the friendly 503, and the next one reconnects.

Set by `settings.py` in place of ``django.db.backends.postgresql``; everything else is Django's.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None:
            return False
        if _quiet_and_idle(self.connection):
            return True
        return super().is_usable()


def _quiet_and_idle(connection) -> bool:
    """True when psycopg holds ``connection`` open, outside a transaction, and its socket has nothing to read."""
    if connection.closed or connection.broken:
        return False
    if connection.info.transaction_status != pq.TransactionStatus.IDLE:
        return False
    poller = select.poll()
    poller.register(connection.fileno(), select.POLLIN)
    return not poller.poll(0)  # any event (data, hang-up, error) means the server said something
