"""The score API's cached keys and model profiles are reloaded only when a key in use changes (issue 18): every answer
counts on its key candidate, and a thousand of them reload nothing."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from instruments.virtuemap.keys import candidate_retain
from instruments.virtuemap.models import Assignment, KeyCandidate
from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.selectors import (
    INSTRUMENT_CONTENT,
    PROFILE_SCORING_CONTEXT,
    PUBLISHED_PROFILE_SCORES,
    instrument_content,
    profile_scoring_context,
    published_profile_scores,
)
from instruments.virtuemap.validation import validation_open, validation_response_submit
from surveys.models import ConsentText, Respondent
from virtuemap_site.snapshots import CachedSnapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def reloads(monkeypatch) -> Counter:
    """Snapshot name → how many times it was loaded from the database."""
    counts: Counter = Counter()
    original = CachedSnapshot.get

    def get(snapshot, load):
        def counted():
            counts[snapshot.generation_key] += 1
            return load()

        return original(snapshot, counted)

    monkeypatch.setattr(CachedSnapshot, "get", get)
    return counts


@pytest.fixture
def scoring_settings(study_settings):
    """No decision within a thousand answers, and no expiry of the kept data during the test."""
    study_settings.KEY_MIN_EVALUATIONS = 10_000
    study_settings.PROFILE_CACHE_SECONDS = 3_600
    return study_settings


def served(candidates: list[KeyCandidate], count: int) -> list[tuple[Respondent, KeyCandidate]]:
    """``count`` respondents, each served one of the candidates in turn (written in bulk: the answers are the test)."""
    text = ConsentText.objects.get(study=VALIDATION, language="en", is_current=True)
    now = timezone.now()
    respondents = Respondent.objects.bulk_create(
        Respondent(
            study=VALIDATION,
            consent_text=text,
            consent_version=text.version,
            consent_text_hash=text.text_hash,
            consented_at=now,
        )
        for _ in range(count)
    )
    pairs = [(respondent, candidates[i % len(candidates)]) for i, respondent in enumerate(respondents)]
    Assignment.objects.bulk_create(
        Assignment(
            respondent=respondent,
            kind=Assignment.Kind.VALIDATION,
            position=1,
            candidate=candidate,
            dilemma_id=candidate.dilemma_id,
            virtue_id=candidate.virtue_id,
            displayed_order=candidate.ordering,
            served_at=now,
            expires_at=now + timedelta(minutes=30),
        )
        for respondent, candidate in pairs
    )
    return pairs


def read_scoring_data() -> None:
    """What the score API, the home page and the item pages read on every request."""
    profile_scoring_context()
    published_profile_scores()
    instrument_content()


def test_a_thousand_answers_reload_no_scoring_data(instrument, consent_texts, scoring_settings, reloads):
    pairs = served(validation_open(), 1_000)
    read_scoring_data()
    reloads.clear()
    for respondent, candidate in pairs:
        validation_response_submit(respondent=respondent, candidate_id=candidate.pk, confirmed=True)
        read_scoring_data()
    assert sum(reloads.values()) == 0
    assert sum(KeyCandidate.objects.filter(round=1).values_list("n_evaluations", flat=True)) == 1_000


def test_a_key_retained_by_the_rule_reloads_the_keys_and_profiles_once(
    instrument, consent_texts, scoring_settings, reloads
):
    candidates = validation_open()
    pairs = served(candidates[:1], 3)
    scoring_settings.KEY_MIN_EVALUATIONS = 2
    read_scoring_data()
    reloads.clear()
    for respondent, candidate in pairs:
        validation_response_submit(respondent=respondent, candidate_id=candidate.pk, confirmed=True)
        read_scoring_data()
    assert KeyCandidate.objects.get(pk=candidates[0].pk).status == KeyCandidate.Status.RETAINED
    assert reloads == {PROFILE_SCORING_CONTEXT.generation_key: 1, PUBLISHED_PROFILE_SCORES.generation_key: 1}


def test_a_rejection_or_a_recount_reloads_nothing(instrument, consent_texts, scoring_settings, reloads):
    from instruments.virtuemap.keys import candidate_reject, key_counts_recompute

    candidate = validation_open(pairs=[("D1", "wisdom")])[0]
    read_scoring_data()
    reloads.clear()
    key_counts_recompute(candidate_ids=[candidate.pk])
    candidate_reject(candidate=KeyCandidate.objects.get(pk=candidate.pk), reason="test", open_next=False)
    read_scoring_data()
    assert sum(reloads.values()) == 0


def test_a_retention_by_a_researcher_reloads_the_keys(instrument, consent_texts, scoring_settings, reloads):
    candidate = validation_open(pairs=[("D1", "wisdom")])[0]
    read_scoring_data()
    reloads.clear()
    candidate_retain(candidate=KeyCandidate.objects.get(pk=candidate.pk), reason="test")
    read_scoring_data()
    assert reloads[PROFILE_SCORING_CONTEXT.generation_key] == 1
    assert reloads[INSTRUMENT_CONTENT.generation_key] == 0


def test_an_edited_dilemma_reloads_the_content(instrument, reloads):
    from instruments.virtuemap.models import Dilemma

    read_scoring_data()
    reloads.clear()
    dilemma = Dilemma.objects.get(pk="D1")
    dilemma.title = "Another title"
    dilemma.save()
    assert instrument_content().dilemma("D1").title == "Another title"
