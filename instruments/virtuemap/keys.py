"""Decisions on key candidates: N and Y kept equal to their responses, the promotion rule's automatic decisions
(held for review when the evidence looks manufactured), and researchers' decisions in admin, each in the audit
trail. Every decision stays within the candidate's edition (`KeyCandidate.language`); `edition_keys_validated`
says whether an edition has its own keys yet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from instruments.virtuemap import integrity, selectors
from instruments.virtuemap.editions import ENGLISH, edition_language
from instruments.virtuemap.models import (
    KeyCandidate,
    KeyDecision,
)
from scoring.integrity import Concern
from scoring.promotion import PromotionOutcome, kemeny_consensus, promotion_decision
from virtuemap_site.errors import ApplicationError


def edition_keys_validated(language: str) -> bool:
    """Whether the edition in `language` (any code `selectors.key_edition` takes: "zh", "zh-hans", "en") has a
    retained key of its own for every dilemma × virtue. False while any of its pairs is still scored with the English
    key, which is when its pages say "keys not yet validated in Chinese". An unknown language is not validated."""
    edition = selectors.key_edition(language, default=None)
    if edition is None:
        return False
    pairs = selectors.dilemma_virtue_pair_count()
    return pairs > 0 and selectors.retained_key_list(language=edition).count() == pairs


def shown_edition_keys_validated(language: str | None = None) -> bool:
    """Whether the edition shown for ``language`` (default: the active language) has its own validated keys: always
    for English (the published key and its validation study); for another edition, once its own validation study has
    retained a key for every dilemma × virtue (`edition_keys_validated`)."""
    edition = edition_language(language)
    return edition == ENGLISH or edition_keys_validated(edition)


def key_counts_recompute(*, candidate_ids: list[int]) -> None:
    """Set N and Y of these (already locked) candidates to the counts of their counting responses, and flag for
    review every automatic decision among them that the new counts no longer carry."""
    counts = selectors.key_counts_from_responses(candidate_ids=candidate_ids)
    for candidate_id in candidate_ids:
        n, y = counts.get(candidate_id, (0, 0))
        KeyCandidate.objects.filter(pk=candidate_id).update(
            n_evaluations=n, n_confirmations=y, updated_at=timezone.now()
        )
    for candidate, reason in integrity.decisions_gone_stale(candidate_ids=candidate_ids):
        candidate.needs_review = True
        candidate.review_reasons = [{"code": "evidence_changed", "message": reason}]
        candidate.save(update_fields=["needs_review", "review_reasons", "updated_at"])
        key_decision_record(candidate=candidate, action=KeyDecision.Action.FLAGGED, reason=reason)


def key_decision_record(
    *,
    candidate: KeyCandidate,
    action: str,
    reason: str,
    user: Any = None,
    related: KeyCandidate | None = None,
    concerns: Sequence[Concern] = (),
    override: bool = False,
) -> KeyDecision:
    evidence = selectors.key_candidate_evidence(candidate=candidate)
    return KeyDecision.objects.create(
        candidate=candidate,
        action=action,
        automatic=user is None,
        override=override,
        decided_by=user,
        decided_by_username=user.get_username() if user is not None else "",
        reason=reason,
        n_evaluations=candidate.n_evaluations,
        n_confirmations=candidate.n_confirmations,
        confirmation_rate=candidate.confirmation_rate,
        wilson_low=evidence.wilson[0] if evidence.wilson else None,
        wilson_high=evidence.wilson[1] if evidence.wilson else None,
        n_corrections=len(evidence.corrections),
        agreement_tau=evidence.agreement_tau,
        related_candidate=related,
        concerns=[vars(concern) for concern in concerns],
    )


def _review_clear(candidate: KeyCandidate) -> None:
    # A researcher's decision, or the rule's on sound evidence, settles whatever review was pending.
    candidate.needs_review = False
    candidate.review_reasons = []


def candidate_hold(*, candidate: KeyCandidate, outcome: PromotionOutcome, concerns: Sequence[Concern]) -> None:
    """The rule would decide `outcome`, but the evidence looks manufactured: hold the candidate for a researcher.

    A held candidate is served to nobody and counts no further answers; its reasons are on it and in the audit trail.
    """
    candidate.status = KeyCandidate.Status.HELD
    candidate.needs_review = True
    candidate.review_reasons = [{"code": concern.code, "message": concern.message} for concern in concerns]
    candidate.save(update_fields=["status", "needs_review", "review_reasons", "updated_at"])
    verb = "retain" if outcome is PromotionOutcome.RETAINED else "reject"
    reason = f"held for review: the rule would {verb} it, but " + "; ".join(c.message for c in concerns)
    key_decision_record(candidate=candidate, action=KeyDecision.Action.HELD, reason=reason, concerns=concerns)


def candidate_retain(*, candidate: KeyCandidate, reason: str, user: Any = None, override: bool = False) -> None:
    """Retain the candidate, superseding its edition's current key of the pair (other editions keep theirs)."""
    now = timezone.now()
    previous = list(
        KeyCandidate.objects.select_for_update()
        .filter(
            dilemma_id=candidate.dilemma_id,
            virtue_id=candidate.virtue_id,
            language=candidate.language,
            status=KeyCandidate.Status.RETAINED,
        )
        .exclude(pk=candidate.pk)
    )
    for old in previous:
        old.status = KeyCandidate.Status.SUPERSEDED
        old.save(update_fields=["status", "updated_at"])
        key_decision_record(
            candidate=old, action=KeyDecision.Action.SUPERSEDED, reason=f"superseded by {candidate}", related=candidate
        )
    candidate.status = KeyCandidate.Status.RETAINED
    candidate.decided_at = now
    _review_clear(candidate)
    candidate.save(update_fields=["status", "decided_at", "needs_review", "review_reasons", "updated_at"])
    key_decision_record(
        candidate=candidate, action=KeyDecision.Action.RETAINED, reason=reason, user=user, override=override
    )


def candidate_reject(*, candidate: KeyCandidate, reason: str, user: Any = None, open_next: bool = True) -> None:
    """Reject the candidate; if `open_next`, open the next round from the Kemeny consensus of its corrections
    (none when there are no corrections: there is nothing to build a consensus from)."""
    was_open = candidate.status in (KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD)
    candidate.status = KeyCandidate.Status.REJECTED
    candidate.decided_at = timezone.now()
    _review_clear(candidate)
    candidate.save(update_fields=["status", "decided_at", "needs_review", "review_reasons", "updated_at"])
    successor = None
    consensus = kemeny_consensus(selectors.key_candidate_evidence(candidate=candidate).corrections)
    if open_next and was_open and consensus is not None:
        successor = KeyCandidate.objects.create(
            dilemma_id=candidate.dilemma_id,
            virtue_id=candidate.virtue_id,
            language=candidate.language,
            ordering="".join(consensus),
            round=candidate.round + 1,
            provenance=KeyCandidate.Provenance.CONSENSUS,
            status=KeyCandidate.Status.OPEN,
        )
        key_decision_record(
            candidate=successor,
            action=KeyDecision.Action.OPENED,
            reason=f"Kemeny consensus of the corrections to {candidate}",
        )
    key_decision_record(
        candidate=candidate, action=KeyDecision.Action.REJECTED, reason=reason, user=user, related=successor
    )


# --- Admin review --------------------------------------------------------------------------------------------


def _reason_required(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ApplicationError("A reason is required.", {"field": "reason"})
    return reason


@transaction.atomic
def key_candidate_promote(*, candidate: KeyCandidate, user: Any, reason: str, override: bool = False) -> KeyCandidate:
    """Retain a candidate by a researcher's decision, superseding the pair's current key in its edition, with the reason
    recorded. An open candidate of the same pair stays open (it may yet supersede this one).

    Guard rail: when the promotion rule would not retain the candidate on its evidence (N ≤ KEY_MIN_EVALUATIONS or
    Y/N below KEY_MIN_CONFIRMATION — e.g. N = 0), the promotion is refused unless `override` is set explicitly; an
    override is marked as such in the decision trail (`KeyDecision.override`) and in the key statistics export.
    """
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status == KeyCandidate.Status.RETAINED:
        raise ApplicationError(f"{candidate} is already retained.")
    rule = promotion_decision(
        candidate.n_evaluations,
        candidate.n_confirmations,
        settings.KEY_MIN_EVALUATIONS,
        settings.KEY_MIN_CONFIRMATION,
    )
    against_rule = rule.outcome is not PromotionOutcome.RETAINED
    if against_rule and not override:
        raise ApplicationError(
            f"The promotion rule does not retain {candidate} (N = {candidate.n_evaluations}, "
            f"Y = {candidate.n_confirmations}; the rule says {rule.outcome.value}). To promote it anyway, choose "
            "“override the rule” and give the reason: the decision is then marked as an override.",
            {"field": "override", "rule": rule.outcome.value},
        )
    candidate_retain(candidate=candidate, reason=reason, user=user, override=against_rule)
    return candidate


@transaction.atomic
def key_candidate_reject(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Reject an open, held or retained candidate by a researcher's decision. An open or held one is treated as
    the rule treats it (the next round opens from the consensus of its corrections); a retained one leaves the pair
    without a key until another is retained."""
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status not in (KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD, KeyCandidate.Status.RETAINED):
        raise ApplicationError(
            f"Only an open, held or retained candidate can be rejected; {candidate} is {candidate.status}."
        )
    candidate_reject(candidate=candidate, reason=reason, user=user)
    return candidate


@transaction.atomic
def key_candidate_reopen(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Put a decided candidate's ordering back to respondents as a new round with fresh counts.

    The candidate itself keeps its status and evidence (history is never rewritten); an open or held round of the
    same pair in the same edition (a held candidate being reopened included) is closed as rejected without a
    successor. Returns the new open candidate, in the candidate's edition.
    """
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status == KeyCandidate.Status.OPEN:
        raise ApplicationError(f"{candidate} is already open.")
    rounds = KeyCandidate.objects.select_for_update().filter(
        dilemma_id=candidate.dilemma_id, virtue_id=candidate.virtue_id, language=candidate.language
    )
    if candidate.needs_review and candidate.status != KeyCandidate.Status.HELD:
        _review_clear(candidate)
        candidate.save(update_fields=["needs_review", "review_reasons", "updated_at"])
    for open_candidate in rounds.filter(status__in=[KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD]):
        candidate_reject(
            candidate=open_candidate, reason=f"closed by reopening {candidate}: {reason}", user=user, open_next=False
        )
    reopened = KeyCandidate.objects.create(
        dilemma_id=candidate.dilemma_id,
        virtue_id=candidate.virtue_id,
        language=candidate.language,
        ordering=candidate.ordering,
        round=rounds.aggregate(last=models.Max("round"))["last"] + 1,
        provenance=candidate.provenance,
        status=KeyCandidate.Status.OPEN,
    )
    key_decision_record(
        candidate=candidate, action=KeyDecision.Action.REOPENED, reason=reason, user=user, related=reopened
    )
    key_decision_record(
        candidate=reopened, action=KeyDecision.Action.OPENED, reason=f"reopened {candidate}: {reason}", user=user
    )
    return reopened


@transaction.atomic
def key_candidate_review_keep(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Settle the review of a retained or rejected candidate flagged after its evidence changed: the decision
    stands, with the researcher's reason in the audit trail. A held candidate needs a decision instead (promote,
    reject or reopen)."""
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status == KeyCandidate.Status.HELD:
        raise ApplicationError(f"{candidate} is held: promote, reject or reopen it.")
    if not candidate.needs_review:
        raise ApplicationError(f"{candidate} awaits no review.")
    _review_clear(candidate)
    candidate.save(update_fields=["needs_review", "review_reasons", "updated_at"])
    key_decision_record(candidate=candidate, action=KeyDecision.Action.REVIEWED, reason=reason, user=user)
    return candidate
