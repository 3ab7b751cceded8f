"""Serving the site for benchmarks and fault tests: a database to serve from, gunicorn, and a throwaway PostgreSQL.

Shared by `benchmarks/api.py`, `benchmarks/load.py`, `benchmarks/dos.py` and the fault tests
(`tests/test_database_outage.py`, `tests/test_cache_outage.py`), so that
each starts gunicorn, waits for it and stops it the same way. Everything listens on 127.0.0.1 only. The benchmarks
that run the site in their own process (`study_pages.py`, `validation.py`, `hot_queries.py`) take its settings from
`in_process_site` and their database from `throwaway_database`.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def site_environment(database_url: str, **overrides: str) -> dict[str, str]:
    """The environment of a production-like site on `database_url`: DEBUG off, persistent connections."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "CONN_MAX_AGE": "60",
        "DEBUG": "false",
        "HTTPS": "false",  # plain http on 127.0.0.1: no redirect to https
        # One load generator is one client address: the per-client limits on consent and answers would answer 429.
        "STUDY_CONSENT_RATE": "off",
        "STUDY_SUBMIT_RATE": "off",
        # The study open to anyone, pages and API, as `make run` has it (production restricts both by default).
        "STUDY_ACCESS": "open",
        "STUDY_API": "open",
        # The access log is off for measurements (gunicorn.conf.py); a caller may set a file instead.
        "GUNICORN_ACCESS_LOG": "off",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "benchmark-only-secret-key-not-for-production"),
        "STUDY_PANEL_HMAC_KEY": os.environ.get("STUDY_PANEL_HMAC_KEY", "benchmark-only-panel-key"),
        "PYTHONPATH": str(ROOT),
        **overrides,
    }


def in_process_site(settings_module: str = "benchmarks.settings", **overrides: str) -> None:
    """Set up Django in this process with `site_environment`'s settings, on DATABASE_URL (SQLite without it)."""
    os.environ.update(
        site_environment(
            os.environ.get("DATABASE_URL", f"sqlite:///{ROOT / 'db.sqlite3'}"),
            DJANGO_SETTINGS_MODULE=settings_module,
            **overrides,
        )
    )
    import django

    django.setup()


@contextmanager
def throwaway_database() -> Iterator[None]:
    """A database `bench_<NAME>` created and migrated next to the configured one, and dropped afterwards; says so
    when it is not PostgreSQL, where the documented figures come from."""
    from django.conf import settings
    from django.db import connection

    if connection.vendor != "postgresql":
        print(f"note: running on {connection.vendor}; the figures in docs/performance.md are from PostgreSQL")
    database = settings.DATABASES["default"]
    database.setdefault("TEST", {})["NAME"] = f"bench_{Path(str(database['NAME'])).stem}"
    original = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)


def server_url(url: str, database: str = "postgres") -> str:
    """The postgres:// ``url`` naming ``database`` instead (by default the server's own ``postgres``), on the same
    server with the same options. The URL is read by its parts, not cut at its last "/": a Unix socket is named in the
    query (``?host=/var/run/postgresql``)."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{database}"))


def database_create(url: str, *, fresh: bool = False) -> None:
    """Create the PostgreSQL database named in `url` if it is missing (dropped first when `fresh`)."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(server_url(url), autocommit=True) as connection:
        if fresh:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            connection.execute(f'CREATE DATABASE "{name}"')


def database_url(settings_dict: dict) -> str:
    """A postgres:// URL for a Django database settings dict (e.g. the test database's): TCP to HOST:PORT
    (127.0.0.1:5432 when neither is set), or the Unix socket's directory when HOST is a path or the settings came from
    a socket URL (``?host=/var/run/postgresql``, which puts the path in OPTIONS), named in the query as libpq reads it.
    """
    from urllib.parse import quote

    password = settings_dict.get("PASSWORD")
    user = quote(settings_dict["USER"]) + (f":{quote(password)}" if password else "")
    host = settings_dict.get("HOST") or settings_dict.get("OPTIONS", {}).get("host") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    if host.startswith("/"):
        return f"postgres://{user}@/{settings_dict['NAME']}?host={quote(host)}&port={port}"
    return f"postgres://{user}@{host}:{port}/{settings_dict['NAME']}"


def database_copy_schema(source_url: str, target_url: str) -> None:
    """Give the empty database `target_url` the tables of the migrated `source_url` and its migration records,
    no other rows: what `migrate` would leave, in a second instead of a minute."""
    dump = ["pg_dump", "--no-owner", "--no-privileges"]
    schema = subprocess.run([*dump, "--schema-only", source_url], check=True, capture_output=True, text=True)
    applied = subprocess.run(
        [*dump, "--data-only", "--table=django_migrations", source_url], check=True, capture_output=True, text=True
    )
    subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", target_url],
        input=schema.stdout + applied.stdout,
        check=True,
        capture_output=True,
        text=True,
    )


def manage(env: dict[str, str], *commands: Sequence[str]) -> None:
    """Run `manage.py` commands in order (e.g. ["migrate", "--noinput"]) with `env`; raise if one fails."""
    for command in commands:
        subprocess.run([PYTHON, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def gunicorn_start(
    env: dict[str, str], *, port: int, workers: int = 2, extra: Sequence[str] = (), log_level: str = "warning"
) -> subprocess.Popen:
    """gunicorn with `workers` sync workers serving the site on 127.0.0.1:`port` (not waited for)."""
    command = [
        PYTHON,
        "-m",
        "gunicorn",
        "-c",
        "gunicorn.conf.py",  # the production configuration: anonymous logs
        "virtuemap_site.wsgi:application",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        log_level,
        *extra,
    ]
    return subprocess.Popen(command, cwd=ROOT, env=env)


def wait_until_up(url: str, *, timeout: float = 30.0, data: bytes | None = None) -> None:
    """Return once `url` answers at all (any status); raise RuntimeError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=5):
                return
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:  # refused, reset or timed out while the workers boot (URLError is an OSError)
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer {url} within {timeout} s")


def process_stop(process: subprocess.Popen, timeout: float = 20.0) -> None:
    """SIGTERM (gunicorn's graceful stop), then SIGKILL if it is still there after `timeout` seconds."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


# --- A PostgreSQL server of our own ----------------------------------------------------------------------------
# Fault tests stop and start PostgreSQL; they must never touch the shared server, so they start their own.


def postgres_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin that has initdb and pg_ctl, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


class TemporaryPostgres:
    """A PostgreSQL server in a temporary directory on a free port of 127.0.0.1, trust authentication.

    `stop()` (a fast shutdown, as an operator's restart) and `start()` may be called any number of times; the
    directory goes when the context ends. PostgreSQL refuses to run as root, so as root it runs as `postgres`.
    """

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="virtuemap-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/virtuemap"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        initdb = str(self.bin_dir / "initdb")
        self._run(initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        pg_ctl = str(self.bin_dir / "pg_ctl")
        self._run(pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def cleanup(self) -> None:
        try:
            if self.running():
                self.stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def temporary_postgres() -> Iterator[TemporaryPostgres]:
    """A started TemporaryPostgres with an empty database `virtuemap` (its `url`); stopped and deleted after."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise FileNotFoundError("no /usr/lib/postgresql/*/bin/initdb")
    server = TemporaryPostgres(bin_dir)
    try:
        server.init()
        database_create(server.url)
        yield server
    finally:
        server.cleanup()
