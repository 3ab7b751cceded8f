"""Reads for the surveys app."""

from __future__ import annotations

import hashlib

from django.db.models import Prefetch, QuerySet

from surveys.models import ConsentText, Dilemma, KeyCandidate, Option, Respondent, Virtue


def virtue_list() -> QuerySet[Virtue]:
    return Virtue.objects.all()


def dilemma_list_with_options() -> QuerySet[Dilemma]:
    return Dilemma.objects.prefetch_related(Prefetch("options", queryset=Option.objects.order_by("letter")))


def retained_key_list() -> QuerySet[KeyCandidate]:
    return KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).select_related("dilemma", "virtue")


def retained_key_map() -> dict[str, dict[str, tuple[str, ...]]]:
    """Retained keys as plain data for `scoring`: dilemma id → virtue id → ordering."""
    keys: dict[str, dict[str, tuple[str, ...]]] = {}
    for dilemma_id, virtue_id, ordering in retained_key_list().values_list("dilemma_id", "virtue_id", "ordering"):
        keys.setdefault(dilemma_id, {})[virtue_id] = tuple(ordering)
    return keys


def consent_text_current(*, study: str) -> ConsentText | None:
    return ConsentText.objects.filter(study=study, is_current=True).first()


def respondent_by_token(*, token: str, study: str | None = None) -> Respondent | None:
    """The respondent holding this API token (compared by its SHA-256), or None."""
    if not token:
        return None
    respondents = Respondent.objects.filter(token_hash=hashlib.sha256(token.encode()).hexdigest())
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()


def respondent_by_id(*, respondent_id: object, study: str | None = None) -> Respondent | None:
    respondents = Respondent.objects.filter(pk=respondent_id)
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()
