"""The people's pairwise answers as a CSV export with its codebook (an `AdminExport`, downloaded from the pairwise
answers' admin list). One row per answer, in the order each respondent gave them; nothing here writes."""

from __future__ import annotations

from collections.abc import Iterator

from instruments.transitivity.models import PairwiseAnswer
from instruments.transitivity.questionnaire import shown_first_and_second
from surveys.exports import RESPONDENT_CODEBOOK, respondent_columns
from virtuemap_site.admin_mixins import AdminExport

PAIRWISE_CODEBOOK: list[tuple[str, str]] = [
    ("respondent", "Random UUID of the respondent; the only link between their rows. No personal data."),
    ("position", "1-based position of the choice in the respondent's sequence (the order it was asked)."),
    ("block", "Severity block of the two situations (1 = the most severe violations)."),
    ("x", "Principle code of the pair's first alternative in the principles' order (A, Ce, Cp, F, Li, Lo, S)."),
    ("y", "Principle code of the pair's second alternative (after x in that order)."),
    ("order", "original (Situation 1 showed x) or reversed (Situation 1 showed y)."),
    ("repetition", "Which showing of this pair in this order (1 = the first)."),
    ("situation_1", "Principle code of the situation shown first (Situation 1)."),
    ("situation_2", "Principle code of the situation shown second (Situation 2)."),
    ("situation", "The situation the respondent judged morally worse: 1 or 2."),
    ("chosen", "Principle code of the situation judged worse."),
    ("x_worse", "1 if x was judged worse than y, else 0: the choice as P_xy counts it."),
    ("time_on_item_ms", "Milliseconds from showing the choice to the answer; empty when not measured."),
    (
        "language",
        "The edition the choice was shown in (en: the vignettes exist in English only, whatever the interface's "
        "language).",
    ),
    ("answered_at", "UTC timestamp of the answer (ISO 8601)."),
    ("completed", "1 if the respondent answered every choice of their sequence, else 0."),
    *RESPONDENT_CODEBOOK,
]


def pairwise_answer_rows() -> Iterator[list]:
    answers = PairwiseAnswer.objects.select_related("session__respondent").order_by("answered_at", "pk")
    for answer in answers.iterator(chunk_size=2000):
        item, value, session = answer.item, answer.value, answer.session
        first, second = shown_first_and_second(item)
        yield [
            session.respondent_id,
            answer.position,
            item["block"],
            item["x"],
            item["y"],
            item["order"],
            item.get("repetition", 1),
            first,
            second,
            value["situation"],
            value["chosen"],
            int(value["chosen"] == item["x"]),
            "" if answer.time_on_item_ms is None else answer.time_on_item_ms,
            answer.language,
            answer.answered_at.isoformat(),
            int(session.completed_at is not None),
            *respondent_columns(session.respondent),
        ]


PAIRWISE_ANSWERS = AdminExport(
    name="answers",
    title="Pairwise answers",
    filename="pairwise-answers",
    permission="transitivity.view_pairwiseanswer",
    codebook=PAIRWISE_CODEBOOK,
    rows=pairwise_answer_rows,
)
