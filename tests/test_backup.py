"""Backups (docs/deploy.md): a database with data, dumped with pg_dump and restored with pg_restore into a fresh
database, has the same rows in every table. PostgreSQL only."""

from __future__ import annotations

import shutil
import subprocess
import uuid

import psycopg
import pytest
from psycopg import sql

from benchmarks.serving import server_url
from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.records import reference_profiles_publish
from instruments.virtuemap.validation import validation_next_assignment, validation_open, validation_response_submit
from surveys.services import respondent_consent

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _row_counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
            )
        ]
        return {
            table: connection.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone()[0]
            for table in tables
        }


def _fill(respondents: int) -> None:
    validation_open(pairs=[("D1", "wisdom"), ("D2", "justice")])
    for index in range(respondents):
        respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
        assignment = validation_next_assignment(respondent=respondent)
        validation_response_submit(
            respondent=respondent, candidate_id=assignment.candidate_id, confirmed=index % 3 != 0, ordering=None
            if index % 3 != 0 else ["A", "B", "C", "D", "E"]
        )  # fmt: skip
    reference_profiles_publish()


@pytest.fixture
def scratch_database(database_url):
    """The URL of a database that does not exist yet; dropped at the end."""
    name = f"restore_{uuid.uuid4().hex[:10]}"
    yield name, server_url(database_url, name)
    with psycopg.connect(server_url(database_url), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_a_pg_dump_restored_into_a_fresh_database_has_every_row(
    instrument, consent_texts, settings, database_url, scratch_database, tmp_path
):
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("needs pg_dump and pg_restore on PATH")
    settings.STUDY_ATTENTION_CHECKS = 0
    _fill(respondents=12)
    name, restored_url = scratch_database
    dump = tmp_path / "virtuemap.dump"

    # The commands of docs/deploy.md.
    subprocess.run(["pg_dump", "--format=custom", "--no-owner", "--file", dump, database_url], check=True)
    with psycopg.connect(server_url(database_url), autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", "--dbname", restored_url, dump], check=True, capture_output=True
    )

    original, restored = _row_counts(database_url), _row_counts(restored_url)
    assert restored == original
    assert original["virtuemap_validationresponse"] == 12
    assert original["llmruns_trial"] > 0
