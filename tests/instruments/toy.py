"""A tiny instrument that exists only in the test suite, to prove the recipe of docs/adding-an-instrument.md.

Three yes/no questions, asked ``replicates`` times each; the answer is read from the reply's first word; the result is
the share of "yes" per question. It has no models of its own: its items are a constant, so it needs no app and no
migration — everything else (the engine, the result store, the commands, the API) comes from the platform.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from instruments.base import (
    Answer,
    AnswerStatus,
    Identity,
    Instrument,
    PlanOption,
    RunContext,
    Stop,
    StoredTrial,
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


class Toy(Instrument):
    identity = Identity(
        slug="toy", name="Toy yes/no", version="1", citation="The test suite", summary="Three questions"
    )
    plan_options = (PlanOption("replicates", "int", 2, "Times each question is asked.", minimum=1, maximum=10),)

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
