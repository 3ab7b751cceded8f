"""What every study's export says about a respondent: the columns after an answer's own, and their codebook."""

from __future__ import annotations

from collections.abc import Iterator

from surveys.models import QuestionnaireAnswer, Respondent
from virtuemap_site.admin_mixins import AdminExport

RESPONDENT_CODEBOOK: list[tuple[str, str]] = [
    ("consent_version", "Version of the consent text the respondent agreed to."),
    ("age_band", "Optional: 18-24, 25-34, 35-44, 45-54, 55-64, 65+; empty = not answered."),
    ("gender", "Optional: woman, man, non-binary, other; empty = not answered."),
    ("country", "Optional: ISO 3166-1 alpha-2 code of the country lived in, or 'other'; empty = not answered."),
    ("education", "Optional: secondary, vocational, undergraduate, postgraduate; empty = not answered."),
    (
        "native_language",
        "Optional: ISO 639-1 code of the native language (en, es, zh, …), or 'other'; empty = not "
        "answered. Answers stored as 'english' before the ISO list are 'en'.",
    ),
    (
        "flagged",
        "1 if the respondent failed an attention check or came with a panel ID that already took part: the answer is "
        "kept (the validation study leaves it out of N and Y).",
    ),
    (
        "suspicion",
        "Signs that the consent was automated, comma-separated: honeypot (filled the field people never see), "
        "too_fast (consented sooner than STUDY_CONSENT_MIN_SECONDS after the page was shown), no_form_time (consent "
        "not sent from our page, or its display time forged or older than three hours), form_time_reused (the "
        "page's display time was issued to another browser or used by an earlier consent), panel_id_reused (came "
        "with a panel ID that already took part); empty = none. The answer still counts (a panel_id_reused "
        "respondent's validation answers are left out of N and Y); decide in the analysis.",
    ),
]


def respondent_columns(respondent: Respondent) -> list:
    """The values of `RESPONDENT_CODEBOOK`'s columns for one respondent."""
    return [
        respondent.consent_version,
        respondent.age_band,
        respondent.gender,
        respondent.country,
        respondent.education,
        respondent.native_language,
        int(respondent.flagged),
        respondent.suspicion,
    ]


def questionnaire_answers_export(
    study: str,
    *,
    name: str | None = None,
    title: str | None = None,
    filename: str | None = None,
    permission: str = "surveys.view_questionnairesession",
) -> AdminExport:
    """The CSV export of a shared-questionnaire study's answers with its codebook: one row per answer, in the order
    each respondent gave them; the instrument's own columns (`Questionnaire.export_columns`) after the position, then
    time on item, the edition shown, the answer's time, and the respondent's columns."""
    from instruments import registry
    from surveys.questionnaire import questionnaire_for

    questionnaire = questionnaire_for(study)
    codebook = [
        ("respondent", "Random UUID of the respondent; the only link between their rows. No personal data."),
        ("position", "1-based position of the item in the respondent's sequence (the order it was asked)."),
        *questionnaire.export_columns,
        (
            "time_on_item_ms",
            "Milliseconds from showing the item to the answer (the page's clock); empty when not "
            "measured or implausible (longer than since the answer before).",
        ),
        (
            "language",
            "The edition the item was shown in (en, zh-hans): the instrument's edition of the language the "
            "respondent consented in, kept for the whole study whatever the interface's language.",
        ),
        ("answered_at", "UTC timestamp of the answer (ISO 8601); of the last change when it was changed with Back."),
        (
            "changed",
            "How many times the respondent changed this answer with Back before finishing (0 = never); the "
            "earlier answers are kept in admin.",
        ),
        ("completed", "1 if the respondent answered every item of their sequence, else 0."),
        *RESPONDENT_CODEBOOK,
    ]

    def rows() -> Iterator[list]:
        answers = (
            QuestionnaireAnswer.objects.filter(session__respondent__study=study)
            .select_related("session__respondent")
            .order_by("session__created_at", "session_id", "position")
        )
        for answer in answers.iterator(chunk_size=2000):
            session = answer.session
            yield [
                session.respondent_id,
                answer.position,
                *questionnaire.export_values(answer.item, answer.value),
                "" if answer.time_on_item_ms is None else answer.time_on_item_ms,
                answer.language,
                answer.answered_at.isoformat(),
                len(answer.replaced),
                int(session.completed_at is not None),
                *respondent_columns(session.respondent),
            ]

    name = name or study
    return AdminExport(
        name=name,
        title=title or f"{registry.study(study).name}: answers",
        filename=filename or f"{study}-answers",
        permission=permission,
        codebook=codebook,
        rows=rows,
    )
