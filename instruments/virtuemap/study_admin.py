"""VirtueMap's part of the researchers' admin: its column in the respondents' list (how often a respondent simply
confirmed), where its studies' answers are, and the key candidates nearest a decision on the study dashboard.

`plugin.VirtueMap` hands these to the platform through the instrument contract, so `surveys` stays instrument-agnostic.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, OuterRef, Q, Subquery

from instruments.base import DashboardTable, RespondentAnswerTable, RespondentColumn, StudyAnswers
from instruments.virtuemap.models import KeyCandidate, ProfilingSubmission, ValidationResponse
from instruments.virtuemap.studies import PROFILING, VALIDATION
from scoring.diagnostics import binomial_share
from scoring.promotion import evaluations_to_decision, promotion_decision, wilson_interval
from surveys.models import Respondent

# How many open candidates the dashboard lists, nearest a decision first.
NEAR_DECISION_ROWS = 10


def confirmation_share_column() -> RespondentColumn:
    # The whole study's verdicts beside each respondent's, in the list's one query.
    study = (
        Respondent.objects.filter(study=OuterRef("study"))
        .order_by()
        .values("study")
        .annotate(
            n=Count("validation_responses"),
            y=Count("validation_responses", filter=Q(validation_responses__confirmed=True)),
        )
    )
    return RespondentColumn(
        name="confirmed_share",
        title="confirmed (study share; p)",
        annotations={
            "vm_responses": Count("validation_responses", distinct=True),
            "vm_confirmed": Count(
                "validation_responses", filter=Q(validation_responses__confirmed=True), distinct=True
            ),
            "vm_study_responses": Subquery(study.values("n")),
            "vm_study_confirmed": Subquery(study.values("y")),
        },
        render=confirmation_share_text,
    )


def confirmation_share_text(respondent: Respondent) -> str:
    """The share of a validation respondent's verdicts that simply confirmed the ordering shown, beside the whole
    study's share and a one-sided exact binomial test of "confirms more than the study"; "—" without verdicts."""
    n = getattr(respondent, "vm_responses", 0)
    if not n:
        return "—"
    confirmed = respondent.vm_confirmed
    study_n = respondent.vm_study_responses or 0
    study = respondent.vm_study_confirmed / study_n if study_n else None
    text = f"{confirmed} of {n} ({100 * confirmed / n:.0f} %)"
    if study is None or not 0 < study < 1:
        return text
    test = binomial_share(confirmed, n, study)
    return f"{text}; study {100 * study:.0f} %; p = {test['p_value']:.2g}"


ANSWER_TABLES = (
    RespondentAnswerTable(
        model="virtuemap.ValidationResponse",
        fields=(
            "candidate",
            "confirmed",
            "ordering",
            "displayed_order",
            "presentation",
            "time_on_item_ms",
            "counted",
            "submitted_at",
        ),
        study=VALIDATION,
    ),
    RespondentAnswerTable(
        model="virtuemap.ProfilingSubmission",
        fields=("rankings", "start_orders", "kept_unmoved", "scores", "created_at", "updated_at"),
        study=PROFILING,
    ),
)


def study_answers(study: str) -> StudyAnswers | None:
    if study == VALIDATION:
        return StudyAnswers(ValidationResponse.objects.all(), answered_at="submitted_at", time_ms="time_on_item_ms")
    if study == PROFILING:
        # One submission per respondent, its seven rankings together: no time per item is measured.
        return StudyAnswers(ProfilingSubmission.objects.all(), answered_at="created_at")
    return None


def candidates_near_decision() -> DashboardTable:
    """The open key candidates that the fewest further evaluations could decide (`evaluations_to_decision`), with N,
    Y, q and the Wilson 95 % interval; one query over the open candidates (at most one per dilemma, virtue and
    edition)."""
    rows = []
    for candidate in KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN):
        n, y = candidate.n_evaluations, candidate.n_confirmations
        decision = promotion_decision(n, y, settings.KEY_MIN_EVALUATIONS, settings.KEY_MIN_CONFIRMATION)
        wilson = wilson_interval(y, n)
        rows.append(
            (
                evaluations_to_decision(decision),
                # The English edition's rows read as they always did; another edition's name their language.
                f"{candidate.dilemma_id} × {candidate.virtue_id}"
                + ("" if candidate.language == "en" else f" ({candidate.language})"),
                candidate.round,
                candidate.ordering,
                n,
                y,
                "—" if not n else f"{y / n:.3f}",
                "—" if wilson is None else f"{wilson[0]:.3f}–{wilson[1]:.3f}",
            )
        )
    rows.sort(key=lambda row: (row[0], row[1]))
    return DashboardTable(
        title="Key candidates nearest a decision",
        header=("evaluations to a decision", "candidate", "round", "ordering", "N", "Y", "q", "Wilson 95%"),
        rows=rows[:NEAR_DECISION_ROWS],
        note=(
            f"Open candidates only. A candidate is retained when N > {settings.KEY_MIN_EVALUATIONS} and q ≥ "
            f'{settings.KEY_MIN_CONFIRMATION}; "evaluations to a decision" is the fewest further answers after which '
            "the rule could retain or reject it."
        ),
    )
