"""CSV exports of the validation study and their codebooks (`AdminExport`s, downloaded from the key candidates' admin
list). Rows come from selectors; nothing here writes."""

from __future__ import annotations

from collections.abc import Iterator

from instruments.virtuemap import selectors
from scoring.promotion import wilson_interval
from surveys.exports import RESPONDENT_CODEBOOK, respondent_columns
from virtuemap_site.admin_mixins import AdminExport

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
    (
        "language",
        "The edition the item was shown in (en or zh-hans): the language the respondent consented in, kept for the "
        "whole study whatever the interface's language; the answer counts only for this edition's candidate. Answers "
        "stored before this was recorded carry their consent's language.",
    ),
    ("submitted_at", "UTC timestamp of the answer (ISO 8601)."),
    ("counted", "1 if the answer arrived while the candidate was open (it then counts unless flagged), else 0."),
    *RESPONDENT_CODEBOOK,
]

KEYS_CODEBOOK: list[tuple[str, str]] = [
    ("candidate", "Id of the key candidate."),
    ("dilemma", "Dilemma id, D1–D7."),
    ("virtue", "Virtue id."),
    ("round", "0 = published key, 1 = proposed ordering, 2… = Kemeny consensus of the previous round's corrections."),
    ("provenance", "published, proposed, consensus, or english_key (a translated edition's first round)."),
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
    ("language", "The edition whose respondents validate the candidate: en or zh-hans (each has its own keys)."),
]


def response_rows() -> Iterator[list]:
    for response in selectors.validation_responses_for_export():
        respondent, candidate = response.respondent, response.candidate
        yield [
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
            response.language,
            response.submitted_at.isoformat(),
            int(response.counted),
            *respondent_columns(respondent),
        ]


def key_statistics_rows() -> Iterator[list]:
    for candidate in selectors.key_candidates_for_export():
        n, y = candidate.n_evaluations, candidate.n_confirmations
        wilson = wilson_interval(y, n)
        yield [
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
            candidate.language,
        ]


PROFILING_CODEBOOK: list[tuple[str, str]] = [
    ("respondent", "Random UUID of the respondent who consented to research use; the only link between their rows."),
    ("dilemma", "Dilemma id, D1–D7: one row per dilemma the respondent answered or skipped."),
    ("ranking", "The respondent's ranking, most to least ethically preferable, e.g. CBADE; empty when skipped."),
    ("skipped", "1 if the respondent skipped the dilemma, else 0."),
    ("start_order", "The order the responses were first shown in (random per person); empty before this was recorded."),
    ("kept_unmoved", "1 if the respondent chose “I have not moved anything” and kept the order shown, else 0."),
    (
        "language",
        "The edition the dilemmas were shown in (en or zh-hans), kept for the whole questionnaire: the language of "
        "its first dilemma (the consent's, for someone who consented first).",
    ),
    (
        "key_languages",
        "The editions whose retained keys scored this dilemma's virtues, space-separated (en, zh-hans): the "
        "questionnaire's edition where it has a key, else en; empty when skipped or stored before this was recorded.",
    ),
    ("updated_at", "UTC timestamp of the last answer stored (ISO 8601). The questionnaire records no time per item."),
    *RESPONDENT_CODEBOOK,
]


def profiling_rows() -> Iterator[list]:
    for submission in selectors.profiling_submissions_for_export():
        respondent = submission.respondent
        for dilemma, ranking in submission.rankings.items():
            editions = sorted(set((submission.key_language.get(dilemma) or {}).values())) if ranking else []
            yield [
                respondent.pk,
                dilemma,
                ranking or "",
                int(ranking is None),
                submission.start_orders.get(dilemma, ""),
                int(dilemma in submission.kept_unmoved),
                submission.language,
                " ".join(editions),
                submission.updated_at.isoformat(),
                *respondent_columns(respondent),
            ]


PROFILING_ANSWERS = AdminExport(
    name="answers",
    title="Profiling answers",
    filename="profiling-answers",
    permission="virtuemap.view_profilingsubmission",
    codebook=PROFILING_CODEBOOK,
    rows=profiling_rows,
)
RESPONSES = AdminExport(
    name="responses",
    title="Validation responses",
    filename="validation-responses",
    permission="virtuemap.view_validationresponse",
    codebook=RESPONSES_CODEBOOK,
    rows=response_rows,
)
KEY_STATISTICS = AdminExport(
    name="keys",
    title="Key statistics",
    filename="key-statistics",
    permission="virtuemap.view_keycandidate",
    codebook=KEYS_CODEBOOK,
    rows=key_statistics_rows,
)
