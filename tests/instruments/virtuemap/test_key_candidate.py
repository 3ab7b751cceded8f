from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from instruments.virtuemap.models import KeyCandidate

pytestmark = pytest.mark.django_db


def test_a_second_retained_key_for_the_same_pair_is_refused_by_the_database(instrument):
    with pytest.raises(IntegrityError), transaction.atomic():
        KeyCandidate.objects.create(
            dilemma_id="D2",
            virtue_id="justice",
            ordering="BACDE",
            round=1,
            provenance=KeyCandidate.Provenance.PROPOSED,
            status=KeyCandidate.Status.RETAINED,
        )


def test_confirmations_cannot_exceed_evaluations(instrument):
    with pytest.raises(IntegrityError), transaction.atomic():
        KeyCandidate.objects.create(
            dilemma_id="D2",
            virtue_id="justice",
            ordering="BACDE",
            round=1,
            provenance=KeyCandidate.Provenance.PROPOSED,
            n_evaluations=3,
            n_confirmations=4,
        )


def test_confirmation_rate_is_none_before_any_evaluation():
    assert KeyCandidate(n_evaluations=0, n_confirmations=0).confirmation_rate is None
    assert KeyCandidate(n_evaluations=101, n_confirmations=96).confirmation_rate == pytest.approx(96 / 101)
