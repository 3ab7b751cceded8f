"""PostgreSQL stopped for a few seconds under respondent traffic: a friendly 503, recovery without a restart, and no
acknowledged answer lost.

The test starts its own PostgreSQL (initdb into a temporary directory, a free port of 127.0.0.1), serves the site
from it with gunicorn (2 sync workers, persistent connections with health checks, DEBUG off), drives respondents
through the study pages and the JSON API from threads, stops PostgreSQL (`pg_ctl stop -m fast`), starts it again
4 s later and lets the traffic run on. The shared server on 5432 is never touched.
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest
from django.db import connection

from benchmarks.serving import (
    PYTHON,
    ROOT,
    database_copy_schema,
    database_url,
    free_port,
    gunicorn_start,
    manage,
    postgres_bin_dir,
    process_stop,
    site_environment,
    temporary_postgres,
    wait_until_up,
)
from tests.outage import Traffic, stored, wait_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="runs in the PostgreSQL pass (it starts its own server; once per CI run is enough): "
        "DATABASE_URL=postgres://…",
    ),
    pytest.mark.skipif(postgres_bin_dir() is None, reason="needs PostgreSQL's initdb (/usr/lib/postgresql/*/bin)"),
    pytest.mark.skipif(
        shutil.which("runuser") is None, reason="needs runuser to run PostgreSQL as 'postgres' when root"
    ),
]

OUTAGE_SECONDS = 4


def test_a_postgres_outage_gives_friendly_503s_recovers_by_itself_and_loses_no_acknowledged_answer(transactional_db):
    with temporary_postgres() as postgres:
        env = site_environment(
            postgres.url,
            STUDY_ATTENTION_CHECKS="0",
            KEY_MIN_EVALUATIONS="100000",  # the study stays open through the test
            API_ANON_POST_RATE="100000/minute",  # one test client is one address
        )
        # The migrated test database's tables, instead of a minute of `migrate`.
        database_copy_schema(database_url(connection.settings_dict), postgres.url)
        manage(env, ["load_instrument"], ["open_validation"])
        port = free_port()
        server = gunicorn_start(env, port=port, workers=2)
        try:
            wait_until_up(f"http://127.0.0.1:{port}/study/")
            traffic = Traffic(base=f"http://127.0.0.1:{port}")
            with traffic.running():
                assert wait_for(lambda: traffic.acknowledged() >= 10, timeout=30), "no traffic before the outage"
                postgres.stop()
                time.sleep(OUTAGE_SECONDS)
                postgres.start()
                restarted_at, before = time.monotonic(), traffic.acknowledged()
                recovered = wait_for(lambda: traffic.acknowledged() >= before + 10, timeout=30)
            gunicorn_survived = server.poll() is None
        finally:
            process_stop(server)

        assert traffic.problems == []
        assert traffic.unavailable["page"] > 0 and traffic.unavailable["api"] > 0, traffic.unavailable
        assert 500 not in traffic.statuses
        assert recovered and gunicorn_survived, "the site must recover by itself, without a restart"
        assert any(moment > restarted_at for moment in traffic.successes)
        api, pages = stored(postgres.url, traffic)
        assert len(api) == len(traffic.acknowledged_api) and len(pages) == len(set(traffic.acknowledged_pages))
        recount = subprocess.run(
            [PYTHON, "manage.py", "verify_key_counts"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert recount.returncode == 0, recount.stdout + recount.stderr
