from __future__ import annotations

import logging
import os
import subprocess

import pytest
from django.db import connection
from django.test import Client, RequestFactory

from instruments.virtuemap.models import Dilemma, ProfilingSubmission, ValidationResponse
from instruments.virtuemap.services import instrument_load_file
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults
from virtuemap_site.errors import AnonymousExceptionReporterFilter


def test_error_reports_leave_out_client_addresses_and_user_agents():
    request = RequestFactory().get("/", HTTP_USER_AGENT="Firefox", REMOTE_ADDR="203.0.113.9")
    meta = AnonymousExceptionReporterFilter().get_safe_request_meta(request)
    assert "REMOTE_ADDR" not in meta and "HTTP_USER_AGENT" not in meta
    assert meta["REQUEST_METHOD"] == "GET"


# --- After a whole journey: nothing identifying in the database or the logs -----------------------------------
# One person with a known panel ID, user agent and client address goes through everything a respondent can do;
# then a dump of the whole database (pg_dump on PostgreSQL, iterdump on SQLite; session data decoded) and every log
# record (all loggers at DEBUG, SQL with its parameters included) are searched for each of the three.

PANEL_ID = "PANELPROBE123456"
USER_AGENT = "VirtueMapProbe/9.9 UniqueAgent"
CLIENT_ADDRESS = "10.45.67.89"
PROBES = (PANEL_ID, USER_AGENT, "VirtueMapProbe", "UniqueAgent", CLIENT_ADDRESS)


class Capture(logging.Handler):
    """Every record as the site's console handler writes it: its formatter and its filters, any traceback."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        console = next(handler for handler in logging.getLogger().handlers if handler.name == "console")
        self.setFormatter(console.formatter)
        self.filters = list(console.filters)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def captured_logs():
    """All loggers at DEBUG into one capture, SQL queries with their parameters included; restored after."""
    capture = Capture()
    loggers = [logging.getLogger(), *(logging.getLogger(name) for name in list(logging.root.manager.loggerDict))]
    saved = [(logger, logger.level, logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        logger.propagate = True
    logging.getLogger().addHandler(capture)
    connection.force_debug_cursor = True
    try:
        yield capture.lines
    finally:
        connection.force_debug_cursor = False
        logging.getLogger().removeHandler(capture)
        for logger, level, propagate in saved:
            logger.setLevel(level)
            logger.propagate = propagate


def database_dump() -> str:
    """The whole test database as SQL text, plus every session's decoded data (stored encoded)."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session

    if connection.vendor == "postgresql":
        db = connection.settings_dict
        env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
        command = ["pg_dump", "-h", db["HOST"] or "127.0.0.1", "-p", str(db["PORT"] or 5432), "-U", db["USER"]]
        dump = subprocess.run([*command, db["NAME"]], check=True, capture_output=True, text=True, env=env).stdout
    else:
        connection.ensure_connection()
        dump = "\n".join(connection.connection.iterdump())
    sessions = [repr(SessionStore().decode(session.session_data)) for session in Session.objects.all()]
    return dump + "\n".join(sessions)


def journey(client) -> None:
    """Study pages with a panel link (consent, demographics, every item, thank-you), the profiling questionnaire
    with research consent, and the study and scoring API, all from one client."""
    panel = f"PROLIFIC_PID={PANEL_ID}&STUDY_ID=probe&SESSION_ID=probe"
    assert client.get(f"/study/?{panel}").status_code == 200
    assert client.get(f"/study/consent/?{panel}").status_code == 200
    assert client.post(f"/study/consent/?{panel}", {"agree": "on", "PROLIFIC_PID": PANEL_ID}).status_code == 302
    assert client.post("/study/about-you/", {"age_band": Respondent.AgeBand.values[0]}).status_code == 302
    while (page := client.get("/study/item/")).status_code == 200:
        item = {"assignment": str(page.context["assignment"].pk), "action": "confirm"}
        assert client.post("/study/item/", item).status_code == 302
    assert PANEL_ID not in client.get("/study/thanks/").content.decode()

    assert client.post(f"/profile/?{panel}", {"agree": "on", "PROLIFIC_PID": PANEL_ID}).status_code == 302
    for dilemma in Dilemma.objects.order_by("position"):
        ranking = {f"position_{letter}": str(i) for i, letter in enumerate("CBADE", start=1)}
        assert client.post(f"/profile/dilemmas/{dilemma.pk}/", ranking).status_code == 302
    assert client.get("/profile/results/").status_code == 200

    api = {"content_type": "application/json"}
    reused = client.post(
        "/api/v1/study/consent/", {"consent_version": "1", "accept": True, "panel": {"PROLIFIC_PID": PANEL_ID}}, **api
    )
    assert reused.status_code == 201  # answered like a first arrival, and excluded from N and Y
    consent = client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, **api).json()
    token = {"HTTP_X_RESPONDENT_TOKEN": consent["token"]}
    item = client.get("/api/v1/study/next/", **token).json()
    answer = {"candidate": item["candidate"], "confirmed": True}
    assert client.post("/api/v1/study/responses/", answer, **api, **token).status_code == 201
    assert client.get("/api/v1/study/respondent/", **token).status_code == 200
    assert client.get("/api/v1/keys/").status_code == 200
    score = client.post("/api/v1/profiles/score/", {"rankings": {"D1": list("CBADE")}}, **api)
    assert score.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_after_a_whole_journey_neither_database_nor_logs_hold_the_panel_id_user_agent_or_address(
    settings, captured_logs
):
    settings.STUDY_ITEMS_PER_RESPONDENT = 3
    settings.STUDY_ATTENTION_CHECKS = 0
    instrument_load_file()
    consent_text_install_defaults()
    validation_open(pairs=[("D1", "wisdom"), ("D2", "justice"), ("D3", "courage"), ("D4", "temperance")])
    client = Client(REMOTE_ADDR=CLIENT_ADDRESS, HTTP_X_FORWARDED_FOR=CLIENT_ADDRESS, HTTP_USER_AGENT=USER_AGENT)

    journey(client)

    assert Respondent.objects.filter(panel_id_hash__isnull=False).count() == 2  # the panel arrival was stored…
    assert ValidationResponse.objects.count() == 4 and ProfilingSubmission.objects.count() == 1
    dump, logs = database_dump(), "\n".join(captured_logs)
    assert all(
        hashed in dump
        for hashed in Respondent.objects.exclude(panel_id_hash=None).values_list("panel_id_hash", flat=True)
    )  # the dump has the rows
    assert any("virtuemap_validationresponse" in line for line in captured_logs)  # …and SQL was logged
    for probe in PROBES:
        assert probe.lower() not in dump.lower(), f"{probe!r} is in the database"
        assert probe.lower() not in logs.lower(), f"{probe!r} is in the logs"
