from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from instruments.virtuemap import validation
from instruments.virtuemap.models import Assignment, KeyCandidate
from instruments.virtuemap.validation import (
    attention_check_positions,
    validation_next_assignment,
    validation_open,
    validation_response_submit,
)
from surveys.models import Respondent
from surveys.services import respondent_complete, respondent_consent, respondent_withdraw

pytestmark = pytest.mark.django_db


@pytest.fixture
def all_open(instrument, consent_texts, study_settings):
    return validation_open()


def new_respondent():
    return respondent_consent(study="validation", consent_version="1", accept=True).respondent


def answer_all(respondent, rng=None):
    served = []
    while (assignment := validation_next_assignment(respondent=respondent, rng=rng)) is not None:
        served.append(assignment)
        validation_response_submit(respondent=respondent, candidate_id=assignment.candidate_id, confirmed=True)
    return served


def test_the_least_evaluated_open_candidate_is_served_first(all_open, respondent):
    KeyCandidate.objects.exclude(pk=all_open[7].pk).update(n_evaluations=3, n_confirmations=3)
    assert validation_next_assignment(respondent=respondent).candidate == all_open[7]


def test_in_flight_assignments_count_as_load(all_open, respondent):
    KeyCandidate.objects.exclude(pk__in=[all_open[0].pk, all_open[1].pk]).update(n_evaluations=5, n_confirmations=5)
    first = validation_next_assignment(respondent=respondent, rng=random.Random(1))
    second = validation_next_assignment(respondent=new_respondent(), rng=random.Random(1))
    assert {first.candidate_id, second.candidate_id} == {all_open[0].pk, all_open[1].pk}


def test_an_expired_assignment_no_longer_counts_as_in_flight(all_open, respondent):
    KeyCandidate.objects.exclude(pk__in=[all_open[0].pk, all_open[1].pk]).update(n_evaluations=5, n_confirmations=5)
    KeyCandidate.objects.filter(pk=all_open[1].pk).update(n_evaluations=1, n_confirmations=1)
    first = validation_next_assignment(respondent=respondent)
    assert first.candidate_id == all_open[0].pk
    Assignment.objects.filter(pk=first.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert validation_next_assignment(respondent=new_respondent()).candidate_id == all_open[0].pk


def test_a_respondent_never_gets_the_same_dilemma_and_virtue_twice_and_dilemmas_are_spread(all_open, respondent):
    served = answer_all(respondent, rng=random.Random(3))
    pairs = [(a.dilemma_id, a.virtue_id) for a in served]
    assert len(served) == 10 and len(set(pairs)) == 10
    # Ten items over seven dilemmas: no dilemma twice before every dilemma was seen once.
    assert len({a.dilemma_id for a in served[:7]}) == 7


def test_a_reload_serves_the_same_unanswered_item_again(all_open, respondent):
    first = validation_next_assignment(respondent=respondent)
    assert validation_next_assignment(respondent=respondent) == first


def test_the_respondent_is_complete_after_the_last_item(all_open, respondent):
    answer_all(respondent)
    respondent.refresh_from_db()
    assert respondent.is_complete and validation_next_assignment(respondent=respondent) is None


def test_nothing_is_served_when_no_candidate_is_open(instrument, respondent):
    assert validation_next_assignment(respondent=respondent) is None
    respondent.refresh_from_db()
    assert not respondent.is_complete


def test_attention_checks_are_spread_among_the_items_and_never_first():
    assert attention_check_positions(items=10, checks=1) == {7}
    assert attention_check_positions(items=10, checks=2) == {5, 9}
    assert attention_check_positions(items=10, checks=0) == set()


def test_an_attention_check_asks_for_a_response_not_already_first(all_open, respondent, settings):
    settings.STUDY_ATTENTION_CHECKS = 1
    for _ in range(6):
        item = validation_next_assignment(respondent=respondent)
        validation_response_submit(respondent=respondent, candidate_id=item.candidate_id, confirmed=True)
    check = validation_next_assignment(respondent=respondent)
    assert check.kind == Assignment.Kind.ATTENTION_CHECK and check.position == 7
    assert check.check_letter in check.displayed_order[1:]


def test_a_serve_that_read_stale_counts_reads_again_and_leaves_the_caller_s_transaction_usable(
    all_open, respondent, monkeypatch
):
    """The race `test_concurrency.py` runs between threads, played in one connection: the first read misses the item
    another request has just served, so the insert at its position is refused; the serve reads again and shows that
    item, and the refusal, in a savepoint, costs the caller's transaction (the test's) nothing."""
    served = validation_next_assignment(respondent=respondent)
    real_read = validation._respondent_with_counts_read
    reads = []

    def stale_first(*, respondent_pk):
        found = real_read(respondent_pk=respondent_pk)
        if not reads:  # as of before the other request's insert
            found.assigned, found.pending_id = 0, None
        reads.append(found)
        return found

    monkeypatch.setattr(validation, "_respondent_with_counts_read", stale_first)
    assert validation_next_assignment(respondent=respondent).pk == served.pk
    assert len(reads) == 2
    assert list(Assignment.objects.filter(respondent=respondent).values_list("pk", flat=True)) == [served.pk]


def test_completing_a_respondent_who_withdrew_meanwhile_raises_and_writes_nothing(respondent):
    gone = Respondent.objects.get(pk=respondent.pk)
    respondent_withdraw(respondent=respondent)
    with pytest.raises(Respondent.DoesNotExist):
        respondent_complete(gone)
    assert gone.completed_at is None


@pytest.mark.parametrize("pending_was", ["expired", "decided"])
def test_a_pending_item_answered_after_the_serve_read_it_is_neither_renewed_nor_removed(
    all_open, respondent, monkeypatch, pending_was
):
    """An answer commits between the serve's reads and its write to the pending item: the renewal of an expired item
    and the removal of a decided one each count 0 rows, and the serve reads again and serves the next item. Played in
    one connection by handing the serve its first reads as they were before the answer."""
    first = validation_next_assignment(respondent=respondent)
    if pending_was == "expired":
        Assignment.objects.filter(pk=first.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    else:
        KeyCandidate.objects.filter(pk=first.candidate_id).update(status=KeyCandidate.Status.REJECTED)
    stale_respondent = validation._respondent_with_counts_read(respondent_pk=respondent.pk)
    stale_pending = validation._pending_read(first.pk)
    validation_response_submit(respondent=respondent, candidate_id=first.candidate_id, confirmed=True)
    expires_at = Assignment.objects.get(pk=first.pk).expires_at

    real_read = validation._respondent_with_counts_read
    reads = []

    def stale_first(*, respondent_pk):
        reads.append(respondent_pk)
        return stale_respondent if len(reads) == 1 else real_read(respondent_pk=respondent_pk)

    monkeypatch.setattr(validation, "_respondent_with_counts_read", stale_first)
    monkeypatch.setattr(validation, "_pending_read", lambda pk: stale_pending)

    following = validation_next_assignment(respondent=respondent)

    assert len(reads) == 2
    assert following.position == 2 and following.pk != first.pk
    answered = Assignment.objects.get(pk=first.pk)  # still there, as answered
    assert answered.answered_at is not None and answered.expires_at == expires_at
