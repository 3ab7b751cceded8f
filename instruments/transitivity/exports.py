"""The people's pairwise answers as a CSV export with its codebook (an `AdminExport`, downloaded from the pairwise
answers' admin list): the shared questionnaire's export of the study, with the pair's columns
(`PairwiseQuestionnaire.export_columns`). Nothing here writes."""

from __future__ import annotations

from instruments.transitivity.plugin import STUDY
from surveys.exports import questionnaire_answers_export

PAIRWISE_ANSWERS = questionnaire_answers_export(
    STUDY,
    name="answers",
    title="Pairwise answers",
    filename="pairwise-answers",
    permission="transitivity.view_pairwiseanswer",
)
