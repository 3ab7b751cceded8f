"""The database URLs the benchmarks and the process-starting tests build: another database on the same server."""

from __future__ import annotations

from benchmarks.serving import server_url


def test_another_database_on_the_same_server_keeps_the_host_the_port_and_the_user():
    url = "postgres://postgres:secret@127.0.0.1:5432/virtuemap_bench_load"
    assert server_url(url) == "postgres://postgres:secret@127.0.0.1:5432/postgres"
    assert server_url(url, "restore_1") == "postgres://postgres:secret@127.0.0.1:5432/restore_1"


def test_a_unix_socket_named_in_the_query_is_kept_whole():
    # The socket's path holds slashes: cutting the URL at its last "/" took "postgresql" for the database.
    url = "postgres://postgres@/virtuemap_bench_load?host=/var/run/postgresql"
    assert server_url(url) == "postgres://postgres@/postgres?host=/var/run/postgresql"
