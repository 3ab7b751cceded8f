"""Answer-quality diagnostics of people: position following and straight-lining of one respondent's questionnaire.

The instrument's questionnaire says how each stored answer relates to the way its item was shown
(`Questionnaire.presented`); the statistics and flags are `scoring.diagnostics.respondent_diagnostics`, with the
thresholds of the settings DIAGNOSTICS_*. A flag is an additional quality signal for the analysis, shown with its
reason in the admin: it never excludes a respondent or an answer from anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from operator import itemgetter
from typing import Any

from django.conf import settings

from instruments import registry
from instruments.base import Questionnaire
from scoring.diagnostics import Thresholds, diagnostics_lines, respondent_diagnostics
from surveys.models import QuestionnaireAnswer, QuestionnaireSession
from surveys.questionnaire import questionnaire_for


def session_diagnostics(*, session: QuestionnaireSession) -> dict[str, Any] | None:
    """The diagnostics record of a questionnaire session's stored answers (so far), or None when it has none or its
    study no longer has a shared questionnaire."""
    # In position order (the model's ordering), from the prefetched answers when the caller prefetched them.
    answered = list(session.answers.all())
    items, answers = [answer.item for answer in answered], [answer.value for answer in answered]
    try:
        questionnaire = questionnaire_for(session.respondent.study)
    except registry.UnknownInstrument:
        return None
    return answers_diagnostics(questionnaire=questionnaire, items=items, answers=answers)


def answers_diagnostics(
    *, questionnaire: Questionnaire, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]
) -> dict[str, Any] | None:
    """The diagnostics record of one respondent's answered ``items`` and their ``answers`` (same order), None
    without answers."""
    if not answers:
        return None
    presented = [questionnaire.presented(item, answer) for item, answer in zip(items, answers, strict=True)]
    return respondent_diagnostics(
        answers=[(shown.ranking, shown.first_shown) for shown in presented],
        thresholds=Thresholds(
            alpha=settings.DIAGNOSTICS_ALPHA,
            label_mass_min=settings.DIAGNOSTICS_LABEL_MASS_MIN,
            failure_share_max=settings.DIAGNOSTICS_FAILURE_SHARE_MAX,
        ),
        min_items=settings.DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS,
    )


def study_flagged_count(*, study: str) -> int | None:
    """How many respondents of a shared-questionnaire ``study`` carry an answer-quality flag, from one query over
    its answers (in respondent and position order); None when the study has no shared questionnaire."""
    try:
        questionnaire = questionnaire_for(study)
    except registry.UnknownInstrument:
        return None
    rows = (
        QuestionnaireAnswer.objects.filter(session__respondent__study=study)
        .order_by("session_id", "position")
        .values_list("session_id", "item", "value")
    )
    flagged = 0
    for _, group in groupby(rows.iterator(chunk_size=2000), key=itemgetter(0)):
        answered = list(group)
        record = answers_diagnostics(
            questionnaire=questionnaire, items=[row[1] for row in answered], answers=[row[2] for row in answered]
        )
        flagged += bool(record and record["flags"])
    return flagged


def flags_text(record: dict[str, Any] | None) -> str:
    """A record's flags in one line for an admin column: the codes, "none", or "—" without answers."""
    if record is None:
        return "—"
    return ", ".join(flag["code"] for flag in record["flags"]) or "none"


def summary_lines(record: dict[str, Any] | None) -> list[str]:
    """The flags with their reasons, then the figures (`scoring.diagnostics.diagnostics_lines`), as lines of text for
    the admin, ending with what a flag means."""
    if record is None:
        return ["No answers yet: nothing to check."]
    return [*diagnostics_lines(record), "A flag informs the analysis; it excludes no one."]
