"""Respondents who consented before participant references existed: the migration gives them none (nobody could ever
be shown it), they keep everything else, and "Start again" can only withdraw them, so nothing is left out of reach."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests import client_session
from tests.migrations import migrate_to

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("surveys", "0012_questionnaire_and_consent_languages")]


def _migrate_to_latest() -> None:
    """Through the references migration and every later one: the views under test run today's models."""
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _old_respondent(apps, *, study: str, token_hash: str) -> str:
    text = apps.get_model("surveys", "ConsentText").objects.get_or_create(
        study=study, version="1", language="en",
        defaults={"title": "t", "information_sheet": "i", "consent_statement": "c", "text_hash": "0" * 64,
                  "is_current": True},
    )[0]  # fmt: skip
    return apps.get_model("surveys", "Respondent").objects.create(
        study=study, consent_text=text, consent_version="1", consent_text_hash="0" * 64, token_hash=token_hash,
        consented_at="2026-06-01T10:00:00+00:00", age_band="25-34", completed_at="2026-06-01T10:20:00+00:00",
    ).pk  # fmt: skip


def test_earlier_respondents_keep_their_rows_without_a_reference_and_start_again_withdraws_them(client, instrument):
    old = migrate_to(BEFORE)
    profiling = _old_respondent(old, study="profiling", token_hash="a" * 64)
    validation = _old_respondent(old, study="validation", token_hash="b" * 64)

    _migrate_to_latest()

    from instruments.virtuemap.models import ProfilingSubmission
    from instruments.virtuemap.profiling import profiling_submission_store
    from surveys.models import Respondent

    rows = {row["id"]: row for row in Respondent.objects.values()}
    assert set(rows) == {profiling, validation}
    assert all(row["reference_hash"] is None and row["age_band"] == "25-34" for row in rows.values())
    assert rows[validation]["token_hash"] == "b" * 64 and rows[profiling]["completed_at"] is not None

    profiling_submission_store(respondent=Respondent.objects.get(pk=profiling), rankings={"D1": "CBADE"})
    session = client.session
    session["profiling_respondent"] = str(profiling)
    client_session.saved(client, session)
    page = client.get("/profile/results/").content.decode()
    assert 'value="withdraw"' in page and 'value="keep"' not in page  # no reference to keep them under
    # Even a forged "keep" withdraws: answers nobody can reach again are not left behind.
    asked = client.post("/profile/results/", {"start_again": "keep"}).content.decode()
    assert "data-confirm-deletion" in asked
    withdrawn = client.post("/profile/results/", {"start_again": "withdraw", "confirm": "1"}).content.decode()
    assert "Deleted 2 records" in withdrawn
    assert list(Respondent.objects.values_list("pk", flat=True)) == [validation]
    assert not ProfilingSubmission.objects.exists()
