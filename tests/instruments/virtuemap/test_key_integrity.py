"""Evidence integrity in the validation study: automatic decisions on manufactured-looking evidence wait for a
researcher, honest evidence still decides at once, and decisions whose evidence is withdrawn are flagged."""

from __future__ import annotations

import random

import pytest

from instruments.virtuemap.keys import (
    key_candidate_promote,
    key_candidate_reject,
    key_candidate_reopen,
    key_candidate_review_keep,
)
from instruments.virtuemap.models import KeyCandidate, KeyDecision
from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.validation import validation_next_assignment, validation_open, validation_response_submit
from surveys.services import respondent_consent, respondent_withdraw
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db

PAIR = ("D1", "wisdom")  # published key CBDAE


@pytest.fixture
def study(instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.KEY_REVIEW_HOLD = True

    def open_round(ordering: str) -> KeyCandidate:
        return validation_open(pairs=[PAIR], orderings={PAIR: ordering})[0]

    return open_round


def answer(candidate, *, network: int | None, confirmed=True, ordering=None, clock=None, rng=None):
    """A new respondent from `network` is served the candidate and answers it, reading for 10–40 s when a clock
    runs (people), at once otherwise (a script)."""
    respondent = respondent_consent(
        study=VALIDATION, consent_version="1", accept=True, network_bucket=network
    ).respondent
    assert validation_next_assignment(respondent=respondent).candidate_id == candidate.pk
    if clock is not None:
        clock.advance(rng.uniform(10, 40))
    validation_response_submit(
        respondent=respondent,
        candidate_id=candidate.pk,
        confirmed=confirmed,
        ordering=list(ordering) if ordering else None,
    )
    if clock is not None:
        clock.advance(rng.uniform(60, 180))
    return respondent


def people(candidate, count: int, clock, *, seed: int = 1, start: int = 0) -> list:
    rng = random.Random(seed)
    return [answer(candidate, network=start + index, clock=clock, rng=rng) for index in range(count)]


def status(candidate: KeyCandidate) -> str:
    return KeyCandidate.objects.get(pk=candidate.pk).status


def retained_ordering() -> str:
    return KeyCandidate.objects.get(dilemma_id=PAIR[0], virtue_id=PAIR[1], status="retained").ordering


def test_a_scripted_retention_that_would_change_the_key_is_held_with_its_reasons(study, settings):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    held = KeyCandidate.objects.get(pk=candidate.pk)
    assert held.status == "held" and held.needs_review
    assert {"fast", "burst", "one_network", "upends_key"} <= {reason["code"] for reason in held.review_reasons}
    decision = held.decisions.get(action=KeyDecision.Action.HELD)
    assert decision.automatic and "the rule would retain it" in decision.reason
    assert {concern["code"] for concern in decision.concerns} >= {"fast", "one_network"}
    assert retained_ordering() == "CBDAE"  # the published key still stands


def test_a_retention_that_keeps_the_current_key_is_never_held(study, settings):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("CBDAE")
    for _ in range(6):
        answer(candidate, network=7)
    assert status(candidate) == "retained"


def test_a_scripted_rejection_is_held_and_opens_no_round(study, settings):
    candidate = study("CBDAE")
    for _ in range(6):
        answer(candidate, network=None, confirmed=False, ordering="EDCBA")
    assert status(candidate) == "held"
    assert not KeyCandidate.objects.filter(status="open").exists()
    reasons = KeyCandidate.objects.get(pk=candidate.pk).review_reasons
    assert "identical_corrections" in {reason["code"] for reason in reasons}


def test_a_held_candidate_is_served_to_nobody_and_counts_no_later_answer(study, settings, respondent):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    assert validation_next_assignment(respondent=respondent).candidate_id == candidate.pk
    for _ in range(6):
        answer(candidate, network=7)
    outcome = validation_response_submit(respondent=respondent, candidate_id=candidate.pk, confirmed=True)
    assert not outcome.response.counted
    assert KeyCandidate.objects.get(pk=candidate.pk).n_evaluations == 6
    later = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
    assert validation_next_assignment(respondent=later) is None


def test_the_study_opens_no_second_round_beside_a_held_one(study, settings):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    assert validation_open(pairs=[PAIR]) == []


def test_a_researcher_promotes_a_held_candidate_and_the_trail_keeps_the_hold(study, settings, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    key_candidate_promote(candidate=candidate, user=researcher, reason="checked the panel's records")
    promoted = KeyCandidate.objects.get(pk=candidate.pk)
    assert promoted.status == "retained" and not promoted.needs_review and promoted.review_reasons == []
    actions = list(promoted.decisions.order_by("id").values_list("action", "automatic"))
    assert actions[-2:] == [("held", True), ("retained", False)]


def test_a_researcher_rejects_a_held_candidate_like_the_rule_would(study, settings, researcher):
    candidate = study("CBDAE")
    orderings = ["BCDAE", "BCDAE", "BCDAE", "BCDAE", "CBADE", "BCDAE"]
    for ordering in orderings:
        answer(candidate, network=None, confirmed=False, ordering=ordering)
    assert status(candidate) == "held"
    key_candidate_reject(candidate=candidate, user=researcher, reason="the corrections agree")
    successor = KeyCandidate.objects.get(dilemma_id=PAIR[0], virtue_id=PAIR[1], status="open")
    assert status(candidate) == "rejected" and successor.ordering == "BCDAE"


def test_a_researcher_reopens_a_held_candidate_as_a_fresh_round(study, settings, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    fresh = key_candidate_reopen(candidate=candidate, user=researcher, reason="scripted answers; start again")
    assert status(candidate) == "rejected"
    assert (fresh.status, fresh.ordering, fresh.n_evaluations) == ("open", "EDCBA", 0)


def test_people_at_the_default_thresholds_retain_a_new_key_without_a_hold(study, clock):
    candidate = study("CBDEA")  # one swap from the published CBDAE
    people(candidate, 101, clock)
    assert status(candidate) == "retained" and retained_ordering() == "CBDEA"
    assert not KeyDecision.objects.filter(action="held").exists()


def test_people_whose_corrections_reject_a_round_do_so_without_a_hold(study, clock):
    candidate = study("CBDAE")
    rng = random.Random(4)
    for index, ordering in enumerate(["BCDAE", "CBADE", "BCDAE", "CDBAE", "BCADE", "BCDAE"]):
        answer(candidate, network=index, confirmed=False, ordering=ordering, clock=clock, rng=rng)
    assert status(candidate) == "rejected"
    assert KeyCandidate.objects.get(dilemma_id=PAIR[0], virtue_id=PAIR[1], status="open").round == 2


def test_the_hold_can_be_turned_off(study, settings):
    settings.KEY_MIN_EVALUATIONS, settings.KEY_REVIEW_HOLD = 5, False
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    assert status(candidate) == "retained"


def test_withdrawals_that_take_a_retained_key_below_the_rule_flag_it_for_review(study, settings, clock):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("CBDEA")
    first, *_ = people(candidate, 6, clock)
    assert status(candidate) == "retained"
    respondent_withdraw(respondent=first)
    flagged = KeyCandidate.objects.get(pk=candidate.pk)
    assert (flagged.status, flagged.needs_review, flagged.n_evaluations) == ("retained", True, 5)
    decision = flagged.decisions.get(action=KeyDecision.Action.FLAGGED)
    assert decision.automatic and "N=6, Y=6" in decision.reason and "N=5, Y=5" in decision.reason
    assert retained_ordering() == "CBDEA"  # nothing changes without a researcher


def test_a_failed_attention_check_that_undoes_a_rejection_flags_it(study, clock):
    from instruments.virtuemap.models import Assignment
    from instruments.virtuemap.validation import attention_check_submit

    candidate = study("CBDAE")
    rng = random.Random(5)
    correctors = [
        answer(candidate, network=index, confirmed=False, ordering=ordering, clock=clock, rng=rng)
        for index, ordering in enumerate(["BCDAE", "CBADE", "BCDAE", "CDBAE", "BCADE", "BCDAE"])
    ]
    check = Assignment.objects.create(
        respondent=correctors[0], kind="attention_check", position=2, dilemma_id="D2", displayed_order="ABCDE",
        check_letter="C", served_at=clock.now, expires_at=clock.now,
    )  # fmt: skip
    attention_check_submit(respondent=correctors[0], assignment_id=check.pk, ordering=list("ABCDE"))
    assert KeyCandidate.objects.get(pk=candidate.pk).needs_review
    assert candidate.decisions.filter(action="flagged").exists()


def test_a_researcher_keeps_a_flagged_decision_with_a_reason(study, settings, clock, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("CBDEA")
    first, *_ = people(candidate, 6, clock)
    respondent_withdraw(respondent=first)
    key_candidate_review_keep(candidate=candidate, user=researcher, reason="one withdrawal; the key is sound")
    kept = KeyCandidate.objects.get(pk=candidate.pk)
    assert (kept.status, kept.needs_review) == ("retained", False)
    assert kept.decisions.get(action="reviewed").decided_by == researcher


def test_a_held_candidate_cannot_just_be_kept(study, settings, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    with pytest.raises(ApplicationError, match="promote, reject or reopen"):
        key_candidate_review_keep(candidate=candidate, user=researcher, reason="fine")


def test_a_researchers_decision_is_not_flagged_by_later_withdrawals(study, settings, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("CBDEA")
    first = answer(candidate, network=1)
    key_candidate_promote(candidate=candidate, user=researcher, reason="pilot", override=True)
    respondent_withdraw(respondent=first)
    assert not KeyCandidate.objects.get(pk=candidate.pk).needs_review


def test_the_review_page_shows_why_a_candidate_waits(study, settings, admin_client):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    page = admin_client.get(f"/admin/virtuemap/keycandidate/{candidate.pk}/change/").content.decode()
    assert "Held for review" in page and "too soon to have read it" in page
    assert str(candidate) in admin_client.get("/admin/virtuemap/keycandidate/?needs_review__exact=1").content.decode()


def test_a_promotion_the_rule_supports_is_not_marked_as_an_override(study, settings, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("EDCBA")
    for _ in range(6):
        answer(candidate, network=7)
    key_candidate_promote(candidate=candidate, user=researcher, reason="checked", override=True)
    assert not KeyCandidate.objects.get(pk=candidate.pk).decisions.get(action="retained").override


def test_a_promotion_against_the_rule_without_override_changes_nothing(study, settings, researcher):
    settings.KEY_MIN_EVALUATIONS = 5
    candidate = study("CBDEA")
    answer(candidate, network=1)
    with pytest.raises(ApplicationError, match="does not retain"):
        key_candidate_promote(candidate=candidate, user=researcher, reason="pilot")
    assert KeyCandidate.objects.get(pk=candidate.pk).status != "retained"
