"""Reads of the respondent flow: consent texts and respondents."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils.translation import get_language

from instruments import registry
from instruments.base import StudyLength
from surveys.models import ConsentText, QuestionnaireAnswer, Respondent

DEFAULT_LANGUAGE = "en"


def language_of_text(language: str | None) -> str:
    """The consent-text language for a request language: any Chinese code ("zh", "zh-hans", "zh_Hans") becomes
    "zh-hans", the only Chinese the texts are written in; "en-us" becomes "en"; None is the active language of the
    request (`django.utils.translation.get_language`)."""
    language = (language or get_language() or DEFAULT_LANGUAGE).lower().replace("_", "-")
    return "zh-hans" if language.split("-")[0] == "zh" else language.split("-")[0]


def consent_text_current(*, study: str, language: str | None = None) -> ConsentText | None:
    """The current consent text of ``study`` in ``language`` (default: the request's), else in English."""
    wanted = language_of_text(language)
    texts = {text.language: text for text in ConsentText.objects.filter(study=study, is_current=True)}
    return texts.get(wanted) or texts.get(DEFAULT_LANGUAGE)


def respondent_by_token(*, token: str, study: str | None = None) -> Respondent | None:
    """The respondent holding this API token (compared by its SHA-256), or None."""
    if not token:
        return None
    respondents = Respondent.objects.filter(token_hash=hashlib.sha256(token.encode()).hexdigest())
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()


def respondent_token_expired(*, respondent: Respondent, now: datetime | None = None) -> bool:
    """Whether the respondent's API token has outlived STUDY_TOKEN_TTL_HOURS since consent."""
    from django.conf import settings
    from django.utils import timezone

    lifetime = timedelta(hours=settings.STUDY_TOKEN_TTL_HOURS)
    return (now or timezone.now()) > respondent.consented_at + lifetime


def respondent_by_id(*, respondent_id: object, study: str | None = None) -> Respondent | None:
    respondents = Respondent.objects.filter(pk=respondent_id)
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()


def respondent_by_reference(*, reference: str, study: str | None = None) -> Respondent | None:
    """The respondent whose participant reference this is (compared by its keyed hash), or None; any spelling
    `surveys.references.reference_normalise` accepts."""
    from surveys.references import reference_hash, reference_normalise

    normalised = reference_normalise(reference)
    if normalised is None:
        return None
    respondents = Respondent.objects.filter(reference_hash=reference_hash(normalised))
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()


@dataclass(frozen=True)
class StudyInformation:
    """What every information sheet states besides its text: who answers for the study, and what taking part asks."""

    researcher: str
    institution: str
    contact: str
    ethics_reference: str
    length: StudyLength | None


def study_length(
    *, study: str, options: Mapping[str, Any] | None = None, language: str | None = None
) -> StudyLength | None:
    """How many pages ``study`` asks of a respondent (under the link's design ``options``) and about how many minutes:
    the one computation behind every page, sheet and API that states a study's length (its instrument's
    `study_length`). ``language``: that of the consent text the respondent reads (None: this request's)."""
    declared = registry.study(study)
    return registry.instrument(declared.instrument).study_length(study, options or {}, language=language)


def study_information(*, text: ConsentText, options: Mapping[str, Any] | None = None) -> StudyInformation:
    """The details of ``text``'s study: each of researcher, institution, contact and ethics reference from the text,
    else from its setting (STUDY_RESEARCHER, …); the number of pages and the time from the instrument's
    `study_length` under the link's design ``options``, so that the sheet always says what the study asks."""
    details = {
        name: getattr(text, name) or getattr(settings, f"STUDY_{name.upper()}") for name in ConsentText.DETAIL_FIELDS
    }
    length = study_length(study=text.study, options=options, language=text.language)
    return StudyInformation(**details, length=length)


# --- public aggregates of people -------------------------------------------------------------------------------

# Whose answers may enter an aggregate a public page shows: respondents neither flagged (a failed attention check, a
# panel ID that already took part) nor showing a sign of automation (`Respondent.suspicion`).
PUBLIC_RESPONDENT = Q(flagged=False, suspicion="")


def public_respondents() -> QuerySet[Respondent]:
    """The respondents whose answers may enter a public aggregate of people (`PUBLIC_RESPONDENT`)."""
    return Respondent.objects.filter(PUBLIC_RESPONDENT)


def public_questionnaire_answers(*, instrument: str) -> QuerySet[QuestionnaireAnswer]:
    """The shared questionnaire's answers to ``instrument`` that may enter a public aggregate of people: those of
    `public_respondents`."""
    return QuestionnaireAnswer.objects.filter(
        session__instrument=instrument, session__respondent__in=public_respondents()
    )


def enough_people(respondents: int) -> bool:
    """Whether an aggregate of ``respondents`` people may be shown publicly (pages, downloads, APIs): at least
    PUBLIC_AGGREGATE_MIN_RESPONDENTS of them, so that no one person's answers can be read from it."""
    return respondents >= settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS
