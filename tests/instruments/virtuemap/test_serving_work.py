"""Serving an item costs work bounded by the respondent's own rows and the items in flight, never by how many
answers the study has collected (issue 18): the count of a candidate's assignments in flight reads only the
unanswered ones, through the index `assignment_in_flight`. A join of every assignment with a GROUP BY, as before,
read the study's whole history on each item page."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from instruments.virtuemap.selectors import open_candidates_for
from instruments.virtuemap.validation import validation_open
from surveys.services import respondent_consent

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "sqlite",
        reason="reads SQLite's query plan, which depends on the schema alone; PostgreSQL's depends on its statistics",
    ),
]


def query_plan(sql: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return [row[-1] for row in cursor.fetchall()]


def test_the_in_flight_count_reads_only_unanswered_assignments_through_their_index(instrument, consent_texts):
    validation_open()
    respondent = respondent_consent(study="validation", consent_version="1", accept=True).respondent
    with CaptureQueriesContext(connection) as captured:
        rows = open_candidates_for(respondent=respondent, now=timezone.now())
    assert rows and all(row.in_flight == 0 for row in rows)
    plan = query_plan(captured.captured_queries[-1]["sql"])
    assert any("assignment_in_flight (candidate_id=? AND answered_at=?" in step for step in plan), plan


def test_choosing_the_next_item_reads_neither_the_dilemmas_nor_the_virtues(instrument, consent_texts):
    # The rows carry only ids; the model's default order (by dilemma and virtue position) would join both tables.
    validation_open()
    respondent = respondent_consent(study="validation", consent_version="1", accept=True).respondent
    with CaptureQueriesContext(connection) as captured:
        rows = open_candidates_for(respondent=respondent, now=timezone.now())
    assert [row.pk for row in rows] == sorted(row.pk for row in rows)
    plan = query_plan(captured.captured_queries[-1]["sql"])
    assert not [step for step in plan if "virtuemap_dilemma" in step or "virtuemap_virtue" in step], plan
