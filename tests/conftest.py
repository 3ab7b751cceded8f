"""Shared fixtures: the loaded instrument and the cast — a consenting respondent, a researcher, an outsider."""

from __future__ import annotations

import os
from pathlib import Path

import hypothesis
import pytest
from django.conf import settings
from django.db import connection

from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.services import instrument_load_file
from surveys.services import consent_text_install_defaults, respondent_consent

# Tests marked `database_independent` check what the database does not change: the browser suite and scoring's pure
# math (every test under these directories) and the embedded model's runs (marked in their modules). CI runs them on
# its embedded-defaults pass, and its PostgreSQL pass skips them to stay within its time budget.
# ALL_TESTS_ON_POSTGRESQL=1 runs them there too.
DATABASE_INDEPENDENT_DIRECTORIES = tuple(Path(__file__).resolve().parent / name for name in ("browser", "scoring"))
RUN_EVERYTHING_ON_POSTGRESQL = os.environ.get("ALL_TESTS_ON_POSTGRESQL", "") == "1"

# No time limit on a property test's example: CI runs its two passes side by side on two cores, and an example slowed
# past Hypothesis's 200 ms by the other pass would fail the test ("Flaky") with nothing wrong in the code under test.
hypothesis.settings.register_profile("virtuemap", deadline=None)
hypothesis.settings.load_profile("virtuemap")


def pytest_collection_modifyitems(config, items):
    on_postgresql = connection.vendor == "postgresql"
    skip = pytest.mark.skip(reason="runs on the embedded-defaults pass (ALL_TESTS_ON_POSTGRESQL=1 to run it here)")
    for item in items:
        if any(directory in Path(item.fspath).parents for directory in DATABASE_INDEPENDENT_DIRECTORIES):
            item.add_marker(pytest.mark.database_independent)
        if on_postgresql and not RUN_EVERYTHING_ON_POSTGRESQL and item.get_closest_marker("database_independent"):
            item.add_marker(skip)


@pytest.fixture
def instrument(db):
    """The VirtueMap instrument with its published key, as `load_instrument` leaves it."""
    return instrument_load_file()


@pytest.fixture
def transitivity_instrument(db):
    """The transitivity instrument (principles, blocks, vignettes, prompt), as `load_transitivity` leaves it."""
    from instruments.transitivity.services import transitivity_instrument_load_file

    return transitivity_instrument_load_file()


@pytest.fixture
def moralbench(db):
    """MoralBench's four item sets and system prompt, as `load_moralbench` leaves them."""
    from instruments.moralbench.services import moralbench_load_file

    return moralbench_load_file()


@pytest.fixture
def amaeval_instrument(db):
    """The AMAeval dataset, as `load_amaeval` leaves it."""
    from instruments.amaeval.services import amaeval_instrument_load_file

    return amaeval_instrument_load_file()


@pytest.fixture
def consent_texts(db):
    """Version 1 of each study's consent text, current."""
    return consent_text_install_defaults()


@pytest.fixture
def respondent(consent_texts):
    """A validation-study respondent who consented to the current text, arriving without a panel."""
    return respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent


@pytest.fixture
def researcher(django_user_model):
    """A staff superuser who reviews keys in admin."""
    return django_user_model.objects.create_superuser("researcher", password="correct horse battery staple")


@pytest.fixture
def outsider(django_user_model):
    """A logged-in user with no staff rights."""
    return django_user_model.objects.create_user("outsider", password="correct horse battery staple")


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language: a request in Chinese leaves Chinese active in its thread."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with empty throttle counters and scoring snapshots (both outlive a test otherwise)."""
    from django.core.cache import cache

    from virtuemap_site.snapshots import CachedSnapshot

    cache.clear()
    CachedSnapshot.forget_all_in_this_process()
    yield
    cache.clear()
    CachedSnapshot.forget_all_in_this_process()


@pytest.fixture(autouse=True)
def _rate_limit_clock(monkeypatch):
    """The rate limits count in fixed windows of the wall clock (`abuse.rate_limit_wait`), and their key turns once
    a day: a test that sends one request over a limit would see the count start again if a minute, an hour or a day
    turned between its requests. For the tests, the limiter's clock stands in the middle of all three (12:30:30 UTC)."""
    from types import SimpleNamespace

    from virtuemap_site import abuse

    midday = 20_000 * 86_400 + 12 * 3_600 + 30 * 60 + 30
    monkeypatch.setattr(abuse, "time", SimpleNamespace(time=lambda: midday))


@pytest.fixture(autouse=True)
def _page_fragments_kept(settings):
    """Pages render as in production, their fixed parts kept per process (`CACHES["fragments"]`, which keeps nothing
    under DEBUG, as `make run` has it), and each test starts with none kept. Apart from `_empty_cache`, which must
    not take the `settings` fixture: a test's own cache settings are undone before `_empty_cache` clears the cache."""
    from django.core.cache import caches

    settings.CACHES = {
        **settings.CACHES,
        "fragments": {**settings.CACHES["fragments"], "BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    }
    caches["fragments"].clear()


@pytest.fixture
def published_models(instrument):
    """The three-model sample of the original VirtueMap run-suite (GPT, Claude, Gemini), published."""
    from instruments.virtuemap.records import reference_profiles_publish

    return reference_profiles_publish(path=Path(__file__).resolve().parent / "data" / "reference_runs_sample.jsonl")


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def database_url(settings):
    """The URL of the test database, for processes a test starts (they must see what the test committed)."""
    from benchmarks.serving import database_url as url_of

    database = settings.DATABASES["default"]
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): other processes share the test database")
    return url_of({**database, "USER": database.get("USER") or "postgres"})


@pytest.fixture
def free_port():
    """A function returning a TCP port on 127.0.0.1 that nothing listens on right now."""
    from benchmarks.serving import free_port as pick

    return pick


@pytest.fixture
def fake_provider():
    """A scripted OpenAI-compatible server on 127.0.0.1 (`llmruns.testing.FakeProvider`)."""
    from llmruns.testing import FakeProvider

    with FakeProvider() as provider:
        yield provider


@pytest.fixture
def fake_model(db, fake_provider):
    """A model pointing at `fake_provider`: no rate limit, four requests in flight."""
    from llmruns.models import LLMModel

    return LLMModel.objects.create(
        slug="fake/model",
        name="Fake",
        provider=LLMModel.Provider.OPENAI_COMPATIBLE,
        base_url=fake_provider.base_url,
        model_id="fake-model",
        requests_per_minute=0,
        concurrency=4,
    )


@pytest.fixture
def own_redis(free_port, tmp_path):
    """A redis-server of the test's own on a free port (`tests.outage.OwnRedis`), stopped after the test."""
    import shutil

    from tests.outage import OwnRedis

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH to start a Redis of its own")
    server = OwnRedis(free_port(), tmp_path)
    server.start()
    yield server
    server.stop()


class Clock:
    """`django.utils.timezone.now` moved by the test: people take seconds to read an item and arrive over hours."""

    def __init__(self) -> None:
        from datetime import UTC, datetime

        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The site's clock under the test's control (`Clock`); starts on a Monday morning and moves only when told."""
    from django.utils import timezone

    clock = Clock()
    monkeypatch.setattr(timezone, "now", clock)
    return clock


@pytest.fixture
def pairwise_respondent(transitivity_instrument, consent_texts, settings, clock):
    """`pairwise_respondent(situations, times_ms=None)`: a new respondent of the pairwise questionnaire (block 3, each
    pair once per order) answers its first choices with the situations given ("1" or "2"), taking ``times_ms`` by the
    page's clock (and as long by the site's, which `clock` moves on)."""
    from instruments.transitivity.plugin import STUDY
    from surveys.questionnaire import questionnaire_answer_submit, questionnaire_session_start

    settings.TRANSITIVITY_REPETITIONS = 1

    def answer(situations: list[str], times_ms: list[int] | None = None):
        respondent = respondent_consent(study=STUDY, consent_version="1", accept=True).respondent
        session = questionnaire_session_start(respondent=respondent, options={"block": 3})
        times = times_ms or [1000] * len(situations)
        for position, (situation, time_ms) in enumerate(zip(situations, times, strict=True), start=1):
            clock.advance(time_ms / 1000 + 0.5)
            questionnaire_answer_submit(
                session=session, position=position, data={"situation": situation}, time_on_item_ms=time_ms
            )
        return respondent

    return answer


@pytest.fixture
def any_number_of_people(settings, monkeypatch):
    """Public aggregates of people from one respondent on, counting consents sent through the test client (which
    carry no display time, so look automated): for tests of what an aggregate shows, not of when it is shown
    (tests/surveys/test_public_aggregates.py)."""
    from django.db.models import Q

    settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS = 1
    monkeypatch.setattr("surveys.selectors.PUBLIC_RESPONDENT", Q(flagged=False))
