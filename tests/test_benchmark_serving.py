"""The database URLs the benchmarks and the process-starting tests build: another database on the same server."""

from __future__ import annotations

from benchmarks.serving import database_url, server_url


def test_another_database_on_the_same_server_keeps_the_host_the_port_and_the_user():
    url = "postgres://postgres:secret@127.0.0.1:5432/virtuemap_bench_load"
    assert server_url(url) == "postgres://postgres:secret@127.0.0.1:5432/postgres"
    assert server_url(url, "restore_1") == "postgres://postgres:secret@127.0.0.1:5432/restore_1"


def test_a_unix_socket_named_in_the_query_is_kept_whole():
    # The socket's path holds slashes: cutting the URL at its last "/" took "postgresql" for the database.
    url = "postgres://postgres@/virtuemap_bench_load?host=/var/run/postgresql"
    assert server_url(url) == "postgres://postgres@/postgres?host=/var/run/postgresql"


def test_a_tcp_database_s_settings_give_its_host_and_port():
    settings = {"NAME": "test", "USER": "postgres", "PASSWORD": "a b", "HOST": "", "PORT": ""}
    assert database_url(settings) == "postgres://postgres:a%20b@127.0.0.1:5432/test"


def test_a_socket_database_s_settings_keep_the_socket():
    # What DATABASE_URL=postgres://postgres@/test?host=/var/run/postgresql gives Django: the path in OPTIONS, no HOST.
    settings = {"NAME": "test", "USER": "postgres", "HOST": "", "PORT": "", "OPTIONS": {"host": "/var/run/postgresql"}}
    url = database_url(settings)
    assert url == "postgres://postgres@/test?host=/var/run/postgresql&port=5432"
    assert server_url(url) == "postgres://postgres@/postgres?host=/var/run/postgresql&port=5432"
