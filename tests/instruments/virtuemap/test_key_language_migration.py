"""Migration 0006_key_language on a populated database: every key candidate becomes the English edition's, the
stored profiles say English keys scored them, and the one-retained-key rule becomes one per edition."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from tests.migrations import migrate_to

pytestmark = pytest.mark.django_db(transaction=True)

# surveys at its latest migration: the respondent and consent text are written through today's shape.
BEFORE = [("virtuemap", "0005_key_decision_marks_overrides"), ("surveys", None)]
AFTER = [("virtuemap", "0006_key_language"), ("surveys", None)]


@pytest.fixture(autouse=True)
def latest_schema_afterwards():
    """Later tests need every migration applied, including any that come after this one."""
    yield
    migrate_to([("virtuemap", None), ("surveys", None)])


def _populate(apps) -> int:
    """Two pairs' key histories (published, superseded, an open round) and one stored profile; returns its id."""
    Virtue, Dilemma = apps.get_model("virtuemap", "Virtue"), apps.get_model("virtuemap", "Dilemma")
    KeyCandidate = apps.get_model("virtuemap", "KeyCandidate")
    wisdom = Virtue.objects.create(
        id="wisdom", name="W", greek_name="S", short_definition="s", definition="d", position=1
    )
    justice = Virtue.objects.create(
        id="justice", name="J", greek_name="D", short_definition="s", definition="d", position=2
    )
    d1 = Dilemma.objects.create(id="D1", title="t", scenario="s", position=1)
    keys = []
    for virtue in (wisdom, justice):
        KeyCandidate.objects.create(dilemma=d1, virtue=virtue, ordering="CBDAE", round=0, status="superseded",
                                    provenance="published")  # fmt: skip
        keys.append(KeyCandidate.objects.create(dilemma=d1, virtue=virtue, ordering="BCDAE", round=1,
                                                status="retained", provenance="proposed"))  # fmt: skip
        KeyCandidate.objects.create(dilemma=d1, virtue=virtue, ordering="BCDAE", round=2, status="open",
                                    provenance="proposed")  # fmt: skip
    text = apps.get_model("surveys", "ConsentText").objects.create(
        study="profiling", version="1", title="t", information_sheet="i", consent_statement="c", text_hash="0" * 64,
        is_current=True,
    )  # fmt: skip
    person = apps.get_model("surveys", "Respondent").objects.create(
        study="profiling", consent_text=text, consent_version="1", consent_text_hash="0" * 64,
        consented_at="2026-06-01T10:00:00+00:00",
    )  # fmt: skip
    apps.get_model("virtuemap", "ProfilingSubmission").objects.create(
        respondent=person, rankings={"D1": "BCDAE"}, scores={"wisdom": 100.0, "justice": 100.0},
        keys_used=[key.pk for key in keys],
    )  # fmt: skip
    return person.pk


def test_existing_keys_and_profiles_become_the_english_editions():
    old = migrate_to(BEFORE)
    person = _populate(old)

    new = migrate_to(AFTER)

    KeyCandidate = new.get_model("virtuemap", "KeyCandidate")
    assert set(KeyCandidate.objects.values_list("language", flat=True)) == {"en"}
    stored = new.get_model("virtuemap", "ProfilingSubmission").objects.get(respondent_id=person)
    assert stored.language == "en"
    assert stored.key_language == {"D1": {"wisdom": "en", "justice": "en"}}


def test_after_the_migration_each_edition_has_its_own_retained_key_and_open_round():
    _populate(migrate_to(BEFORE))
    new = migrate_to(AFTER)
    KeyCandidate = new.get_model("virtuemap", "KeyCandidate")
    pair = {"dilemma_id": "D1", "virtue_id": "wisdom"}

    KeyCandidate.objects.create(**pair, language="zh-hans", ordering="CBDAE", round=1, status="retained",
                                provenance="english_key")  # fmt: skip
    KeyCandidate.objects.create(**pair, language="zh-hans", ordering="CBDAE", round=2, status="open",
                                provenance="consensus")  # fmt: skip

    for duplicate in ({"round": 3, "status": "retained"}, {"round": 3, "status": "open"}, {"round": 2}):
        with pytest.raises(IntegrityError), transaction.atomic():
            KeyCandidate.objects.create(**pair, language="en", ordering="ABCDE", provenance="proposed", **duplicate)
