"""Answer-quality diagnostics of people: position following and straight-lining of one respondent's questionnaire.

The instrument's questionnaire says how each stored answer relates to the way its item was shown
(`Questionnaire.presented`); the statistics and flags are `scoring.diagnostics.respondent_diagnostics`, with the
thresholds of the settings DIAGNOSTICS_*. A flag is an additional quality signal for the analysis, shown with its
reason in the admin: it never excludes a respondent or an answer from anything.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from instruments import registry
from scoring.diagnostics import Thresholds, diagnostics_lines, respondent_diagnostics
from surveys.models import QuestionnaireSession
from surveys.questionnaire import questionnaire_answers, questionnaire_for


def session_diagnostics(*, session: QuestionnaireSession) -> dict[str, Any] | None:
    """The diagnostics record of a questionnaire session's stored answers (so far), or None when it has none or its
    study no longer has a shared questionnaire."""
    items, answers = questionnaire_answers(session=session)
    if not answers:
        return None
    try:
        questionnaire = questionnaire_for(session.respondent.study)
    except registry.UnknownInstrument:
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
