"""Redis, as the site's cache, stopped for a few seconds under respondent traffic: no 500, respondents carry on, and no
acknowledged answer is lost.

The cache holds the rate-limit counters, the rotating key that hashes client addresses and the scoring snapshots'
generation numbers; every call to it goes through `virtuemap_site.resilient_cache`, which answers from the web
process's memory while Redis is unreachable. The test starts its own redis-server (a free port of 127.0.0.1, nothing
on disk) as CACHE_URL, serves the test database with gunicorn (2 sync workers, DEBUG off, every rate limit on), drives
API and page respondents, a reader and a scorer from threads, stops Redis, starts it again 4 s later and lets the
traffic run on. PostgreSQL only: gunicorn's workers must see the test's committed rows.
"""

from __future__ import annotations

import time

import pytest

from benchmarks.serving import free_port, gunicorn_start, process_stop, site_environment, wait_until_up
from instruments.virtuemap.services import instrument_load_file
from instruments.virtuemap.validation import validation_open
from surveys.services import consent_text_install_defaults
from tests.outage import Traffic, stored, wait_for

pytestmark = pytest.mark.postgres

OUTAGE_SECONDS = 4
# High enough that one test client (one address) is never refused, low enough to be counted: the limiter's cache
# calls are exactly what used to turn an outage into 500s.
RATE = "100000/minute"


def test_a_redis_cache_outage_gives_no_500_and_loses_no_acknowledged_answer(
    transactional_db, database_url, own_redis, capsys
):
    instrument_load_file()
    consent_text_install_defaults()
    validation_open()
    env = site_environment(
        database_url,
        CACHE_URL=own_redis.url,
        STUDY_ATTENTION_CHECKS="0",
        KEY_MIN_EVALUATIONS="100000",  # the study stays open through the test
        API_ANON_POST_RATE=RATE,
        STUDY_CONSENT_RATE=RATE,
        STUDY_SUBMIT_RATE=RATE,
    )
    port = free_port()
    server = gunicorn_start(env, port=port, workers=2)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/study/")
        traffic = Traffic(base=f"http://127.0.0.1:{port}")
        with traffic.running(traffic.scorer):
            assert wait_for(lambda: traffic.acknowledged() >= 10, timeout=30), "no traffic before the outage"
            own_redis.stop()
            stopped_at, before = time.monotonic(), traffic.acknowledged()
            time.sleep(OUTAGE_SECONDS)
            during = traffic.acknowledged() - before
            own_redis.start()
            restarted = traffic.acknowledged()
            recovered = wait_for(lambda: traffic.acknowledged() >= restarted + 10, timeout=30)
        gunicorn_survived = server.poll() is None
    finally:
        process_stop(server)

    assert traffic.problems == []
    assert 500 not in traffic.statuses and 503 not in traffic.statuses, traffic.statuses
    assert during > 0, "respondents must carry on while the cache is down"
    assert recovered and gunicorn_survived
    assert any(moment > stopped_at for moment in traffic.successes)
    api, pages = stored(database_url, traffic)
    assert len(api) == len(traffic.acknowledged_api) and len(pages) == len(set(traffic.acknowledged_pages))
    with capsys.disabled():
        print(
            f"\ncache outage: {OUTAGE_SECONDS} s without Redis, {during} answers acknowledged meanwhile, "
            f"{traffic.acknowledged()} in all, all stored; statuses {dict(traffic.statuses)}"
        )
