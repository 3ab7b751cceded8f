"""The participant reference: its form, that only its keyed hash is stored, and withdrawing with it."""

from __future__ import annotations

import re

import pytest
from django.contrib.sessions.models import Session
from django.db import connection

from instruments.virtuemap.plugin import PROFILING, VALIDATION
from instruments.virtuemap.profiling import profiling_submission_store
from surveys.models import Respondent
from surveys.references import ALPHABET, reference_hash, reference_new, reference_normalise
from surveys.selectors import respondent_by_reference
from surveys.services import respondent_consent, respondent_withdraw, respondent_withdraw_by_reference

pytestmark = pytest.mark.django_db


def consent(**overrides):
    return respondent_consent(**({"study": VALIDATION, "consent_version": "1", "accept": True} | overrides))


def test_a_reference_is_three_groups_of_four_from_an_alphabet_without_lookalikes():
    reference = reference_new()
    groups = reference.split("-")
    assert [len(group) for group in groups] == [4, 4, 4]
    assert set("".join(groups)) <= set(ALPHABET) and not set("ILOU") & set(ALPHABET)
    assert len({reference_new() for _ in range(200)}) == 200


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("7kq4m2xd9pbr", "7KQ4-M2XD-9PBR"),
        (" 7KQ4 M2XD 9PBR ", "7KQ4-M2XD-9PBR"),
        ("OIL4-M2XD-9PBR", "0114-M2XD-9PBR"),  # O, I, L copied by hand for 0, 1, 1
        ("7KQ4-M2XD-9PB", None),
        ("7KQ4-M2XD-9PBU", None),
        ("7KQ4-M2XD-9PBR-", "7KQ4-M2XD-9PBR"),
        ("", None),
        (None, None),
        ("x" * 1000, None),
    ],
)
def test_a_typed_reference_is_read_whatever_its_case_spacing_and_lookalikes(typed, read):
    assert reference_normalise(typed) == read


def test_consent_gives_a_reference_and_stores_only_its_keyed_hash(consent_texts, client, settings):
    outcome = consent()
    respondent = Respondent.objects.get()
    assert respondent.reference_hash == reference_hash(outcome.reference) != outcome.reference
    # The hash depends on the key: without PARTICIPANT_REFERENCE_HMAC_KEY a list of references cannot be matched.
    settings.PARTICIPANT_REFERENCE_HMAC_KEY = "another key"
    assert reference_hash(outcome.reference) != respondent.reference_hash


def test_the_plain_reference_is_in_no_table_even_after_consent_through_a_page(instrument, consent_texts, client):
    client.post("/profile/", {"accept": "1", "agree": "on"})
    reference = re.search(r"\w{4}-\w{4}-\w{4}", client.cookies["participant_references"].value).group()
    plain = reference.replace("-", "")
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT * FROM "{table}"')  # table names from the schema itself
            text = repr(cursor.fetchall())
            assert reference not in text and plain not in text, table
    assert all(reference not in repr(session.get_decoded()) for session in Session.objects.all())


def test_a_reference_finds_its_respondent_in_any_spelling_and_only_its_own(consent_texts):
    first, second = consent(), consent()
    assert respondent_by_reference(reference=first.reference.lower().replace("-", " ")) == first.respondent
    assert respondent_by_reference(reference=second.reference) == second.respondent
    assert respondent_by_reference(reference=first.reference, study=PROFILING) is None
    assert respondent_by_reference(reference=reference_new()) is None


def test_withdrawing_by_reference_deletes_the_respondent_and_counts_what_was_deleted(instrument, consent_texts):
    outcome = consent(study=PROFILING)
    profiling_submission_store(respondent=outcome.respondent, rankings={"D1": "CBADE", "D2": None})
    kept = consent(study=PROFILING)

    withdrawal = respondent_withdraw_by_reference(reference=outcome.reference)

    assert withdrawal.study == PROFILING and withdrawal.total == 2
    assert withdrawal.deleted == {"consent record and optional details": 1, "profiling submission": 1}
    assert list(Respondent.objects.all()) == [kept.respondent]
    assert respondent_withdraw_by_reference(reference=outcome.reference) is None  # the reference is gone with it


def test_an_unknown_or_malformed_reference_deletes_nothing(consent_texts):
    consent()
    assert respondent_withdraw_by_reference(reference=reference_new()) is None
    assert respondent_withdraw_by_reference(reference="not a reference") is None
    assert Respondent.objects.count() == 1


def test_withdrawing_someone_already_gone_reports_nothing(consent_texts):
    respondent = consent().respondent
    respondent_withdraw(respondent=respondent)
    assert respondent_withdraw(respondent=respondent) is None


def test_a_resumed_panel_session_gets_a_new_reference_and_the_old_one_stops_working(consent_texts):
    panel = {"PROLIFIC_PID": "p1", "STUDY_ID": "s1", "SESSION_ID": "x1"}
    first = consent(panel=panel)
    again = consent(panel=panel)
    assert again.resumed and again.reference != first.reference
    assert respondent_by_reference(reference=first.reference) is None
    assert respondent_by_reference(reference=again.reference) == first.respondent
