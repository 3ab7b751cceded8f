"""CSV exports of the validation study and their codebooks. Rows come from selectors; nothing here writes."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from instruments.virtuemap import selectors
from scoring.promotion import wilson_interval

RESPONSES_CODEBOOK: list[tuple[str, str]] = [
    ("respondent", "Random UUID of the respondent; the only link between their rows. No personal data."),
    ("candidate", "Id of the key candidate evaluated (see the key statistics export)."),
    ("dilemma", "Dilemma id, D1–D7."),
    ("virtue", "Virtue id (wisdom, justice, truthfulness, courage, temperance)."),
    ("round", "Validation round of the candidate (1 = proposed ordering, 2… = consensus of corrections)."),
    ("candidate_ordering", "The ordering shown for evaluation, most to least expressive, e.g. CBDAE."),
    ("confirmed", "1 if the respondent confirmed the ordering (or submitted it unchanged), else 0."),
    ("submitted_ordering", "The ordering the respondent endorsed: the candidate's when confirmed, else theirs."),
    ("displayed_order", "The order in which the options were first shown to the respondent."),
    ("time_on_item_ms", "Milliseconds from serving the item to the answer."),
    (
        "time_measured_by",
        "Which clock measured time_on_item_ms: client (the page's script, from showing the item to the answer, "
        "or the API client's report) or server (from serving the item); blank before this was recorded.",
    ),
    (
        "presentation",
        "How the item was shown: in_place (the proposed order once, reorderable in place, Confirm and Submit my "
        "correction side by side and equally prominent), api (the study API); blank before this was recorded "
        "(the earlier page: a large Confirm button above a collapsed correction form).",
    ),
    ("submitted_at", "UTC timestamp of the answer (ISO 8601)."),
    ("counted", "1 if the answer arrived while the candidate was open (it then counts unless flagged), else 0."),
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
    ("flagged", "1 if the respondent failed an attention check: the answer is kept but excluded from N and Y."),
    (
        "suspicion",
        "Signs that the consent was automated, comma-separated: honeypot (filled the field people never see), "
        "too_fast (consented sooner than STUDY_CONSENT_MIN_SECONDS after the page was shown), no_form_time (consent "
        "not sent from our form); empty = none. The answer still counts; decide in the analysis.",
    ),
]

KEYS_CODEBOOK: list[tuple[str, str]] = [
    ("candidate", "Id of the key candidate."),
    ("dilemma", "Dilemma id, D1–D7."),
    ("virtue", "Virtue id."),
    ("round", "0 = published key, 1 = proposed ordering, 2… = Kemeny consensus of the previous round's corrections."),
    ("provenance", "published, proposed or consensus."),
    ("ordering", "Options from most to least expressive of the virtue."),
    ("status", "open, retained (the operational key), rejected or superseded."),
    ("n", "N: counted evaluations (answers while open, from respondents not flagged)."),
    ("y", "Y: counted confirmations."),
    ("q", "Y/N, empty when N = 0."),
    ("wilson_low", "Lower bound of the Wilson 95% score interval of q."),
    ("wilson_high", "Upper bound of the Wilson 95% score interval of q."),
    ("decided_at", "UTC timestamp of retention or rejection; empty while open."),
    (
        "override",
        "1 if a researcher decided on this candidate against the promotion rule (e.g. retained it with N = 0), "
        "explicitly and with a reason (see the candidate's audit trail); else 0.",
    ),
]


def _csv(header: list[str], rows: Iterable[list]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def codebook_text(title: str, codebook: list[tuple[str, str]]) -> str:
    lines = [f"# {title}", "", "One row per line of the CSV file; columns:", ""]
    lines += [f"- `{column}`: {meaning}" for column, meaning in codebook]
    return "\n".join(lines) + "\n"


def responses_csv() -> str:
    rows = []
    for response in selectors.validation_responses_for_export():
        respondent, candidate = response.respondent, response.candidate
        rows.append(
            [
                respondent.pk,
                candidate.pk,
                candidate.dilemma_id,
                candidate.virtue_id,
                candidate.round,
                candidate.ordering,
                int(response.confirmed),
                response.ordering,
                response.displayed_order,
                response.time_on_item_ms if response.time_on_item_ms is not None else "",
                response.time_measured_by,
                response.presentation,
                response.submitted_at.isoformat(),
                int(response.counted),
                respondent.consent_version,
                respondent.age_band,
                respondent.gender,
                respondent.country,
                respondent.education,
                respondent.native_language,
                int(respondent.flagged),
                respondent.suspicion,
            ]
        )
    return _csv([column for column, _ in RESPONSES_CODEBOOK], rows)


def key_statistics_csv() -> str:
    rows = []
    for candidate in selectors.key_candidates_for_export():
        n, y = candidate.n_evaluations, candidate.n_confirmations
        wilson = wilson_interval(y, n)
        rows.append(
            [
                candidate.pk,
                candidate.dilemma_id,
                candidate.virtue_id,
                candidate.round,
                candidate.provenance,
                candidate.ordering,
                candidate.status,
                n,
                y,
                f"{y / n:.6f}" if n else "",
                f"{wilson[0]:.6f}" if wilson else "",
                f"{wilson[1]:.6f}" if wilson else "",
                candidate.decided_at.isoformat() if candidate.decided_at else "",
                int(candidate.overridden),
            ]
        )
    return _csv([column for column, _ in KEYS_CODEBOOK], rows)
