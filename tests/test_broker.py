"""The broker's transport (virtuemap_site/broker.py): a connection that loses Redis while a task's message is
unacknowledged and a BRPOP is in flight closes the way a Celery worker closes it (collect, then close) without an
error, and the message is acknowledged on the next connection. Starts a redis-server of its own."""

from __future__ import annotations

import contextlib

import pytest
from kombu import Connection, Exchange, Queue

from virtuemap_site.celery import app

TRANSPORT = "virtuemap_site.broker:Transport"


def _lose_redis_with_a_task_in_flight(redis, transport: str | None) -> tuple[Connection, list]:
    """A connection as a busy worker has it: the task queue's message taken and unacknowledged, the next BRPOP sent,
    and a fanout channel (gossip, remote control) beside it; then Redis stops."""
    connection = Connection(redis.url, transport=transport)
    channel = connection.default_channel
    tasks = Queue("tasks", Exchange("tasks"), "tasks")
    connection.Producer().publish({"run": 7}, exchange=tasks.exchange, routing_key="tasks", declare=[tasks])
    received: list = []
    connection.Consumer([tasks], channel=channel, callbacks=[lambda body, message: received.append(message)]).consume()
    connection.drain_events(timeout=5)
    fanout = connection.channel()
    broadcast = Queue("broadcast", Exchange("broadcast", type="fanout"), auto_delete=True)
    connection.Consumer([broadcast], channel=fanout, callbacks=[lambda body, message: None]).consume()
    assert fanout.client is not None  # a channel in use keeps its client
    channel._brpop_start()
    redis.stop()
    return connection, received


def _close_as_a_worker_does(connection: Connection) -> None:
    # celery.worker.consumer.Consumer.on_connection_error_after_connected
    with contextlib.suppress(Exception):
        connection.collect(socket_timeout=2.0)
    connection.close()


def test_the_worker_transport_is_this_one(settings):
    if not settings.REDIS_URL:
        pytest.skip("the broker's transport is chosen only with REDIS_URL")
    assert app.conf.broker_transport == TRANSPORT
    assert type(app.connection_for_write().transport).__module__ == "virtuemap_site.broker"


def test_kombus_own_redis_channel_fails_to_close_after_losing_redis_with_a_task_in_flight(own_redis):
    connection, _received = _lose_redis_with_a_task_in_flight(own_redis, transport=None)
    with pytest.raises(AttributeError):
        _close_as_a_worker_does(connection)


def test_a_connection_that_lost_redis_with_a_task_in_flight_closes_and_the_task_is_acknowledged_later(own_redis):
    connection, [message] = _lose_redis_with_a_task_in_flight(own_redis, transport=TRANSPORT)
    _close_as_a_worker_does(connection)
    own_redis.start()
    message.ack()
    assert message.acknowledged
    assert own_redis.client.hlen("unacked") == 0
