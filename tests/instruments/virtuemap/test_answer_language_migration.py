"""The migrations that record every answer's edition, on a populated database: a validation response takes its
respondent's consent language, a questionnaire answer its instrument's edition of it (English for English-only
items)."""

from __future__ import annotations

import pytest

from tests.migrations import migrate_to

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("virtuemap", "0010_profiling_records_edition_version"), ("surveys", "0018_time_on_item_ms_in_64_bits")]
AFTER = [("virtuemap", "0011_validation_response_language"), ("surveys", "0019_questionnaire_answer_language")]


@pytest.fixture(autouse=True)
def latest_schema_afterwards():
    yield
    migrate_to([("virtuemap", None), ("surveys", None)])


def _respondent(apps, study: str, language: str):
    text, _ = apps.get_model("surveys", "ConsentText").objects.get_or_create(
        study=study, version="1", language=language,
        defaults={"title": "t", "information_sheet": "i", "consent_statement": "c", "text_hash": "0" * 64},
    )  # fmt: skip
    return apps.get_model("surveys", "Respondent").objects.create(
        study=study, consent_text=text, consent_version="1", language=language, consent_text_hash="0" * 64,
        consented_at="2026-06-01T10:00:00+00:00",
    )  # fmt: skip


def _populate(apps) -> None:
    Virtue, Dilemma = apps.get_model("virtuemap", "Virtue"), apps.get_model("virtuemap", "Dilemma")
    KeyCandidate = apps.get_model("virtuemap", "KeyCandidate")
    wisdom = Virtue.objects.create(id="wisdom", name="W", greek_name="S", short_definition="s", definition="d",
                                   position=1)  # fmt: skip
    d1 = Dilemma.objects.create(id="D1", title="t", scenario="s", position=1)
    for language in ("en", "zh-hans"):
        candidate = KeyCandidate.objects.create(dilemma=d1, virtue=wisdom, language=language, ordering="CBDAE",
                                                round=1, status="open", provenance="proposed")  # fmt: skip
        apps.get_model("virtuemap", "ValidationResponse").objects.create(
            respondent=_respondent(apps, "validation", language), candidate=candidate, confirmed=True,
            ordering="CBDAE", displayed_order="CBDAE", counted=True, submitted_at="2026-06-01T10:01:00+00:00",
        )  # fmt: skip
    for language in ("en", "zh-hans"):
        session = apps.get_model("surveys", "QuestionnaireSession").objects.create(
            respondent=_respondent(apps, "transitivity", language), instrument="transitivity", seed=1,
            sequence=[{"x": "A", "y": "F"}],
        )  # fmt: skip
        apps.get_model("surveys", "QuestionnaireAnswer").objects.create(
            session=session, position=1, item={"x": "A", "y": "F"}, value={"situation": "1"},
            answered_at="2026-06-01T10:01:00+00:00",
        )  # fmt: skip


def test_validation_responses_take_the_edition_their_respondent_consented_in():
    _populate(migrate_to(BEFORE))

    new = migrate_to(AFTER)

    rows = new.get_model("virtuemap", "ValidationResponse").objects.values_list("candidate__language", "language")
    assert sorted(rows) == [("en", "en"), ("zh-hans", "zh-hans")]


def test_questionnaire_answers_of_english_only_items_are_english_whatever_the_consents_language():
    _populate(migrate_to(BEFORE))

    new = migrate_to(AFTER)

    rows = new.get_model("surveys", "QuestionnaireAnswer").objects.values_list(
        "session__respondent__language", "language"
    )
    assert sorted(rows) == [("en", "en"), ("zh-hans", "en")]
