"""The Celery broker's transport: kombu's Redis transport, with a channel that closes even when Redis is gone.

Why: a worker that lost Redis while it ran a task and listened for the next one (a BRPOP in flight) exited with
"Unrecoverable error" once its task ended, and never reconnected. On a lost connection Celery (5.7) first collects
the connection, which closes its channels and then forgets the broker's address, and then closes it again. kombu's
Redis channel begins its close by reading the reply of the pending BRPOP; with Redis gone that read raises, so the
channel stays open, and the transport stops closing the other channels at the first that raises. The second close
then finds the task's channel still open, tries to hand its unacknowledged message back to Redis, and needs the
address it no longer has (an AttributeError, which Celery does not take for a connection error).

Here the pending BRPOP's reply is given up when Redis cannot be read, so the channel closes in the first pass, while
the address is still known. Its unacknowledged message cannot be handed back then (Redis is down); it stays in
Redis's unacknowledged set (when Redis kept its data) until the task acknowledges it on the new connection, or Redis
redelivers it after the visibility timeout: tasks here are idempotent, so a redelivery does no harm.
`tests/test_broker.py` closes a channel that way; `tests/test_broker_outage.py` stops Redis under `make serve`.
"""

from __future__ import annotations

from queue import Empty

from kombu.transport import redis


class Channel(redis.Channel):
    def close(self) -> None:
        if self._in_poll:
            try:
                self._brpop_read()
            except Empty:
                pass
            except self.connection_errors:
                pass  # Redis is gone: there is no reply to wait for, and nothing left to read it from.
        super().close()


class Transport(redis.Transport):
    Channel = Channel
