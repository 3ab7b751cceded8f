"""What every study's export says about a respondent: the columns after an answer's own, and their codebook."""

from __future__ import annotations

from surveys.models import Respondent

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
