from __future__ import annotations

import pytest

from instruments.virtuemap.models import Assignment, KeyCandidate, KeyDecision, ValidationResponse
from instruments.virtuemap.selectors import key_count_drift
from instruments.virtuemap.validation import (
    attention_check_submit,
    validation_next_assignment,
    validation_open,
    validation_response_submit,
)
from surveys.services import respondent_outcome_code, respondent_withdraw
from tests.instruments.virtuemap.conftest import evaluate_many
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def counts(candidate: KeyCandidate) -> tuple[int, int, str]:
    candidate.refresh_from_db()
    return candidate.n_evaluations, candidate.n_confirmations, candidate.status


def served(respondent, candidate):
    assert validation_next_assignment(respondent=respondent).candidate_id == candidate.pk


def test_a_confirmation_counts_towards_n_and_y(open_candidate, evaluate):
    evaluate(open_candidate)
    assert counts(open_candidate) == (1, 1, "open")


def test_a_correction_counts_towards_n_only_and_keeps_the_ordering(open_candidate, evaluate):
    respondent = evaluate(open_candidate, confirmed=False, ordering=list("BCDAE"))
    assert counts(open_candidate) == (1, 0, "open")
    assert respondent.validation_responses.get().ordering == "BCDAE"


def test_a_correction_identical_to_the_proposal_is_a_confirmation(open_candidate, evaluate):
    respondent = evaluate(open_candidate, confirmed=False, ordering=list("CBDAE"))
    assert respondent.validation_responses.get().confirmed
    assert counts(open_candidate) == (1, 1, "open")


def test_a_repeat_submission_returns_the_stored_response_without_counting_it(open_candidate, evaluate):
    respondent = evaluate(open_candidate)
    again = validation_response_submit(respondent=respondent, candidate_id=open_candidate.pk, confirmed=True)
    assert not again.created and again.response.confirmed
    assert counts(open_candidate) == (1, 1, "open")


def test_a_different_repeat_is_refused_and_the_first_answer_stands(open_candidate, evaluate):
    respondent = evaluate(open_candidate)
    with pytest.raises(ApplicationError, match="the first answer stands") as error:
        validation_response_submit(
            respondent=respondent, candidate_id=open_candidate.pk, confirmed=False, ordering=list("ABCDE")
        )
    assert error.value.status == 409 and error.value.extra["stored"]["confirmed"] is True
    assert respondent.validation_responses.get().confirmed and counts(open_candidate) == (1, 1, "open")


def test_a_candidate_not_assigned_to_the_respondent_is_refused(open_candidate, respondent):
    with pytest.raises(ApplicationError, match="not assigned") as error:
        validation_response_submit(respondent=respondent, candidate_id=open_candidate.pk, confirmed=True)
    assert error.value.status == 403 and not ValidationResponse.objects.exists()


def test_an_invalid_correction_is_refused_and_nothing_is_written(open_candidate, respondent):
    served(respondent, open_candidate)
    with pytest.raises(ApplicationError, match="'A' appears more than once"):
        validation_response_submit(
            respondent=respondent, candidate_id=open_candidate.pk, confirmed=False, ordering=list("AABCD")
        )
    assert not ValidationResponse.objects.exists() and counts(open_candidate) == (0, 0, "open")


def test_the_time_on_the_item_is_recorded(open_candidate, evaluate):
    respondent = evaluate(open_candidate)
    assert respondent.validation_responses.get().time_on_item_ms >= 0


def test_n_100_with_every_confirmation_is_not_yet_retained(open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 100, [])
    assert counts(open_candidate) == (100, 100, "open")


def test_the_101st_evaluation_retains_with_96_confirmations(open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 96, ["BCDAE"] * 5)
    assert counts(open_candidate) == (101, 96, "retained")


def test_the_sixth_disconfirmation_rejects_the_round_early(open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 10, ["BCDAE"] * 5)
    assert counts(open_candidate)[2] == "open"
    evaluate(open_candidate, confirmed=False, ordering=list("ABCDE"))
    assert counts(open_candidate) == (16, 10, "rejected")


def test_q_exactly_at_the_threshold_retains(open_candidate, evaluate, settings):
    settings.KEY_MIN_EVALUATIONS = 19  # target 20: 19 of 20 is q = 0.95 exactly
    evaluate_many(evaluate, open_candidate, 19, ["BCDAE"])
    assert counts(open_candidate) == (20, 19, "retained")


def test_a_rejection_opens_the_next_round_from_the_consensus_of_the_corrections(open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 0, ["BCDAE"] * 4 + ["CBADE", "ABCDE"])
    successor = KeyCandidate.objects.get(dilemma="D1", virtue="wisdom", status="open")
    assert (successor.round, successor.ordering, successor.provenance) == (2, "BCDAE", "consensus")
    rejection = open_candidate.decisions.get(action=KeyDecision.Action.REJECTED)
    assert rejection.related_candidate == successor and rejection.n_corrections == 6


def test_a_rejection_records_its_evidence(open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 4, ["BCDAE"] * 6)
    rejection = open_candidate.decisions.get(action=KeyDecision.Action.REJECTED)
    assert (rejection.n_evaluations, rejection.n_confirmations, rejection.confirmation_rate) == (10, 4, 0.4)
    assert rejection.wilson_low < 0.4 < rejection.wilson_high
    assert rejection.agreement_tau == pytest.approx(0.8) and rejection.automatic


def test_a_retained_key_supersedes_the_published_one_and_keeps_history(open_candidate, evaluate, settings):
    settings.KEY_MIN_EVALUATIONS = 2
    evaluate_many(evaluate, open_candidate, 3, [])
    statuses = dict(KeyCandidate.objects.filter(dilemma="D1", virtue="wisdom").values_list("round", "status"))
    assert statuses == {0: "superseded", 1: "retained"}
    assert KeyDecision.objects.filter(candidate__round=0, action="superseded").exists()


def test_a_response_after_the_decision_is_kept_but_not_counted(open_candidate, evaluate, respondent, settings):
    settings.KEY_MIN_EVALUATIONS = 2
    served(respondent, open_candidate)
    evaluate_many(evaluate, open_candidate, 3, [])
    outcome = validation_response_submit(respondent=respondent, candidate_id=open_candidate.pk, confirmed=True)
    assert outcome.created and not outcome.response.counted
    assert counts(open_candidate) == (3, 3, "retained")


def test_a_failed_attention_check_flags_the_respondent_and_removes_their_counts(open_candidate, evaluate):
    respondent = evaluate(open_candidate, confirmed=False, ordering=list("ABCDE"))
    evaluate(open_candidate)
    check = make_check(respondent, position=2)
    attention_check_submit(respondent=respondent, assignment_id=check.pk, ordering=list("ABCDE"))
    respondent.refresh_from_db()
    assert respondent.flagged and respondent.validation_responses.count() == 1
    assert counts(open_candidate) == (1, 1, "open")


def test_withdrawal_deletes_the_responses_and_recomputes_the_counters(open_candidate, evaluate):
    leaving = evaluate(open_candidate, confirmed=False, ordering=list("ABCDE"))
    evaluate(open_candidate)
    respondent_withdraw(respondent=leaving)
    assert counts(open_candidate) == (1, 1, "open")
    assert ValidationResponse.objects.count() == 1 and key_count_drift() == []


def test_the_counters_never_drift_from_the_stored_responses(open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 3, ["ABCDE"])
    assert key_count_drift() == []
    KeyCandidate.objects.filter(pk=open_candidate.pk).update(n_evaluations=9)
    assert [(d.stored, d.recounted) for d in key_count_drift()] == [((9, 3), (4, 3))]


def test_opening_all_pairs_then_deciding_one_keeps_one_open_round_per_pair(instrument, open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 0, ["ABCDE"] * 6)
    validation_open()
    assert KeyCandidate.objects.filter(status="open").count() == 35


def make_check(respondent, position: int) -> Assignment:
    now = respondent.consented_at
    return Assignment.objects.create(
        respondent=respondent,
        kind="attention_check",
        position=position,
        dilemma_id="D2",
        displayed_order="ABCDE",
        check_letter="C",
        served_at=now,
        expires_at=now,
    )


def test_a_passed_attention_check_does_not_flag(respondent, instrument):
    check = attention_check_submit(
        respondent=respondent, assignment_id=make_check(respondent, 1).pk, ordering=list("CABDE")
    )
    respondent.refresh_from_db()
    assert check.check_passed and not respondent.flagged


def test_one_failed_check_still_earns_the_completed_code(respondent, instrument, settings):
    attention_check_submit(respondent=respondent, assignment_id=make_check(respondent, 1).pk, ordering=list("ABCDE"))
    respondent.refresh_from_db()
    assert respondent.flagged and respondent_outcome_code(respondent=respondent) == "VM-COMPLETED"


def test_two_failed_checks_earn_the_failed_checks_code(respondent, instrument):
    for position in (1, 2):
        attention_check_submit(
            respondent=respondent, assignment_id=make_check(respondent, position).pk, ordering=list("ABCDE")
        )
    respondent.refresh_from_db()
    assert respondent_outcome_code(respondent=respondent) == "VM-FAILEDCHECKS"


def test_a_different_answer_to_an_answered_check_is_refused_and_the_first_stands(respondent, instrument):
    check = make_check(respondent, 1)
    attention_check_submit(respondent=respondent, assignment_id=check.pk, ordering=list("CABDE"))
    with pytest.raises(ApplicationError, match="the first answer stands") as error:
        attention_check_submit(respondent=respondent, assignment_id=check.pk, ordering=list("ABCDE"))
    respondent.refresh_from_db()
    assert error.value.status == 409 and not respondent.flagged
    assert Assignment.objects.get(pk=check.pk).check_answer == "CABDE"
