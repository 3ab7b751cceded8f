"""Evidence integrity of the validation study: which automatic key decisions wait for a researcher.

Two rules (docs/threat-model.md), applied by `surveys.services` in the transaction that would take or has taken a
decision:

- **Hold for review.** When the promotion rule would retain a candidate whose ordering differs from the pair's current
  key, or reject one (which opens the next round from its corrections' consensus, so chooses what respondents see
  next), and its counted evidence looks manufactured (`scoring.integrity.evidence_concerns`: answers too fast, in a
  burst, from one network, identical corrections, suspicious or failing respondents, a key turned upside down), the
  candidate is HELD with the reasons instead, and a researcher promotes, rejects or reopens it in admin. A retention
  that keeps the current key's ordering changes no ground truth and is never held. KEY_REVIEW_HOLD=false turns the
  rule off.
- **Decisions follow their evidence.** When withdrawals or failed attention checks take a candidate that the rule
  retained or rejected below that verdict (the rule, applied to its N and Y now, says otherwise), the decision is
  flagged for review and the audit trail says so; the key stays as it is until a researcher decides.

Only reads here; the writes are the services'.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import OuterRef, Q, Subquery

from instruments.virtuemap.models import Assignment, KeyCandidate, KeyDecision, ValidationResponse
from instruments.virtuemap.selectors import COUNTING
from scoring.integrity import Concern, EvidenceItem, IntegrityThresholds, evidence_concerns
from scoring.promotion import PromotionOutcome, promotion_decision
from surveys.models import Respondent

# Suspicion codes that weigh in the review: signs a script leaves. "too_fast" is left out: many honest people
# tick the consent box within seconds.
AUTOMATION_CODES = (
    Respondent.Suspicion.HONEYPOT,
    Respondent.Suspicion.NO_FORM_TIME,
    Respondent.Suspicion.FORM_TIME_REUSED,
)


def thresholds() -> IntegrityThresholds:
    return IntegrityThresholds(min_item_seconds=settings.KEY_REVIEW_MIN_ITEM_SECONDS)


def candidate_evidence_items(*, candidate: KeyCandidate) -> list[EvidenceItem]:
    """The counted responses of a candidate as `scoring.integrity.EvidenceItem`s (seconds on item by the server's
    clock, from serving the assignment to storing the response)."""
    served_at = Assignment.objects.filter(
        respondent=OuterRef("respondent"), candidate=OuterRef("candidate"), kind=Assignment.Kind.VALIDATION
    ).values("served_at")[:1]
    rows = (
        ValidationResponse.objects.filter(COUNTING, candidate=candidate)
        .annotate(served_at=Subquery(served_at))
        .values_list(
            "submitted_at", "served_at", "respondent__network_bucket", "respondent__suspicion", "ordering", "confirmed"
        )
    )
    return [
        EvidenceItem(
            seconds_on_item=(submitted - served).total_seconds() if served else None,
            answered_at=submitted.timestamp(),
            network=network,
            ordering=ordering,
            confirmed=confirmed,
            suspicious=any(code in suspicion.split(",") for code in AUTOMATION_CODES),
        )
        for submitted, served, network, suspicion, ordering, confirmed in rows
    ]


def failed_respondent_count(*, candidate: KeyCandidate) -> int:
    """Respondents who answered the candidate while it was open and were then excluded for a failed check."""
    failed = Q(counted=True, respondent__flagged=True, respondent__attention_checks_failed__gt=0)
    return candidate.responses.filter(failed).count()


def current_key(*, candidate: KeyCandidate) -> KeyCandidate | None:
    """The key that scores the candidate's pair in its edition today: the edition's retained key, else (for a
    translated edition) the English one, which scoring falls back to."""
    retained = KeyCandidate.objects.filter(
        dilemma_id=candidate.dilemma_id, virtue_id=candidate.virtue_id, status=KeyCandidate.Status.RETAINED
    ).exclude(pk=candidate.pk)
    own = retained.filter(language=candidate.language).first()
    return own if own is not None or candidate.language == "en" else retained.filter(language="en").first()


def decision_concerns(*, candidate: KeyCandidate, outcome: PromotionOutcome) -> tuple[Concern, ...]:
    """Why the rule's `outcome` for this candidate should wait for a researcher; () when it may stand at once."""
    if not settings.KEY_REVIEW_HOLD or outcome is PromotionOutcome.UNDECIDED:
        return ()
    new_key = current = None
    if outcome is PromotionOutcome.RETAINED:
        key = current_key(candidate=candidate)
        if key is not None and key.ordering == candidate.ordering:
            return ()  # the ground truth does not change
        current, new_key = (key.ordering if key else None), candidate.ordering
    return evidence_concerns(
        candidate_evidence_items(candidate=candidate),
        failed_respondents=failed_respondent_count(candidate=candidate),
        current_key=current,
        new_key=new_key,
        thresholds=thresholds(),
    )


def decisions_gone_stale(*, candidate_ids: list[int]) -> list[tuple[KeyCandidate, str]]:
    """The candidates among these that the rule decided automatically and whose counts no longer carry that verdict,
    each with a sentence saying so; already flagged ones are left out."""
    stale = []
    candidates = KeyCandidate.objects.filter(
        pk__in=candidate_ids,
        status__in=[KeyCandidate.Status.RETAINED, KeyCandidate.Status.REJECTED],
        needs_review=False,
    )
    for candidate in candidates:
        decision = (
            candidate.decisions.filter(action__in=[KeyDecision.Action.RETAINED, KeyDecision.Action.REJECTED])
            .order_by("-created_at", "-id")
            .first()
        )
        if decision is None or not decision.automatic:
            continue
        verdict = promotion_decision(
            candidate.n_evaluations,
            candidate.n_confirmations,
            settings.KEY_MIN_EVALUATIONS,
            settings.KEY_MIN_CONFIRMATION,
        ).outcome
        if verdict.value != candidate.status:
            stale.append(
                (
                    candidate,
                    f"the rule {candidate.status} it at N={decision.n_evaluations}, Y={decision.n_confirmations}; "
                    f"after withdrawals or failed checks N={candidate.n_evaluations}, Y={candidate.n_confirmations} "
                    f"no longer carry that verdict ({verdict.value})",
                )
            )
    return stale
