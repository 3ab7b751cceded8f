"""The rehearsal's session: one site, one pilot, one download of the exports, then one check per test.

Django is set up in this process on the rehearsal's own database (the server's, not a test database), so the checks
read what the people of the pilot left, through the ORM. The suite's pytest-django stays out (pytest.ini).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# The suite's browser set-up (also DJANGO_ALLOW_ASYNC_UNSAFE, which Playwright's event loop needs for ORM calls).
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.rehearsal import pace as pacing
from tests.rehearsal.cast import STUDIES, Kind, Record, cast
from tests.rehearsal.site import PYTHON, ROOT, Site, site_start


def pytest_configure(config: pytest.Config) -> None:
    """Start the site, then set Django up in this process on its database, for the checks to read."""
    pace, size = pacing.pace_from_environment(), pacing.size_from_environment()
    port = int(os.environ.get("REHEARSAL_PORT", "0"))
    started = time.monotonic()
    config.rehearsal_site = site_start(pace=pace, size=size, port=port)
    config.rehearsal_settings = (pace, size, time.monotonic() - started)
    os.environ.update(config.rehearsal_site.environment)
    os.environ["DJANGO_SETTINGS_MODULE"] = "virtuemap_site.settings"
    import django

    django.setup()


def pytest_unconfigure(config: pytest.Config) -> None:
    site = getattr(config, "rehearsal_site", None)
    if site is not None:
        site.stop()
        if os.environ.get("REHEARSAL_KEEP") != "1":
            shutil.rmtree(site.directory, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str:
    pace, size, setup_seconds = config.rehearsal_settings
    site = config.rehearsal_site
    return f"rehearsal: {site.url}, pace {pace.name}, size {size}, set up in {setup_seconds:.0f} s, in {site.directory}"


@pytest.fixture(scope="session")
def site(pytestconfig) -> Site:
    return pytestconfig.rehearsal_site


def open_chinese_validation(site: Site) -> None:
    """What a researcher runs to take the Chinese edition of the validation study (docs/instruments/virtuemap.md)."""
    command = [str(PYTHON), "manage.py", "open_validation", "--language", "zh-hans"]
    subprocess.run(command, cwd=ROOT, env=site.environment, check=True, capture_output=True)


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed (apt-get install chromium; .ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def records(site, browser, pytestconfig) -> list[Record]:
    """Run the pilot: first the panel participant sent to the Chinese validation study as a fresh install leaves it
    (closed), then the researcher opens it, then everyone else, in a shuffled order."""
    from tests.rehearsal.journeys import Pilot, journey_run

    pace, size, _ = pytestconfig.rehearsal_settings
    rng = random.Random(int(os.environ.get("REHEARSAL_SEED", "35")))
    pilot = Pilot(browser, site.url, pace, rng)
    journeys = cast(size)
    first = [journey for journey in journeys if journey.kind == Kind.CLOSED]
    rest = [journey for journey in journeys if journey.kind != Kind.CLOSED]
    rng.shuffle(rest)
    started = time.monotonic()
    done = [journey_run(pilot, journey) for journey in first]
    open_chinese_validation(site)
    done += [journey_run(pilot, journey) for journey in rest]
    pytestconfig.rehearsal_summary = pilot_summary(done, time.monotonic() - started, pace.name)
    return done


def pilot_summary(records: list[Record], seconds: float, pace: str) -> list[str]:
    lines = [
        f"pilot: {len(records)} journeys, {sum(len(r.shown) for r in records)} answers in {seconds:.0f} s ({pace})"
    ]
    for study in STUDIES:
        mine = [record for record in records if record.journey.study == study]
        answers = sum(len(record.shown) for record in mine)
        spent = sum(record.seconds for record in mine)
        lines.append(f"  {study}: {len(mine)} journeys, {answers} answers, {spent:.0f} s")
    return lines


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    for line in getattr(config, "rehearsal_summary", []):
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def exports(site, browser, records) -> dict[str, list[dict[str, str]]]:
    """Every CSV export of admin, downloaded as a researcher does after signing in: export name → rows."""
    from tests.rehearsal.audit import admin_exports

    return admin_exports(browser, site)
