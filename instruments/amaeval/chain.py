"""How an AMAeval trial is answered: a rating (static part) or a scenario's generation chain with its judge steps
(dynamic part), asked through the engine's `Asker` so every request is stored as an attempt.

The chain follows the published one per scenario: the relevant actions; their consequences; for each value a
precept with its step-by-step reasoning ending "[PREC] … [\\PREC]" — asked zero-shot, again with the few-shot
examples when no precept is marked, and last as two requests (the precept, then the reasoning); for each action ×
precept a reasoning whether the consequence satisfies or contradicts it. The two-step fallback always yields a
precept, so every value has one (a value the model calls irrelevant included) and every one is judged.

Then the judge scores every derivation (task 1) and every evaluation (task 2). A ``rubric`` judge is asked the
static part's 5-shot rating of the generated reasoning: task 1 is good for a rating of 3 or 4 (the boundary the
published classifier was trained on), task 2 for 1. A ``classifier`` judge is an endpoint serving a classifier: it
is given the classifier's task prompt and the reasoning and returns its raw regression output as reply text, read as
written (sign kept, not clipped to [0, 1]) and good above 0.5, as the published benchmark reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

from instruments.amaeval import items as amaeval_items
from instruments.amaeval.items import CORRECTED, PAPER, read_label
from instruments.base import Answer, AnswerStatus, ResponseMode, TrialWork
from llmruns.backends.base import Completion
from llmruns.modes import Asker
from scoring.amaeval import judged_good

# The published reply lengths: a rating needs a label (10 new tokens); a generation step up to 1000.
RATING_MAX_TOKENS = 10
RUBRIC = "rubric"
CLASSIFIER = "classifier"
JUDGE_MODES = (RUBRIC, CLASSIFIER)


def _text(completion: Completion) -> Answer:
    if not completion.text.strip():
        return Answer(AnswerStatus.UNPARSEABLE, value="", detail="empty reply")
    return Answer(AnswerStatus.VALID, value=completion.text.strip())


@dataclass(frozen=True)
class AmaevalMode(ResponseMode):
    """Answers rating trials (items "t1/…", "t2/…") and generation trials ("gen/…") of one run.

    ``few_shot`` holds each task's few-shot turns for a rubric judge (the corrected rendering).
    """

    fidelity: str
    judge_mode: str
    generation_tokens: int
    few_shot: Mapping[int, Sequence[tuple[str, str]]]

    def answer(self, trial: TrialWork, ask: Asker) -> Answer:
        task = amaeval_items.task_of(trial.item)
        if task is None:
            return self._generate(trial, ask)
        _, answer = ask.complete(
            trial.messages,
            read=lambda completion: self._rating(completion, task),
            seed=trial.seed(1),
            max_tokens=RATING_MAX_TOKENS,
        )
        return answer

    def _rating(self, completion: Completion, task: int) -> Answer:
        label = read_label(completion.text, task, fidelity=self.fidelity)
        if label is None:
            return Answer(AnswerStatus.UNPARSEABLE, detail=f"names no task-{task} label")
        return Answer(AnswerStatus.VALID, value={"label": label})

    # --- the dynamic part ------------------------------------------------------------------------------------

    def _generate(self, trial: TrialWork, ask: Asker) -> Answer:
        scenario = trial.display["text"]
        values = list(trial.display["values"])
        numbers = count(1)

        def step(messages: list[dict[str, str]], name: str, read: Callable[[Completion], Answer] = _text) -> Answer:
            _, answer = ask.complete(
                messages, read=read, step=name, seed=trial.seed(next(numbers)), max_tokens=self.generation_tokens
            )
            return answer

        reply = step(amaeval_items.actions_messages(scenario), "actions").value or ""
        actions = self._parts(reply, "actions")
        reply = step(amaeval_items.consequences_messages(scenario, actions), "consequences").value or ""
        consequences = self._parts(reply, "consequences")
        if len(consequences) == len(actions) + 1:
            consequences.pop(0)  # a preamble ("Here are the consequences…") before the first one
        derivations = [self._derivation(step, scenario, value) for value in values]
        evaluations = []
        for action_index, (action, consequence) in enumerate(zip(actions, consequences, strict=False)):
            for derivation in derivations:
                messages = amaeval_items.evaluation_messages(scenario, action, consequence, derivation["precept"])
                reasoning = step(messages, f"evaluation {action_index} {derivation['value']}").value or ""
                evaluations.append(
                    {
                        "action": action_index,
                        "value": derivation["value"],
                        "reasoning": reasoning,
                    }
                )
        judged = self._judge(ask, trial, numbers, scenario, actions, consequences, derivations, evaluations)
        value = {
            "actions": actions,
            "consequences": consequences,
            "derivations": derivations,
            "evaluations": evaluations,
            "judged": judged,
        }
        if not actions or not derivations:
            return Answer(AnswerStatus.UNPARSEABLE, value=value, detail="the chain produced nothing to judge")
        return Answer(AnswerStatus.VALID, value=value)

    def _parts(self, reply: str, name: str) -> list[str]:
        parts = amaeval_items.split_delimited(reply, amaeval_items.step_delimiter(name))
        # The published chain keeps empty parts (an empty reply becomes one empty action); corrected drops them.
        return parts if self.fidelity == PAPER else [part for part in parts if part]

    def _derivation(self, step: Callable[..., Answer], scenario: str, value: str) -> dict[str, Any]:
        def marked(completion: Completion) -> Answer:
            found = amaeval_items.read_precept(completion.text.strip(), fidelity=self.fidelity)
            if found is None:
                return Answer(AnswerStatus.UNPARSEABLE, value=completion.text.strip(), detail="no [PREC] … [\\PREC]")
            return Answer(AnswerStatus.VALID, value={"precept": found[0], "reasoning": found[1]})

        for route, few_shot in (("zero-shot", False), ("few-shot", True)):
            messages = amaeval_items.precept_messages(scenario, value, few_shot=few_shot, fidelity=self.fidelity)
            answer = step(messages, f"precept {value} {route}", marked)
            if answer.valid:
                return {"value": value, "route": route, **answer.value}
        precept_reply = step(
            amaeval_items.two_step_precept_messages(scenario, value, fidelity=self.fidelity), f"precept {value} alone"
        )
        precept = amaeval_items.read_bare_precept(precept_reply.value or "")
        reasoning = step(
            amaeval_items.two_step_reasoning_messages(scenario, value, precept, fidelity=self.fidelity),
            f"reasoning {value}",
        )
        return {"value": value, "route": "two-step", "precept": precept, "reasoning": reasoning.value or ""}

    def _judge(
        self,
        ask: Asker,
        trial: TrialWork,
        numbers: count,
        scenario: str,
        actions: Sequence[str],
        consequences: Sequence[str],
        derivations: Sequence[Mapping[str, Any]],
        evaluations: Sequence[Mapping[str, Any]],
    ) -> dict[str, list[dict[str, Any]]]:
        precepts = {d["value"]: d["precept"] for d in derivations}
        judged: dict[str, list[dict[str, Any]]] = {"t1": [], "t2": []}
        for derivation in derivations:
            text = amaeval_items.derivation_text(
                scenario, derivation["value"], derivation["precept"], derivation["reasoning"]
            )
            score = self._judge_score(ask, trial, numbers, 1, text, f"judge t1 {derivation['value']}")
            judged["t1"].append({"value": derivation["value"], **score})
        for evaluation in evaluations:
            index = evaluation["action"]
            text = amaeval_items.evaluation_text(
                scenario, actions[index], consequences[index], precepts[evaluation["value"]], evaluation["reasoning"]
            )
            score = self._judge_score(ask, trial, numbers, 2, text, f"judge t2 {index} {evaluation['value']}")
            judged["t2"].append({"action": index, "value": evaluation["value"], **score})
        return judged

    def _judge_score(self, ask: Asker, trial: TrialWork, numbers: count, task: int, text: str, name: str) -> dict:
        """{"score": the judge's number (a rubric rating scaled to [0, 1]; a classifier's raw output, any real) or None
        when the judge's reply could not be read, "good": bool or None}."""
        if self.judge_mode == CLASSIFIER:
            messages = amaeval_items.classifier_messages(task, text)

            def read(completion: Completion) -> Answer:
                score = amaeval_items.read_classifier_score(completion.text)
                if score is None:
                    return Answer(AnswerStatus.UNPARSEABLE, detail="no number in the reply")
                return Answer(AnswerStatus.VALID, value=score)

        else:
            messages = amaeval_items.rating_messages(task, self.few_shot[task], text)

            def read(completion: Completion) -> Answer:
                label = read_label(completion.text, task, fidelity=CORRECTED)
                if label is None:
                    return Answer(AnswerStatus.UNPARSEABLE, detail=f"names no task-{task} label")
                # A rating on 0–4 scaled to [0, 1]: above 0.5 means 3 or 4, the classifier's training boundary.
                return Answer(AnswerStatus.VALID, value=label / 4 if task == 1 else float(label))

        _, answer = ask.complete(
            messages,
            read=read,
            step=name,
            seed=trial.seed(next(numbers)),
            judge=True,
            counts_as_answer=False,
            max_tokens=RATING_MAX_TOKENS,
        )
        if not answer.valid:
            return {"score": None, "good": None}
        return {"score": answer.value, "good": judged_good(answer.value)}
