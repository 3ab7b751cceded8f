"""Helpers for validation-study tests: one open dilemma×virtue pair and respondents who evaluate it."""

from __future__ import annotations

import pytest

from instruments.virtuemap.models import KeyCandidate
from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.validation import validation_next_assignment, validation_open, validation_response_submit
from surveys.services import respondent_consent


@pytest.fixture
def study_settings(settings):
    """No attention checks unless a test asks for them, so items are only the candidates under test; no hold for
    review either, since answers typed by a test come at once and alike, which the review rightly holds
    (tests/instruments/virtuemap/test_key_integrity.py turns it on)."""
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.KEY_REVIEW_HOLD = False
    return settings


@pytest.fixture
def open_candidate(instrument, consent_texts, study_settings) -> KeyCandidate:
    """Round 1 of D1×wisdom (proposed ordering CBDAE), the only open candidate."""
    return validation_open(pairs=[("D1", "wisdom")])[0]


@pytest.fixture
def evaluate():
    """`evaluate(candidate, confirmed=True, ordering=None)`: a new respondent is served the candidate and
    answers it; returns the respondent."""

    def answer(candidate: KeyCandidate, confirmed: bool = True, ordering=None):
        respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
        assignment = validation_next_assignment(respondent=respondent)
        assert assignment.candidate_id == candidate.pk, "the candidate under test was not served"
        validation_response_submit(
            respondent=respondent, candidate_id=candidate.pk, confirmed=confirmed, ordering=ordering
        )
        return respondent

    return answer


def evaluate_many(evaluate, candidate: KeyCandidate, confirmations: int, corrections: list[str]) -> None:
    for _ in range(confirmations):
        evaluate(candidate)
    for ordering in corrections:
        evaluate(candidate, confirmed=False, ordering=list(ordering))
