"""A tiny instrument that exists only in the test suite, to prove the recipe of docs/adding-an-instrument.md.

Three yes/no questions, asked ``replicates`` times each; the answer is read from the reply's first word; the result is
the share of "yes" per question. It has no models of its own: its items are a constant, so it needs no app and no
migration — everything else (the engine, the result store, the commands, the API, consent and the people's
questionnaire) comes from the platform. People answer the same questions in the study "toy-people", one per page,
through the shared questionnaire flow; its three small templates are in tests/instruments/templates/toy/.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from instruments.base import (
    Answer,
    AnswerRejected,
    AnswerStatus,
    Identity,
    Instrument,
    PlanOption,
    Questionnaire,
    RunContext,
    Stop,
    StoredTrial,
    Study,
    TrialSpec,
)
from llmruns.backends.base import Completion
from llmruns.modes import GeneratedAnswer, TrialWork

QUESTIONS = {
    "q1": "Is it wrong to break a promise to a friend?",
    "q2": "Is it wrong to lie to protect someone's feelings?",
    "q3": "Is it wrong to take credit for a colleague's work?",
}


def read_yes_no(trial: TrialWork, completion: Completion) -> Answer:
    words = completion.text.strip().lower().split()
    first = words[0].strip(".,!") if words else ""
    if first in ("yes", "no"):
        return Answer(AnswerStatus.VALID, value=first)
    return Answer(AnswerStatus.UNPARSEABLE, detail="the reply starts with neither yes nor no")


STUDY = "toy-people"
CONSENT = {
    "version": "1",
    "title": "Three yes/no questions",
    "information_sheet": "You answer three short questions. Your answers are stored anonymously.",
    "consent_statement": "I agree to take part.",
}


class YesNoQuestionnaire(Questionnaire):
    """The three questions in a random order, one per page, answered yes or no."""

    title = "Three yes/no questions"
    intro_template = "toy/_intro.html"
    item_template = "toy/_item.html"
    results_template = "toy/_results.html"

    def sequence(self, *, seed: int, options: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        order = list(QUESTIONS)
        random.Random(seed).shuffle(order)
        return [{"id": item} for item in order], {}

    def item_context(self, item: Mapping[str, Any]) -> dict[str, Any]:
        return {"question": QUESTIONS[item["id"]]}

    def read_answer(self, item: Mapping[str, Any], data: Mapping[str, str]) -> dict[str, Any]:
        if data.get("answer") not in ("yes", "no"):
            raise AnswerRejected("Answer yes or no.")
        return {"answer": data["answer"]}

    def results_context(self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]) -> dict:
        return {"rows": [(QUESTIONS[i["id"]], a["answer"]) for i, a in zip(items, answers, strict=True)]}


class Toy(Instrument):
    identity = Identity(
        slug="toy", name="Toy yes/no", version="1", citation="The test suite", summary="Three questions"
    )
    plan_options = (PlanOption("replicates", "int", 2, "Times each question is asked.", minimum=1, maximum=10),)
    studies = (Study(STUDY, "Toy questions", "toy", consent=CONSENT),)

    def questionnaire(self, study: str) -> Questionnaire | None:
        return YesNoQuestionnaire() if study == STUDY else None

    def item_records(self) -> list[dict[str, Any]]:
        return [{"id": item, "text": text} for item, text in QUESTIONS.items()]

    def next_trials(self, context: RunContext, trials: Sequence[StoredTrial]) -> list[TrialSpec] | Stop:
        if trials:
            return Stop("finished", f"{len(trials)} answers")
        return [
            TrialSpec(item=item, replicate=replicate, messages=[{"role": "user", "content": text + " Yes or no?"}])
            for item, text in QUESTIONS.items()
            for replicate in range(1, context.plan["replicates"] + 1)
        ]

    def response_mode(self, context: RunContext) -> GeneratedAnswer:
        return GeneratedAnswer(
            read=read_yes_no,
            corrective=lambda answer: {"role": "user", "content": "Answer with yes or no only."},
            max_attempts=2,
        )

    def result_summary(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        shares = {}
        for item in QUESTIONS:
            answers = [trial.answer for trial in trials if trial.item == item and trial.answer_status == "valid"]
            shares[item] = sum(answer == "yes" for answer in answers) / len(answers) if answers else None
        return {"share_yes": shares}
